/**
 * Identifiers written the way people write them in notes, emails and chat lines: the
 * label, then a few words, then the value ("SSN on file: 536 22 1234", "the passport
 * number we have is X1234567", "tax id for the account is 12-3456789"). The near misses
 * are the same sentences with a number that is no identifier: order and ticket numbers,
 * quantities, dates, amounts, a phone-like run of digits, or a label word used in passing.
 */
import fc from 'fast-check';
import { chars, digits, grouped, groupsOf, type Piece } from './shape';
import type { Kind } from './types';

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Words people put between a label and its value; none names another kind of number. */
const GAP_WORDS = (
  'on file we have is for the account customer gave us number provided listed as recorded in our records ' +
  'they sent was of record reads given still now her his their that shows'
).split(' ');

/** One to four words between the label and the value. */
const gap = fc.array(fc.constantFrom(...GAP_WORDS), { minLength: 1, maxLength: 4 }).map((words) => words.join(' '));
const SEPARATORS = [' ', ': ', ' is ', ' - ', ':', ' # '];

/** A label, a few words and a value, as written in a note, an email or a chat line. */
const TEMPLATES: Array<(line: string) => string> = [
  (line) => line,
  (line) => `Called the customer about the refund. ${line}. Verified.`,
  (line) => `Hi team,\n\n${line} - please double-check before shipping.\n\nThanks,\nSam`,
  (line) => `[10:42] agent: ${line}`,
  (line) => `note from support: ${line}, keep it safe`,
  (line) => `> ${line}\n> see above`,
];

/** `label gap sep value` placed in one of the templates; the value and its groups are secret. */
function inNote(label: fc.Arbitrary<string>, value: fc.Arbitrary<string>, secrets = (v: string) => [v, ...groupsOf(v)]): fc.Arbitrary<Piece> {
  return fc
    .tuple(label, gap, fc.constantFrom(...SEPARATORS), value, fc.constantFrom(...TEMPLATES))
    .map(([l, g, sep, v, template]) => ({ text: template(`${l} ${g}${sep}${v}`), secrets: secrets(v) }));
}

/** Near misses in the same templates: the sentence, not a sample with secrets. */
const inNoteText = (line: fc.Arbitrary<string>): fc.Arbitrary<unknown> =>
  fc
    .tuple(line, fc.constantFrom(...TEMPLATES), fc.constantFrom('note', 'body', 'message', 'comment'))
    .map(([l, template, key]) => ({ [key]: template(l) }));

const asPositive = (piece: fc.Arbitrary<Piece>) =>
  fc
    .tuple(piece, fc.constantFrom('note', 'body', 'message', 'comment'))
    .map(([p, key]) => ({ value: { id: 'rec_p', [key]: p.text }, secrets: p.secrets }));

const label = (...labels: string[]) => fc.constantFrom(...labels);

/** Numbers no label makes an identifier: order, ticket and invoice numbers, quantities, dates, amounts. */
const notAnId = fc.oneof(
  digits(9).map((d) => `for order ${d}`),
  digits(8, 9).map((d) => `on ticket ${d}`),
  digits(9).map((d) => `for invoice ${d}`),
  fc.integer({ min: 1, max: 40 }).map((n) => `for ${n} guests`),
  fc.date({ min: new Date('2000-01-01'), max: new Date('2039-12-31'), noInvalidDate: true }).map((d) => `since ${d.toISOString().slice(0, 10)}`),
  fc.integer({ min: 100, max: 9_999_999 }).map((c) => `fee paid ${(c / 100).toFixed(2)}`),
  digits(8).map((d) => `expires ${d.replace(/^./, '2')}`),
  // Ten bare digits: a phone written without separators, which no rule takes for one.
  fc.integer({ min: 2_000_000_000, max: 9_899_999_999 }).map((n) => `call back at ${n}`),
  digits(9).map((d) => `ref ${d}`),
  digits(9).map((d) => `. Order ${d} shipped`),
);

const validArea = fc.integer({ min: 1, max: 899 }).filter((a) => a !== 666);
const ssn = fc
  .tuple(validArea, fc.integer({ min: 1, max: 99 }), fc.integer({ min: 1, max: 9999 }), fc.constantFrom('-', ' ', '.', ''))
  .map(([a, g, s, sep]) => [String(a).padStart(3, '0'), String(g).padStart(2, '0'), String(s).padStart(4, '0')].join(sep));

const ssnsInProse: Kind = {
  name: 'SSN in prose',
  modes: ['input', 'output'],
  positives: asPositive(
    inNote(label('SSN', 'ssn', 'SSN#', 'SS#', 'Social Security number', 'social security no.', 'social security'), ssn, (v) => [v, v.slice(-4)]),
  ),
  lookalikes: inNoteText(
    fc.oneof(
      fc.tuple(label('SSN', 'ssn', 'Social Security number'), gap, notAnId).map(([l, g, n]) => `${l} ${g} ${n}`),
      // Numbers outside the issued ranges, and a card of the social security office.
      fc
        .tuple(fc.constantFrom('000', '666', '900', '987'), digits(2), digits(4))
        .map(([a, g, s]) => `SSN on file ${a} ${g === '00' ? '12' : g} ${s}`),
      fc.integer({ min: 2, max: 12 }).map((n) => `social security office visited ${n} times this year`),
      digits(9).map((d) => `SSN not on file, order ${d} shipped`),
    ),
  ),
};

const ein = fc.tuple(digits(2), digits(7), fc.boolean()).map(([a, b, dash]) => `${a === '00' ? '12' : a}${dash ? '-' : ''}${b}`);
const itin = fc
  .tuple(fc.integer({ min: 900, max: 999 }), fc.integer({ min: 70, max: 99 }), digits(4), fc.boolean())
  .map(([a, g, s, dash]) => [a, g, s].join(dash ? '-' : ''));
/** EU VAT numbers as registered: country code, then 8–12 characters. */
const vat = fc.oneof(
  fc.tuple(fc.constantFrom('DE', 'EE', 'PT', 'EL', 'GB'), digits(9)).map(([c, d]) => c + d),
  fc.tuple(fc.constantFrom('FR', 'IT', 'HR', 'LV'), digits(11)).map(([c, d]) => c + d),
  digits(8).map((d) => `ATU${d}`),
  fc.tuple(digits(9), digits(2)).map(([d, n]) => `NL${d}B${n}`),
  fc.tuple(fc.constantFrom('BE', 'SK', 'PL'), digits(10)).map(([c, d]) => c + d),
  fc.tuple(fc.constantFrom('DK', 'FI', 'HU', 'LU', 'MT', 'SI'), digits(8)).map(([c, d]) => c + d),
  fc.tuple(digits(8), chars(UPPER, 1)).map(([d, l]) => `ES${l}${d}`),
  fc.tuple(digits(3), digits(4), digits(2)).map(([a, b, c]) => `GB ${a} ${b} ${c}`),
);

const taxIdsInProse: Kind = {
  name: 'tax id in prose (EIN, ITIN, VAT)',
  modes: ['input', 'output'],
  positives: asPositive(
    fc.oneof(
      inNote(label('EIN', 'FEIN', 'TIN', 'ITIN', 'tax id', 'Tax ID', 'taxpayer id', 'Employer Identification Number'), fc.oneof(ein, itin)),
      inNote(label('VAT number', 'VAT no.', 'VAT ID', 'VAT reg no', 'VAT'), vat, (v) => [v.replace(/ /g, ''), v]),
      // A VAT number right after its label is new too.
      fc
        .tuple(label('VAT', 'VAT number', 'VAT ID', 'vat no.'), fc.constantFrom(': ', ' ', ' is ', ' # '), vat)
        .map(([l, sep, v]) => ({ text: `${l}${sep}${v}`, secrets: [v] })),
    ),
  ),
  lookalikes: inNoteText(
    fc.oneof(
      fc.tuple(label('EIN', 'tax id', 'Tax ID', 'VAT'), gap, notAnId).map(([l, g, n]) => `${l} ${g} ${n}`),
      fc.integer({ min: 1, max: 99_999 }).map((c) => `tax for the order is ${(c / 100).toFixed(2)}`),
      fc.integer({ min: 5, max: 27 }).map((n) => `VAT of ${n} % is included in the total`),
      fc.integer({ min: 100, max: 999_999 }).map((c) => `VAT included ${(c / 100).toFixed(2)} EUR`),
      // "tin" and "ein" are words too: the short labels count in prose only in capitals.
      digits(9).map((d) => `a tin of the best biscuits we have ${d}`),
      digits(9).map((d) => `ein Paket mit der Nummer ${d}`),
    ),
  ),
};

const passport = fc.oneof(
  fc.tuple(chars(UPPER, 1, 2), digits(6, 8)).map(([a, d]) => a + d),
  digits(9),
);
const licence = fc.oneof(
  fc.tuple(chars(UPPER, 1), digits(7)).map(([a, d]) => a + d),
  fc.tuple(chars(UPPER, 1), digits(3), digits(4), digits(4)).map(([a, b, c, d]) => `${a}${b}-${c}-${d}`),
);

const documentsInProse: Kind = {
  name: 'passport / licence in prose',
  modes: ['input', 'output'],
  positives: asPositive(
    inNote(
      label('passport', 'Passport', 'passport no.', "driver's license", 'drivers licence', 'driving licence', 'National ID', 'ID card'),
      fc.oneof(passport, licence),
      (v) => [v],
    ),
  ),
  lookalikes: inNoteText(
    fc.oneof(
      fc.tuple(label('passport', 'Passport', "driver's license", 'National ID'), gap, notAnId).map(([l, g, n]) => `${l} ${g} ${n}`),
      fc.integer({ min: 1, max: 12 }).map((n) => `passport photo on file for ${n} travellers`),
      fc
        .tuple(fc.integer({ min: 1, max: 28 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 2026, max: 2040 }))
        .map(([d, m, y]) => `passport valid until ${d}/${m}/${y}`),
      fc.integer({ min: 2000, max: 2030 }).map((y) => `driver's license class B since ${y}`),
      fc.integer({ min: 1, max: 9 }).map((n) => `passport photo on file, ${n} copies`),
    ),
  ),
};

function luhnCheckDigit(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

/**
 * Cards of the major networks, and of those whose prefixes the unlabelled rule leaves
 * out to spare ids (Mir, RuPay, Verve, UATP, 13-digit Visa): after a card label a valid
 * Luhn check is enough.
 */
const CARD_FORMATS: Array<[string, number, number[]]> = [
  ['4', 16, [4, 4, 4, 4]],
  ['5', 16, [4, 4, 4, 4]],
  ['37', 15, [4, 6, 5]],
  ['2201', 16, [4, 4, 4, 4]],
  ['60', 16, [4, 4, 4, 4]],
  ['81', 16, [4, 4, 4, 4]],
  ['5061', 19, [4, 4, 4, 4, 3]],
  ['1', 15, [4, 5, 6]],
  ['4', 13, [4, 4, 5]],
];
const anyCard = fc.tuple(fc.constantFrom(...CARD_FORMATS), fc.constantFrom(' ', '-', '')).chain(([[prefix, length, groups], sep]) =>
  digits(length - prefix.length - 1).map((rest) => {
    const body = prefix === '5' ? `5${String((Number(rest[0]) % 5) + 1)}${rest.slice(1)}` : prefix + rest;
    const compact = body + luhnCheckDigit(body);
    return sep === '' ? compact : grouped(compact, groups, sep);
  }),
);

const cardsInProse: Kind = {
  name: 'card number in prose',
  modes: ['input', 'output'],
  positives: asPositive(inNote(label('card', 'card number', 'credit card', 'Visa', 'Mastercard', 'debit card', 'CC'), anyCard)),
  lookalikes: inNoteText(
    fc.oneof(
      fc.tuple(label('card', 'gift card', 'credit card'), gap, notAnId).map(([l, g, n]) => `${l} ${g} ${n}`),
      // The same numbers failing Luhn.
      anyCard.map((c) => `card on file ${c.slice(0, -1)}${(Number(c.at(-1)) + 1) % 10}`),
      fc.integer({ min: 1, max: 9 }).map((n) => `card ending soon, ${n} reminders sent`),
      fc.integer({ min: 2, max: 30 }).map((n) => `the card ends in ${n} days`),
      digits(4).map((d) => `offer ending ${d}`),
    ),
  ),
};

const last4 = digits(4);

const cardEndingsInProse: Kind = {
  name: 'card ending (last four) in prose',
  modes: ['output'],
  positives: asPositive(
    fc
      .tuple(
        label('card', 'Visa', 'Mastercard', 'Amex', 'debit card', 'credit card'),
        fc.constantFrom('', ' on file', ' we have', ' they used'),
        fc.constantFrom(' ending in ', ' ending ', ' ends in ', ' ends with ', ' last four: ', ' last 4 digits '),
        last4,
        fc.constantFrom(...TEMPLATES),
      )
      .map(([l, g, end, d, template]) => ({ text: template(`${l}${g}${end}${d}`), secrets: [d] })),
  ),
  lookalikes: inNoteText(
    fc.oneof(
      fc.integer({ min: 2, max: 30 }).map((n) => `the card ends in ${n} days`),
      fc
        .date({ min: new Date('2026-01-01'), max: new Date('2039-12-31'), noInvalidDate: true })
        .map((d) => `promo card ending on ${d.toISOString().slice(0, 10)}`),
      digits(4).map((d) => `order ending in ${d}`),
      digits(6).map((d) => `card ending in ${d}`),
    ),
  ),
};

/** [country, BBAN letters (bank code), BBAN length]. */
const IBAN_FORMATS: Array<[string, number, number]> = [
  ['DE', 0, 18],
  ['GB', 4, 18],
  ['FR', 0, 23],
  ['NL', 4, 14],
  ['ES', 0, 20],
];

function mod97(text: string): number {
  let remainder = 0;
  for (const ch of text) {
    const value = ch >= 'A' ? ch.charCodeAt(0) - 55 : ch.charCodeAt(0) - 48;
    remainder = (remainder * (value > 9 ? 100 : 10) + value) % 97;
  }
  return remainder;
}

const iban = fc.tuple(fc.constantFrom(...IBAN_FORMATS), fc.boolean()).chain(([[country, letters, length], spaced]) =>
  fc.tuple(chars(UPPER, letters), digits(length - letters)).map(([bank, rest]) => {
    const bban = bank + rest;
    const compact = `${country}${String(98 - mod97(`${bban}${country}00`)).padStart(2, '0')}${bban}`;
    return spaced ? grouped(compact, Array(9).fill(4), ' ') : compact;
  }),
);

const ibansInProse: Kind = {
  name: 'IBAN in prose',
  modes: ['input', 'output'],
  positives: asPositive(inNote(label('IBAN', 'iban', 'bank account', 'account'), iban, (v) => [v.replace(/ /g, ''), ...groupsOf(v).slice(1)])),
  lookalikes: inNoteText(
    fc.oneof(
      fc.tuple(label('IBAN', 'bank account'), gap, notAnId).map(([l, g, n]) => `${l} ${g} ${n}`),
      iban.map((v) => `IBAN we have is ${v.slice(0, -1)}${(Number(v.at(-1)) + 1) % 10}`),
      fc.integer({ min: 100, max: 999_999 }).map((c) => `IBAN on file was refunded ${(c / 100).toFixed(2)} EUR`),
    ),
  ),
};

export const proseKinds: Kind[] = [ssnsInProse, taxIdsInProse, documentsInProse, cardsInProse, cardEndingsInProse, ibansInProse];
