/**
 * Short secrets that only a label or a field name gives away: card security codes, PINs
 * and one-time codes; passport, driving licence and national id numbers.
 */
import fc from 'fast-check';
import { chars, digits, inPayload, keyFrom, labelCase, nested, underKey } from './shape';
import type { Kind } from './types';

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const code = fc.oneof(digits(3, 4), digits(4, 6), digits(6, 8));

const codes: Kind = {
  name: 'security code / PIN / one-time code',
  modes: ['input', 'output'],
  positives: fc.oneof(
    underKey(
      keyFrom(['cvv', 'cvc', 'pin', 'security code', 'otp', 'verification code', 'mfa code', 'card cvv', 'cvv2']),
      fc.oneof(
        code,
        code.map((c) => Number(`1${c}`)),
      ),
      (v) => [String(v)],
    ),
    inPayload(
      fc
        .tuple(
          fc.constantFrom('CVV', 'cvv2', 'CVC', 'PIN', 'security code', 'OTP', 'one-time code', 'verification code', '2FA code').chain(labelCase),
          fc.constantFrom(': ', ' ', ' is ', '=', ' #', ':'),
          code,
        )
        .map(([label, sep, value]) => ({ text: `${label}${sep}${value}`, secrets: [value] })),
    ),
  ),
  lookalikes: nested(
    fc.oneof(
      fc.constantFrom('pinned on 2026-11-29', 'PIN code required at pickup', 'security code expired, ask again', 'OTP sent at 10:30', 'pin 12 of 40'),
      digits(4, 8).map((d) => `your order code ${d} ships today`),
      digits(4, 8).map((d) => `Spin ${d} times`),
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

const documents: Kind = {
  name: 'passport / licence / national id',
  modes: ['input', 'output'],
  positives: fc.oneof(
    underKey(
      keyFrom(['passport', 'passport number', 'drivers license', 'driver license number', 'national id', 'national id number']),
      fc.oneof(passport, licence),
      (v) => [v as string],
    ),
    inPayload(
      fc
        .tuple(
          fc
            .constantFrom(
              'Passport',
              'passport no.',
              'Passport number',
              "Driver's license",
              'drivers license #',
              'Driving licence',
              'National ID',
              'ID card',
            )
            .chain(labelCase),
          fc.constantFrom(': ', ' ', ' is ', '=', ':'),
          fc.oneof(passport, licence),
        )
        .map(([label, sep, value]) => ({ text: `${label}${sep}${value}`, secrets: [value] })),
    ),
  ),
  lookalikes: nested(
    fc.constantFrom(
      'passport photo required',
      'passport required for 3 guests',
      "driver's license must be valid on 2026-12-01",
      'ID card reader restocked',
      'national id scheme launched in 2026',
    ),
  ),
};

export const codeKinds: Kind[] = [codes, documents];
