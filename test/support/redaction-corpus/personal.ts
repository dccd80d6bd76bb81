/**
 * Personal data, redacted from tool outputs only: emails, phones, street lines, names,
 * dates of birth, IP addresses and payment method details.
 */
import fc from 'fast-check';
import { chars, digits, groupsOf, inPayload, keyFrom, labelCase, nested, type Piece, underKey } from './shape';
import type { Kind } from './types';

const LOWER = 'abcdefghijklmnopqrstuvwxyz';

const localPart = fc
  .tuple(
    chars(`${LOWER}0123456789`, 1, 10),
    fc.array(fc.tuple(fc.constantFrom('.', '_', '+', '-'), chars(`${LOWER}0123456789`, 1, 8)), { maxLength: 2 }),
  )
  .map(([head, rest]) => head + rest.map(([sep, part]) => sep + part).join(''));
const domain = fc
  .tuple(
    fc.array(chars(`${LOWER}0123456789`, 2, 12), { minLength: 1, maxLength: 2 }),
    fc.constantFrom('com', 'org', 'net', 'io', 'co.uk', 'de', 'fr', 'shop', 'store', 'email', 'com.au'),
  )
  .map(([labels, tld]) => `${labels.join('.')}.${tld}`);
const email = fc.tuple(localPart, domain, fc.constantFrom('lower', 'upper', 'mixed')).map(([local, host, casing]) => {
  const address = `${local}@${host}`;
  if (casing === 'upper') return address.toUpperCase();
  return casing === 'mixed' ? address.charAt(0).toUpperCase() + address.slice(1) : address;
});

const emails: Kind = {
  name: 'email',
  modes: ['output'],
  positives: fc.oneof(
    inPayload(
      fc
        .tuple(fc.constantFrom('', '', 'Email: ', 'e-mail ', 'mailto:', '✉ ', 'contact: ', 'reply to '), email, fc.boolean())
        .map(([label, address, angle]) => ({ text: angle ? `${label}<${address}>` : `${label}${address}`, secrets: [address] })),
    ),
    underKey(keyFrom(['email', 'customer email', 'contact email', 'e mail', 'email address', 'buyer email']), email, (v) => [v as string]),
    fc.array(email, { minLength: 1, maxLength: 3 }).map((list) => ({ value: { emails: list }, secrets: list })),
  ),
  lookalikes: nested(
    fc.constantFrom(
      'follow @demo_shop for updates',
      'https://cdn.example.com/files/logo@2x.png',
      'hero-banner@3x.jpg',
      '2 @ 3.99 each',
      'npm i @scope/package',
      'root@localhost',
    ),
  ),
};

// NANP: area and exchange never start with 0 or 1.
const nanp = fc
  .tuple(fc.integer({ min: 200, max: 989 }), fc.integer({ min: 200, max: 999 }), digits(4))
  .map(([a, e, l]) => [String(a), String(e), l]);
const NANP_FORMATS: Array<(a: string, e: string, l: string) => string> = [
  (a, e, l) => `(${a}) ${e}-${l}`,
  (a, e, l) => `${a}-${e}-${l}`,
  (a, e, l) => `${a}.${e}.${l}`,
  (a, e, l) => `${a} ${e} ${l}`,
  (a, e, l) => `1-${a}-${e}-${l}`,
  (a, e, l) => `+1 ${a} ${e} ${l}`,
  (a, e, l) => `+1-${a}-${e}-${l}`,
  (a, e, l) => `+1 (${a}) ${e}-${l}`,
  (a, e, l) => `+1${a}${e}${l}`,
  (a, e, l) => `(${a})${e}-${l}`,
  (a, e, l) => `+1.${a}.${e}.${l}`,
];

/** +CC then a national number grouped 2–4 by spaces, dashes or dots. */
const international = fc
  .tuple(
    fc.constantFrom('44', '49', '33', '61', '91', '81', '34', '39', '31', '55', '52', '353'),
    digits(9, 10),
    fc.constantFrom(' ', '-', '.', ''),
    fc.constantFrom([2, 4, 4], [3, 3, 4], [1, 2, 2, 2, 2], [3, 4, 3], [2, 3, 4]),
  )
  .map(([cc, national, sep, sizes]) => {
    const head = national.replace(/^0/, '7');
    const parts: string[] = [];
    let at = 0;
    for (const size of sizes) if (at < head.length) parts.push(head.slice(at, (at += size)));
    if (at < head.length) parts.push(head.slice(at));
    return `+${cc} ${parts.join(sep)}`;
  });

// Trunk prefix 0: 020 7946 0958, 07911 123456, 030-1234-5678.
const trunk = fc
  .tuple(fc.constantFrom('020', '07911', '0161', '030', '089', '01632'), digits(3, 4), digits(3, 4), fc.constantFrom(' ', '-'))
  .filter(([area, a, b]) => (area + a + b).length >= 10 && (area + a + b).length <= 11)
  .map(([area, a, b, sep]) => `${area}${sep}${a}${sep}${b}`);

const PHONE_LABELS = [
  'Phone',
  'phone:',
  'Tel.',
  'Tel:',
  'Telephone',
  'Mobile',
  'Mob:',
  'Cell',
  'Fax',
  'Ph:',
  'Ph.',
  '☎',
  '📞',
  'call',
  'Whatsapp',
  'Phone number',
  'mobile #',
];

const phonePiece: fc.Arbitrary<Piece> = fc.oneof(
  fc
    .tuple(
      fc.oneof(
        nanp.chain(([a, e, l]) => fc.constantFrom(...NANP_FORMATS).map((f) => f(a, e, l))),
        international,
        trunk,
      ),
      fc.constantFrom('', '', ...PHONE_LABELS),
    )
    .map(([phone, label]) => ({ text: label ? `${label} ${phone}` : phone, secrets: [phone, ...groupsOf(phone)] })),
  // Ten digits with nothing between them need a label: bare, they are as often an id.
  fc.tuple(nanp, fc.constantFrom(...PHONE_LABELS).chain(labelCase), fc.constantFrom(' ', ': ', '')).map(([[a, e, l], label, sep]) => {
    const phone = `${a}${e}${l}`;
    return { text: `${label}${/[:.#]$/.test(label) || /^\p{Extended_Pictographic}/u.test(label) ? ' ' : sep || ' '}${phone}`, secrets: [phone] };
  }),
);

const phones: Kind = {
  name: 'phone',
  modes: ['output'],
  positives: fc.oneof(
    inPayload(phonePiece),
    underKey(
      keyFrom(['phone', 'mobile', 'telephone', 'fax', 'cell phone', 'phone number', 'contact phone', 'billing phone', 'whatsapp', 'tel']),
      phonePiece.map((p) => p.text),
      (v) => [v as string],
    ),
  ),
  lookalikes: nested(
    fc.oneof(
      fc.tuple(fc.integer({ min: 100, max: 199 }), digits(3), digits(4)).map(([a, e, l]) => `part ${a}-${e}-${l}`),
      nanp.map(([a, e, l]) => `ref ${a}${e}${l}`),
      fc.integer({ min: 1, max: 99_999_999 }).map((cents) => `+${(cents / 100).toFixed(2)}`),
      fc
        .tuple(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }))
        .map(([m, d]) => `2026-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')} 10:00-12:00`),
      fc
        .tuple(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 99 }))
        .map(([a, b, c]) => `v${a}.${b}.${c}`),
    ),
  ),
};

const STREET_NAMES = [
  'Main',
  'Oak',
  'Maple',
  'Chestnut',
  'Elm',
  'Washington',
  'Lake View',
  'Sunset',
  'Park',
  'Martin Luther King',
  'Cedar Hill',
  'Amoeba',
  'High',
  'Station',
];
const SUFFIXES = [
  'Street',
  'St',
  'St.',
  'Avenue',
  'Ave',
  'Ave.',
  'Road',
  'Rd',
  'Boulevard',
  'Blvd',
  'Lane',
  'Ln',
  'Drive',
  'Dr',
  'Court',
  'Way',
  'Place',
  'Terrace',
  'Parkway',
  'Circle',
];
const UNITS = ['', '', '', ', Apt 4', ' Suite 210', ', Unit 7B', ' #12', ', Floor 3'];
const CITY_TAILS = ['', ', Springfield, IL 62704', ', Louisville, KY 40202', ', London SW1A 2AA', ', Ottawa, ON K2P 0V6', ' Portland OR 97201'];

const streetLine = fc
  .tuple(
    fc.integer({ min: 1, max: 99_999 }),
    fc.constantFrom('', 'N ', 'S ', 'E ', 'W ', 'North '),
    fc.constantFrom(...STREET_NAMES),
    fc.constantFrom(...SUFFIXES),
    fc.constantFrom(...UNITS),
  )
  .map(([n, dir, name, suffix, unit]) => ({ core: `${n} ${dir}${name} ${suffix}`, unit }));

const strasse = fc
  .tuple(
    fc.constantFrom('Hauptstraße', 'Berliner Straße', 'Gartenweg', 'Schillerstr.', 'Marktplatz', 'Lindenallee'),
    fc.integer({ min: 1, max: 250 }),
    fc.constantFrom('', 'a', 'b'),
  )
  .map(([street, n, letter]) => `${street} ${n}${letter}`);
const poBox = fc
  .tuple(fc.constantFrom('PO Box', 'P.O. Box', 'Post Office Box', 'po box'), fc.integer({ min: 1, max: 99_999 }))
  .map(([box, n]) => `${box} ${n}`);

const addressPiece: fc.Arbitrary<Piece> = fc.oneof(
  fc
    .tuple(streetLine, fc.constantFrom('title', 'upper'), fc.constantFrom(...CITY_TAILS), fc.constantFrom('', 'ship to ', 'Address: ', 'deliver to '))
    .map(([{ core, unit }, casing, tail, label]) => {
      const shown = casing === 'upper' ? core.toUpperCase() : core;
      return { text: `${label}${shown}${unit}${tail}`, secrets: [shown] };
    }),
  // Typed in lower case, a street line needs a label to tell it from prose.
  fc
    .tuple(streetLine, fc.constantFrom('address: ', 'ship to ', 'Address - ', 'deliver to: ', 'street: '), fc.constantFrom(...CITY_TAILS))
    .map(([{ core, unit }, label, tail]) => ({ text: `${label}${core.toLowerCase()}${unit.toLowerCase()}${tail}`, secrets: [core.toLowerCase()] })),
  strasse.map((s) => ({ text: `${s}, 10115 Berlin`, secrets: [s] })),
  poBox.map((s) => ({ text: s, secrets: [s] })),
);

const addresses: Kind = {
  name: 'street address',
  modes: ['output'],
  positives: fc.oneof(
    inPayload(addressPiece),
    fc
      .tuple(
        keyFrom(['shipping address', 'billing address', 'default address', 'address', 'ship to', 'bill to']),
        keyFrom(['address1', 'street', 'line1', 'address line1', 'street address', 'address line 1']),
        streetLine,
      )
      .map(([parent, field, { core, unit }]) => ({
        value: { addresses: [{ [parent]: { [field]: core + unit, city: 'Springfield', zip: '62704' } }] },
        secrets: [core],
      })),
    fc
      .tuple(keyFrom(['address', 'shipping address', 'mailing address']), addressPiece)
      .map(([key, piece]) => ({ value: { order: { [key]: piece.text } }, secrets: piece.secrets })),
  ),
  lookalikes: nested(
    fc.oneof(
      fc.constantFrom(
        'Seagate 2 TB External Hard Drive',
        '1 TB USB Flash Drive',
        '3 Piece Patio Court Set',
        '10 Inch Square Plate',
        '3 items in the way, 2 boxes Next Day',
        'Ships in 2 Business Days',
        'Top 10 Gift Ideas',
        'Springfield, IL 62704',
        'Pack of 6 Crew Socks',
      ),
      fc
        .tuple(
          fc.integer({ min: 1, max: 500 }),
          fc.constantFrom('GB', 'TB', 'Pack', 'Piece', 'Pc', 'oz', 'lb', 'Inch', 'In', 'Ft', 'Foot', 'Mm', 'Cm'),
        )
        .map(([n, unit]) => `${n} ${unit} Power Drive`),
    ),
  ),
};

const FIRST = ['Jane', 'Bob', 'María', 'Wei', 'Olu', 'Anne-Marie', "O'Neil", 'Zoë'];
const LAST = ['Doe', 'Norman', 'García', 'Chen', 'Adeyemi', 'Smith-Jones', 'van der Berg'];
const fullName = fc.tuple(fc.constantFrom(...FIRST), fc.constantFrom(...LAST)).map(([f, l]) => `${f} ${l}`);

const names: Kind = {
  name: 'person name (by field)',
  modes: ['output'],
  positives: fc.oneof(
    underKey(
      keyFrom([
        'first name',
        'last name',
        'full name',
        'given name',
        'family name',
        'buyer name',
        'recipient name',
        'cardholder name',
        'customer name',
      ]),
      fullName,
      (v) => [v as string],
    ),
    fc
      .tuple(keyFrom(['customer', 'buyer', 'recipient', 'contact', 'ship to', 'bill to', 'account holder']), fullName)
      .map(([key, name]) => ({ value: { [key]: { id: 7, name, orders_count: 3 } }, secrets: [name] })),
  ),
  lookalikes: nested(
    fc.constantFrom(
      { line_items: [{ name: 'IPod Nano - 8gb', vendor: 'Apple' }] },
      { shop: { name: 'Demo Store', domain: 'demo.example' } },
      { company_name: 'Acme Corp', product_name: 'Widget' },
      { shipping_lines: [{ name: 'Standard Shipping' }] },
      { tax_lines: [{ name: 'State Tax' }] },
    ),
  ),
};

const dob = fc
  .tuple(fc.integer({ min: 1930, max: 2010 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }), fc.nat(6))
  .map(([y, m, d, style]) => {
    const mm = String(m).padStart(2, '0');
    const dd = String(d).padStart(2, '0');
    const month = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'][m - 1];
    return [
      `${y}-${mm}-${dd}`,
      `${mm}/${dd}/${y}`,
      `${dd}.${mm}.${y}`,
      `${dd}/${mm}/${y}`,
      `${month} ${d}, ${y}`,
      `${d} ${month.slice(0, 3)} ${y}`,
      `${y}/${mm}/${dd}`,
    ][style];
  });

const births: Kind = {
  name: 'date of birth',
  modes: ['output'],
  positives: fc.oneof(
    underKey(keyFrom(['dob', 'date of birth', 'birth date', 'birthday', 'birthdate']), dob, (v) => [v as string]),
    inPayload(
      fc
        .tuple(
          fc.constantFrom('DOB', 'D.O.B.', 'Date of birth', 'birth date', 'Birthdate', 'birthday', 'born', 'born on').chain(labelCase),
          fc.constantFrom(': ', ' ', ' - ', ':'),
          dob,
        )
        .map(([label, sep, date]) => ({ text: `${label}${sep}${date}`, secrets: [date] })),
    ),
  ),
  lookalikes: nested(
    fc.oneof(
      dob.map((date) => `created ${date}`),
      dob.map((date) => `Order date: ${date}`),
      dob.map((date) => `Birthday sale ends ${date}`),
      dob.map((date) => ({ ship_by: date, created_at: date })),
    ),
  ),
};

const ips: Kind = {
  name: 'IP address (by field)',
  modes: ['output'],
  positives: underKey(
    keyFrom(['ip', 'browser ip', 'client ip', 'ip address', 'remote ip', 'remote addr', 'ipv6']),
    fc.oneof(fc.ipV4(), fc.ipV6()),
    (v) => [v as string],
  ),
  lookalikes: nested(
    fc.tuple(fc.nat(20), fc.nat(20), fc.nat(20), fc.nat(99)).map(([a, b, c, d]) => ({ app_version: `${a}.${b}.${c}.${d}`, api_version: '2026-01' })),
  ),
};

const payments: Kind = {
  name: 'payment method',
  modes: ['output'],
  positives: fc.oneof(
    fc
      .tuple(
        fc.constantFrom('source', 'payment', 'instrument', 'default_source', 'wallet_item'),
        fc.constantFrom('visa', 'mastercard', 'amex', 'discover'),
        digits(4),
        fc.constantFrom('exp_month', 'expiry', 'funding', 'network', 'brand'),
      )
      .map(([key, brand, last4, extra]) => ({
        value: { [key]: { brand, last4, [extra]: extra === 'brand' ? brand : 12 }, amount: 1999 },
        secrets: [last4],
      })),
    fc
      .tuple(keyFrom(['payment method', 'payment details', 'payment instrument', 'bank account', 'card']), digits(4))
      .map(([key, last4]) => ({ value: { [key]: { number: `•••• ${last4}`, holder: 'B. N.' }, status: 'paid' }, secrets: [last4] })),
  ),
  lookalikes: nested(
    fc.constantFrom(
      { brand: 'Nike', title: 'Air Max', sku: 'NK-AM-90' },
      { gift_card: { last_characters: 'x1y2', balance: '25.00' } },
      { payment_status: 'paid', financial_status: 'paid', gateway: 'shopify_payments' },
      { payment_gateway_names: ['manual'] },
    ),
  ),
};

export const personalKinds: Kind[] = [emails, phones, addresses, names, births, ips, payments];
