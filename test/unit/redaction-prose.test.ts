import { REDACTED as R, redactInput, redactOutput } from '../../src/redaction/redact';

/**
 * Identifiers in prose: the label a few words before the value, as support notes, emails
 * and chat lines are written. The generated corpus (redaction-corpus.test.ts, "… in prose")
 * measures the same rules on many more sentences; these are the readable cases.
 */
type Fn = 'input' | 'output';
const run = (fn: Fn, value: unknown) => (fn === 'input' ? redactInput(value) : redactOutput(value));

/** [text, expected]: secrets, so redacted in inputs and outputs alike. */
const secrets: Array<[string, string]> = [
  ['SSN on file: 536 22 1234', `SSN on file: ${R}`],
  ['Called her back. SSN on file is 536221234, verified.', `Called her back. SSN on file is ${R}, verified.`],
  ['the social security number she gave us was 536.22.1234', `the social security number she gave us was ${R}`],
  ['SSN - 536 22 1234', `SSN - ${R}`],
  ['the passport number is X1234567', `the passport number is ${R}`],
  ['Passport we have on record: 123456789 (expires soon)', `Passport we have on record: ${R} (expires soon)`],
  ["driver's license on file D123-4567-8901", `driver's license on file ${R}`],
  ['driving licence number they sent is MORGA657054SM9IJ', `driving licence number they sent is ${R}`],
  ['tax id for the account is 12-3456789', `tax id for the account is ${R}`],
  ['EIN we have on file 123456789', `EIN we have on file ${R}`],
  ['ITIN provided by the customer: 912-78-1234', `ITIN provided by the customer: ${R}`],
  ['VAT: DE123456789', `VAT: ${R}`],
  ['VAT number for the billing address is FR12345678901', `VAT number for the billing address is ${R}`],
  ['VAT reg no GB 123 4567 89', `VAT reg no ${R}`],
  // Networks the unlabelled rule leaves out to spare ids: after a card label, Luhn is enough.
  ['card number on file is 2201 3820 0000 0013', `card number on file is ${R}`],
  ['Visa they used: 4222222222222', `Visa they used: ${R}`],
  // IBANs are found by their check digits with or without a label.
  ['IBAN we have is DE89 3704 0044 0532 0130 00', `IBAN we have is ${R}`],
];

/** [text, expected in outputs]: personal data, so only outputs lose it. */
const personal: Array<[string, string]> = [
  ['card ending in 4242', `card ending in ${R}`],
  ['Visa on file ends with 4242.', `Visa on file ends with ${R}.`],
  ['refund to the card last four: 4242', `refund to the card last four: ${R}`],
];

/** Numbers near a label word that are no identifier: kept in inputs and outputs. */
const kept: string[] = [
  'passport photo on file for order 12345678',
  'passport photo on file, 2 copies',
  'passport renewal fee for 2 adults is 130.00',
  'passport valid until 12/05/2031',
  'passport renewed 20261129',
  'national id scheme cost 1200000 EUR',
  'national id scheme budget 1200000 EUR',
  'passport on file 20261129',
  "driver's license class B since 2019",
  'SSN not on file for invoice 536221234',
  'SSN requested, order 536221234 shipped',
  'SSN on file 900 12 3456',
  'social security office visited 3 times this year',
  'tax id pending on ticket 123456789',
  'tax for the order is 12.50',
  'a tin of the best biscuits we have 123456789',
  'ein Paket mit der Nummer 123456789',
  'VAT of 20 % is included in the total',
  'prices include VAT, shipped to DE 10115',
  'gift card for order 2201382000000013',
  'card on file 2201 3820 0000 0014',
  'card reader serial 4222222222222',
  'the card ends in 12 days',
  'promo card ending on 2026-12-31',
  'card ending in 424242',
  'cc the team at 4222222222222',
  'IBAN we have is DE89 3704 0044 0532 0130 01',
];

describe('redaction of identifiers in prose', () => {
  test.each(secrets)('redacts in inputs and outputs: %s', (text, expected) => {
    expect(redactInput({ note: text })).toEqual({ note: expected });
    expect(redactOutput({ note: text })).toEqual({ note: expected });
  });

  test.each(personal)('redacts in outputs only: %s', (text, expected) => {
    expect(redactOutput({ note: text })).toEqual({ note: expected });
    expect(redactInput({ note: text })).toEqual({ note: text });
  });

  test.each(kept)('keeps: %s', (text) => {
    for (const fn of ['input', 'output'] as Fn[]) expect([fn, run(fn, { note: text })]).toEqual([fn, { note: text }]);
  });

  test('a phone-like number after an SSN label is no SSN (inputs keep phones)', () => {
    expect(redactInput('SSN not given, call back on 415 555 0134')).toBe('SSN not given, call back on 415 555 0134');
    expect(redactInput('SSN we have 415 555 0134')).toBe('SSN we have 415 555 0134');
  });

  test('the words between label and value are at most five, on one line', () => {
    expect(redactInput('SSN is the one on file: 536 22 1234')).toBe(`SSN is the one on file: ${R}`);
    expect(redactInput('SSN is the one we have on file: 536 22 1234')).toBe('SSN is the one we have on file: 536 22 1234');
    expect(redactInput('SSN on file\n536 22 1234')).toBe('SSN on file\n536 22 1234');
  });

  test('redacting twice equals redacting once', () => {
    for (const [text] of [...secrets, ...personal]) {
      for (const fn of ['input', 'output'] as Fn[]) {
        const once = run(fn, text);
        expect(run(fn, once)).toEqual(once);
      }
    }
  });

  // Catastrophic backtracking on 100 kB would take minutes: the test's timeout is the
  // bound (no wall-clock assertion, which a loaded machine would make flaky).
  test('long adversarial prose stays linear', () => {
    const size = 100_000;
    const nasty = [
      'SSN on file '.repeat(size / 12),
      'passport number is '.repeat(size / 19),
      'card ending in '.repeat(size / 15),
      'card on '.repeat(size / 8) + '1 '.repeat(size / 2),
      `tax id ${'a '.repeat(size / 2)}123456789`,
      'VAT DE '.repeat(size / 7),
      'passport X'.repeat(size / 10),
      'Visa 4 '.repeat(size / 7),
    ];
    for (const text of nasty) {
      expect(typeof redactInput(text)).toBe('string');
      expect(typeof redactOutput(text)).toBe('string');
    }
  }, 20_000);
});
