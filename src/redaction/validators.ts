/**
 * Checksums and range rules that decide whether a number-shaped string really is a card
 * number, an SSN or an IBAN. The text detectors only find candidates; these keep order
 * numbers, tracking numbers and SKUs that merely look similar out of the redaction.
 */

export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/**
 * Issuer prefix and length of the major networks. Luhn alone passes one random number in
 * ten, so 13- to 19-digit ids (Shopify ids, Amazon order numbers) would be redacted far
 * too often; requiring a real network prefix with its lengths cuts that to near zero.
 * Visa's obsolete 13-digit numbers are left out for the same reason.
 */
const CARD_NETWORKS: Array<{ prefix: RegExp; lengths: number[] }> = [
  { prefix: /^4/, lengths: [16, 19] }, // Visa
  { prefix: /^(?:5[1-5]|222[1-9]|22[3-9]\d|2[3-6]\d\d|27[01]\d|2720)/, lengths: [16] }, // Mastercard
  { prefix: /^3[47]/, lengths: [15] }, // American Express
  { prefix: /^(?:6011|64[4-9]|65)/, lengths: [16, 17, 18, 19] }, // Discover
  { prefix: /^(?:36|3[89]|30[0-59])/, lengths: [14, 15, 16, 17, 18, 19] }, // Diners Club
  { prefix: /^35(?:2[89]|[3-8]\d)/, lengths: [16, 17, 18, 19] }, // JCB
  { prefix: /^62/, lengths: [16, 17, 18, 19] }, // UnionPay
  { prefix: /^(?:5018|5020|5038|5893|6304|67\d\d)/, lengths: [16, 17, 18, 19] }, // Maestro
];

export function isCardNumber(digits: string): boolean {
  if (!/^\d{13,19}$/.test(digits)) return false;
  const network = CARD_NETWORKS.find((n) => n.prefix.test(digits));
  return !!network && network.lengths.includes(digits.length) && luhnValid(digits);
}

/** Area 000, 666 and 900-999, group 00 and serial 0000 are never issued by the SSA. */
export function isValidSsn(area: string, group: string, serial: string): boolean {
  const a = Number(area);
  return a !== 0 && a !== 666 && a < 900 && group !== '00' && serial !== '0000';
}

/** Total IBAN length per country (SWIFT IBAN registry). Unknown countries are not IBANs. */
const IBAN_LENGTHS: Record<string, number> = Object.fromEntries(
  (
    'AD24 AE23 AL28 AT20 AZ28 BA20 BE16 BG22 BH22 BI27 BR29 BY28 CH21 CR22 CY28 CZ24 DE22 DJ27 ' +
    'DK18 DO28 EE20 EG29 ES24 FI18 FK18 FO18 FR27 GB22 GE22 GI23 GL18 GR27 GT28 HN28 HR21 HU28 ' +
    'IE22 IL23 IQ23 IS26 IT27 JO30 KW30 KZ20 LB28 LC32 LI21 LT20 LU20 LV21 LY25 MC27 MD24 ME22 ' +
    'MK19 MN20 MR27 MT31 MU30 NI28 NL18 NO15 OM23 PK24 PL28 PS29 PT25 QA29 RO24 RS22 RU33 SA24 ' +
    'SC31 SD18 SE24 SI19 SK24 SM27 SO23 ST25 SV28 TL23 TN24 TR26 UA29 VA22 VG24 XK20 YE30'
  )
    .split(' ')
    .map((entry) => [entry.slice(0, 2), Number(entry.slice(2))]),
);

export function ibanLength(countryCode: string): number | undefined {
  return IBAN_LENGTHS[countryCode.toUpperCase()];
}

/** ISO 13616 / ISO 7064 mod 97-10 on a compact IBAN (no spaces). */
export function isValidIban(compact: string): boolean {
  const iban = compact.toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(iban) || ibanLength(iban.slice(0, 2)) !== iban.length) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const value = ch >= 'A' ? ch.charCodeAt(0) - 55 : ch.charCodeAt(0) - 48;
    remainder = (remainder * (value > 9 ? 100 : 10) + value) % 97;
  }
  return remainder === 1;
}

/**
 * `Basic` is an ordinary English word, so the value after it only counts as a credential
 * when it is canonical base64 of printable `user:password`.
 */
export function isBasicCredential(encoded: string): boolean {
  if (encoded.length < 4 || encoded.length % 4 === 1) return false;
  const decoded = Buffer.from(encoded, 'base64');
  if (decoded.toString('base64').replace(/=+$/, '') !== encoded.replace(/=+$/, '')) return false;
  const text = decoded.toString('utf8');
  return text.includes(':') && /^[\x20-\x7e\u00a0-\uffff]+$/.test(text) && !text.includes('\ufffd');
}
