/**
 * What a field name says about its value. Keys are split into lower-case words so that
 * apiKey, api_key, x-api-key and API-KEY are one name, and so that a short word is only
 * matched as a whole word: `pin` must not fire inside `shipping`, `tin` inside `setting`.
 */

const wordCache = new Map<string, string[]>();

export function keyWords(key: string): string[] {
  let words = wordCache.get(key);
  if (!words) {
    // Vendor results repeat the same few keys thousands of times.
    if (wordCache.size >= 2000) wordCache.clear();
    words = splitKey(key);
    wordCache.set(key, words);
  }
  return words;
}

function splitKey(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

const set = (words: string) => new Set(words.split(/\s+/).filter(Boolean));

/** Whole names (words joined) that are secrets. */
const SECRET_NAMES = set(`
  apikey xapikey token accesstoken refreshtoken idtoken authtoken bearertoken sessiontoken securitytoken
  secret clientsecret password passwd pwd passphrase authorization auth bearer privatekey cookie setcookie
  session sessionid credentials credential pin cvv cvv2 cvc cvc2 securitycode ssn socialsecuritynumber
  taxid taxidnumber taxidentifier taxidentificationnumber taxnumber taxpayerid vatnumber vatid ein fein tin
  itin iban cardnumber creditcardnumber debitcardnumber ccnumber cardnum cardno pan primaryaccountnumber
  accountnumber bankaccountnumber acctnumber accountno passport passportnumber driverslicense
  driverslicensenumber driverlicense nationalid nationalidnumber otp totp mfacode verificationcode hmac
  signature mnemonic seedphrase
`);

/** A word that makes any name containing it secret (client_secret, db_password, cookie_header). */
const SECRET_WORDS = set(`
  password passwd pwd passphrase secret secrets credential credentials authorization cookie cookies ssn
  cvv cvv2 cvc cvc2 iban ein fein itin hmac passport
`);

/** Words that are secret only as the last word: `access_token` is, `token_type` is not. */
const SECRET_LAST_WORDS = set('token pin tin pan auth bearer session signature pass');

/**
 * Last words that describe a secret rather than hold it: `password_changed_at`,
 * `token_expires_at`, `client_secret_expires_at`, `password_length`, `password_policy`.
 */
const ABOUT_A_SECRET = set(
  'at date time timestamp expires expiry expiration changed updated created rotated length policy required enabled count type status strength',
);

/** Pagination cursors end in "token" but open nothing. */
const CURSOR_QUALIFIERS = set('next page continuation pagination sync cursor');

/** `…_key` is a secret only with one of these before it (not idempotency_key, sort_key). */
const KEY_QUALIFIERS = set('api private secret access signing encryption master client license auth session shared webhook');

const NUMBER_WORDS = set('number num no');
const SESSION_PARTS = set('id key token cookie');
const CARD_WORDS = set('card cc credit debit');
const ACCOUNT_WORDS = set('account acct');
const TAX_WORDS = set('tax taxpayer vat');
const TAX_ID_WORDS = set('id number num no identifier identification');
const SOCIAL = set('social');
const SECURITY = set('security');
const NATIONAL = set('national');
const ID = set('id');
const DRIVER = set('driver drivers');
const LICENSE = set('license licence');

function hasPair(words: string[], first: Set<string>, second: Set<string>): boolean {
  return words.some((w, i) => first.has(w) && words.slice(i + 1).some((v) => second.has(v)));
}

export function isSecretKey(key: string): boolean {
  const words = keyWords(key);
  if (words.length === 0) return false;
  const last = words[words.length - 1];
  const beforeLast = words[words.length - 2];
  if (words.length > 1 && ABOUT_A_SECRET.has(last)) return false;
  if (SECRET_NAMES.has(words.join(''))) return !(last === 'token' && CURSOR_QUALIFIERS.has(beforeLast));
  if (words.some((w) => SECRET_WORDS.has(w))) return true;
  if (SECRET_LAST_WORDS.has(last)) return !(last === 'token' && CURSOR_QUALIFIERS.has(beforeLast));
  if (last === 'key' && KEY_QUALIFIERS.has(beforeLast)) return true;
  const session = words.indexOf('session');
  if (session >= 0 && SESSION_PARTS.has(words[session + 1])) return true;
  return (
    hasPair(words, CARD_WORDS, NUMBER_WORDS) ||
    hasPair(words, ACCOUNT_WORDS, NUMBER_WORDS) ||
    hasPair(words, TAX_WORDS, TAX_ID_WORDS) ||
    hasPair(words, SOCIAL, SECURITY) ||
    hasPair(words, NATIONAL, ID) ||
    hasPair(words, DRIVER, LICENSE)
  );
}

const E = set('e');
const MAIL = set('mail');
const PHONE_WORDS = set('phone phones telephone tel mobile cell cellphone fax msisdn whatsapp');
const PERSON_NAME_NAMES = set(`
  firstname lastname fullname givenname familyname middlename surname maidenname legalname
  customername buyername recipientname contactname cardholdername cardholder nameoncard holdername
  accountholdername accountholder
`);
const PERSON_NAME_QUALIFIERS = set(`
  first last full given family middle maiden legal customer buyer recipient contact holder cardholder
  person sender receiver consignee shopper guest
`);
const PAYMENT_NAMES = set(`
  paymentmethod paymentmethods paymentmethoddetails paymentdetails paymentinstrument paymentinstruments
  paymentsource paymentinfo bankaccount bankdetails last4 lastfour last4digits lastdigits
`);
const IP_NAMES = set('ip ipv4 ipv6 ipaddress browserip clientip remoteip remoteaddr');
const BIRTH_NAMES = set('dob dateofbirth birthdate birthday');

/** Output fields whose whole value is personal data or payment detail. */
export function isPersonalKey(key: string): boolean {
  const words = keyWords(key);
  const joined = words.join('');
  const last = words[words.length - 1];
  return (
    words.includes('email') ||
    words.includes('emails') ||
    hasPair(words, E, MAIL) ||
    words.some((w) => PHONE_WORDS.has(w)) ||
    PERSON_NAME_NAMES.has(joined) ||
    (last === 'name' && PERSON_NAME_QUALIFIERS.has(words[words.length - 2])) ||
    PAYMENT_NAMES.has(joined) ||
    (words.includes('card') && !words.includes('gift')) ||
    words.some((w) => IP_NAMES.has(w)) ||
    IP_NAMES.has(joined) ||
    BIRTH_NAMES.has(joined)
  );
}

/** Objects describing a person: their plain `name` field is a personal name. */
const PERSON_NAMES = set(`
  customer customers customerinfo buyer buyerinfo recipient recipients contact contacts cardholder user
  person owner accountholder billto shipto consignee sender receiver shopper guest
`);

const PERSON_LAST_WORDS = set('customer buyer recipient contact');
const PERSON_NAME_FIELDS = set('name names displayname');

export function isPersonKey(key: string): boolean {
  const words = keyWords(key);
  return PERSON_NAMES.has(words.join('')) || PERSON_LAST_WORDS.has(words[words.length - 1]);
}

export function isPersonNameField(key: string): boolean {
  return PERSON_NAME_FIELDS.has(keyWords(key).join(''));
}

const SHIPPING_PARTIES = set('shipto billto shipfrom');
const ADDRESS_WORDS = set('address addresses addr');
const NON_POSTAL = set('email ip ipv4 ipv6 mac wallet web url bitcoin btc eth contract server remote host memory base');

export function isAddressKey(key: string): boolean {
  const words = keyWords(key);
  const last = words[words.length - 1];
  if (SHIPPING_PARTIES.has(words.join(''))) return true;
  return ADDRESS_WORDS.has(last) && !words.some((w) => NON_POSTAL.has(w));
}

/** Address fields kept in the ledger: coarse location, useful for support, not identifying alone. */
const ADDRESS_KEEP = set(`
  zip zipcode postalcode postcode postal country countrycode countryname countryiso countryisocode
  province provincecode provincename state statecode statename stateorregion stateorprovince region
  regioncode regionname city cityname town county district municipality locality
  id type addresstype default isdefault createdat updatedat validated verified
`);

/** Words marking a street line, a name or a precise position inside an address. */
const ADDRESS_REDACT_WORDS = set(`
  address address1 address2 address3 line line1 line2 line3 street street1 street2 streetaddress house
  housenumber building apartment apt suite unit flat floor room pobox box name firstname lastname
  fullname latitude longitude lat lng lon coordinates coords geo geolocation
`);

export type AddressField = 'keep' | 'redact' | 'other';

export function classifyAddressField(key: string): AddressField {
  const words = keyWords(key);
  if (ADDRESS_KEEP.has(words.join(''))) return 'keep';
  return words.some((w) => ADDRESS_REDACT_WORDS.has(w)) ? 'redact' : 'other';
}

/** Under these keys a bare `NN-NNNNNNN` is an EIN rather than some other code. */
const TAX_SCOPE_WORDS = set('tax taxes taxpayer ein fein tin itin vat employer');

export function isTaxKey(key: string): boolean {
  return keyWords(key).some((w) => TAX_SCOPE_WORDS.has(w));
}

const PAIR_LABELS = set('name key header field headername');

/**
 * `{ name: 'X-Api-Key', value: '…' }` (headers, tax classifications, custom attributes):
 * the label names the value, so it is judged as if it were its key.
 */
export function pairLabel(object: Record<string, unknown>): { valueKey: string; label: string } | undefined {
  let label: string | undefined;
  let valueKey: string | undefined;
  for (const [key, value] of Object.entries(object)) {
    const joined = keyWords(key).join('');
    if (label === undefined && PAIR_LABELS.has(joined) && typeof value === 'string') label = value;
    if (valueKey === undefined && joined === 'value') valueKey = key;
  }
  return label !== undefined && valueKey !== undefined ? { valueKey, label } : undefined;
}

const CARD_SUMMARY_MARKERS = set('last4 lastfour last4digits lastdigits');
const CARD_DETAIL_MARKERS = set(
  'brand cardbrand network expmonth expyear expiry expirymonth expiryyear expirationmonth expirationyear funding cardtype wallet',
);

/** `{ brand: 'visa', last4: '4242', exp_month: 12 }` under any key is a payment method. */
export function isCardSummary(object: Record<string, unknown>): boolean {
  const names = Object.keys(object).map((key) => keyWords(key).join(''));
  return names.some((n) => CARD_SUMMARY_MARKERS.has(n)) && names.some((n) => CARD_DETAIL_MARKERS.has(n));
}
