/**
 * Numbers that are secrets: card numbers (network prefix and Luhn), SSNs, tax ids (EIN,
 * TIN, ITIN) and IBANs (mod 97), each with near misses that fail the check.
 */
import fc from 'fast-check';
import { digits, grouped, groupsOf, inPayload, keyFrom, labelCase, nested, type Piece, underKey } from './shape';
import type { Kind } from './types';

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

/** [prefix, length, grouping] of the major networks. */
const NETWORKS: Array<[string[], number, number[]]> = [
  [['4'], 16, [4, 4, 4, 4]],
  [['51', '52', '53', '54', '55', '2221', '2720', '23', '26'], 16, [4, 4, 4, 4]],
  [['34', '37'], 15, [4, 6, 5]],
  [['6011', '65', '644'], 16, [4, 4, 4, 4]],
  [['3528', '3589'], 16, [4, 4, 4, 4]],
  [['36', '38'], 14, [4, 6, 4]],
  [['62'], 16, [4, 4, 4, 4]],
  [['4'], 19, [4, 4, 4, 4, 3]],
];

const card = fc.tuple(fc.constantFrom(...NETWORKS), fc.nat()).chain(([[prefixes, length, groups], pick]) => {
  const prefix = prefixes[pick % prefixes.length];
  return digits(length - prefix.length - 1).map((rest) => ({ compact: prefix + rest + luhnCheckDigit(prefix + rest), groups }));
});

const CARD_LABELS = ['card number: ', 'Card no. ', 'CC#', 'cc: ', 'Visa ', 'credit card ', 'card ', '', '', ''];

function presentCard(compact: string, groups: number[], separator: string, label: string): Piece {
  const text = `${label}${separator === '' ? compact : grouped(compact, groups, separator)}`;
  return { text, secrets: [compact, ...groupsOf(text.slice(label.length))] };
}

const cards: Kind = {
  name: 'card number',
  modes: ['input', 'output'],
  positives: fc.oneof(
    inPayload(
      fc
        .tuple(card, fc.constantFrom(' ', '-', '.', ''), fc.constantFrom(...CARD_LABELS))
        .map(([c, sep, label]) => presentCard(c.compact, c.groups, sep, label)),
    ),
    card
      .filter((c) => Number.isSafeInteger(Number(c.compact)))
      .chain((c) => underKey(fc.constantFrom('ref', 'n', 'value', 'number'), fc.constant(Number(c.compact)), () => [c.compact])),
  ),
  // The same shapes failing the network or the checksum: order ids, gift card codes.
  lookalikes: nested(
    fc
      // A 19-digit number whose first 16 digits are a card is cut there by design (a card
      // followed by a quantity), so the near misses keep to the other lengths.
      .tuple(
        card.filter((c) => c.compact.length < 19),
        fc.integer({ min: 1, max: 9 }),
        fc.boolean(),
        fc.constantFrom(' ', '-', '.', ''),
      )
      .map(([c, bump, breakPrefix, sep]) => {
        const last = String((Number(c.compact.at(-1)) + bump) % 10);
        // No network starts with 0, 1, 7, 8 or 9.
        const compact = breakPrefix ? '01789'[bump % 5] + c.compact.slice(1) : c.compact.slice(0, -1) + last;
        return sep === '' ? compact : grouped(compact, c.groups, sep);
      }),
  ),
};

const validArea = fc.integer({ min: 1, max: 899 }).filter((a) => a !== 666);
const ssn = fc
  .tuple(validArea, fc.integer({ min: 1, max: 99 }), fc.integer({ min: 1, max: 9999 }))
  .map(([a, g, s]) => [String(a).padStart(3, '0'), String(g).padStart(2, '0'), String(s).padStart(4, '0')]);

const SSN_LABELS = ['SSN', 'SSN#', 'SS#', 'Social Security Number', 'social security no.', 'Social Security #', 'social security'];

const ssns: Kind = {
  name: 'SSN',
  modes: ['input', 'output'],
  positives: fc.oneof(
    inPayload(ssn.map(([a, g, s]) => ({ text: `${a}-${g}-${s}`, secrets: [`${a}-${g}-${s}`, s] }))),
    inPayload(
      fc
        .tuple(
          fc.constantFrom(...SSN_LABELS).chain(labelCase),
          fc.constantFrom(': ', ' ', ' is ', ':', '=', ' # '),
          ssn,
          fc.constantFrom('-', ' ', '.', ''),
        )
        .map(([label, sep, [a, g, s], gap]) => ({
          text: `${label}${sep}${a}${gap}${g}${gap}${s}`,
          secrets: [`${a}${gap}${g}${gap}${s}`, `${g}${gap}${s}`],
        })),
    ),
    underKey(
      keyFrom(['ssn', 'social security number', 'customer ssn']),
      ssn.map((p) => p.join('-')),
      (v) => [v as string],
    ),
  ),
  lookalikes: nested(
    fc.oneof(
      fc
        .tuple(fc.constantFrom('000', '666', '900', '912', '987'), digits(2), digits(4))
        .map(([a, g, s]) => `${a}-${g === '00' ? '01' : g}-${s === '0000' ? '0001' : s}`),
      fc.tuple(digits(3), digits(4)).map(([a, s]) => `${a === '000' ? '123' : a}-00-${s}`),
      ssn.map(([a, g, s]) => `ref ${a}${g}${s}`),
      ssn.map(([a, g, s]) => `part ${a}-${g}-${s}-01`),
      fc.tuple(digits(5), digits(4)).map(([zip, plus]) => `ZIP ${zip}-${plus}`),
    ),
  ),
};

const ein = fc.tuple(digits(2), digits(7)).map(([a, b]) => `${a === '00' ? '12' : a}-${b}`);
const itin = fc.tuple(fc.integer({ min: 900, max: 999 }), fc.integer({ min: 70, max: 99 }), digits(4)).map(([a, g, s]) => `${a}-${g}-${s}`);
const TAX_LABELS = [
  'EIN',
  'FEIN',
  'TIN',
  'ITIN',
  'Tax ID',
  'tax id number',
  'Tax Identification Number',
  'Employer Identification Number',
  'Taxpayer ID',
  'tax id no.',
];

const taxIds: Kind = {
  name: 'tax id (EIN, TIN, ITIN)',
  modes: ['input', 'output'],
  positives: fc.oneof(
    inPayload(
      fc
        .tuple(fc.constantFrom(...TAX_LABELS).chain(labelCase), fc.constantFrom(': ', ' ', ' is ', ':', '=', ' #'), fc.oneof(ein, itin), fc.boolean())
        .map(([label, sep, id, compact]) => {
          const value = compact ? id.replace(/-/g, '') : id;
          return { text: `${label}${sep}${value}`, secrets: [value] };
        }),
    ),
    underKey(keyFrom(['tax id', 'ein', 'tin', 'tax number', 'vat number', 'taxpayer id', 'federal tax id', 'tax registration']), ein, (v) => [
      v as string,
    ]),
    ein.map((id) => ({ value: { tax: { registration: id, country: 'US' } }, secrets: [id] })),
  ),
  lookalikes: nested(
    fc.oneof(
      ein.map((id) => `part ${id}`),
      fc.integer({ min: 1, max: 99_999 }).map((cents) => `Tax: ${(cents / 100).toFixed(2)}`),
      fc.integer({ min: 1, max: 99_999 }).map((cents) => ({ tax_lines: [{ price: (cents / 100).toFixed(2), rate: 0.06, title: 'State Tax' }] })),
      digits(9).map((d) => `TINY ${d} units`),
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
  ['IT', 1, 23],
  ['BE', 0, 12],
  ['CH', 0, 17],
  ['AT', 0, 16],
  ['IE', 4, 18],
  ['PL', 0, 24],
  ['SE', 0, 20],
  ['NO', 0, 11],
  ['PT', 0, 21],
];

function mod97(text: string): number {
  let remainder = 0;
  for (const ch of text) {
    const value = ch >= 'A' ? ch.charCodeAt(0) - 55 : ch.charCodeAt(0) - 48;
    remainder = (remainder * (value > 9 ? 100 : 10) + value) % 97;
  }
  return remainder;
}

const iban = fc.constantFrom(...IBAN_FORMATS).chain(([country, letters, length]) =>
  fc
    .tuple(fc.array(fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'), { minLength: letters, maxLength: letters }), digits(length - letters))
    .map(([bank, rest]) => {
      const bban = bank.join('') + rest;
      const check = String(98 - mod97(`${bban}${country}00`)).padStart(2, '0');
      return `${country}${check}${bban}`;
    }),
);

const ibans: Kind = {
  name: 'IBAN',
  modes: ['input', 'output'],
  positives: fc.oneof(
    inPayload(
      fc
        .tuple(iban, fc.constantFrom(' ', '', '-'), fc.boolean(), fc.constantFrom('IBAN: ', 'IBAN ', 'iban ', 'account (IBAN): ', 'pay to ', ''))
        .map(([compact, sep, lower, label]) => {
          const cased = lower ? compact.toLowerCase() : compact;
          const shown = sep === '' ? cased : grouped(cased, Array(9).fill(4), sep);
          return { text: `${label}${shown}`, secrets: [cased, ...groupsOf(shown).slice(1)] };
        }),
    ),
    underKey(keyFrom(['iban', 'bank account iban', 'iban number']), iban, (v) => [v as string]),
  ),
  lookalikes: nested(
    fc.oneof(
      iban.map((compact) => compact.slice(0, -1) + String((Number(compact.at(-1)) + 1) % 10)),
      iban.map((compact) => `ZZ${compact.slice(2)}`),
      iban.map((compact) => `${compact}7`),
    ),
  ),
};

export const numberKinds: Kind[] = [cards, ssns, taxIds, ibans];
