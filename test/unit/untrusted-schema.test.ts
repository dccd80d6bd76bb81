import { untrustedSchemaAjv } from '../../src/vendors/input-schema';

/**
 * Upstream input schemas are compiled with RE2: a catastrophic-backtracking pattern is
 * matched in linear time (Ajv's default RegExp takes seconds at 32 characters and minutes at
 * 40: `npm run bench:patterns`), and still means what it says.
 */
const schema = {
  type: 'object',
  properties: { city: { type: 'string', pattern: '^(a+)+$' } },
  patternProperties: { '^(x+x+)+y$': { type: 'number' } },
};

test.each([32, 40, 1000, 100_000])('a hostile %i-character input is refused in linear time', (length) => {
  const validate = untrustedSchemaAjv().compile(schema);
  const begun = performance.now();
  expect(validate({ city: `${'a'.repeat(length)}!`, [`${'x'.repeat(length)}`]: 'not a number' })).toBe(false);
  // Linear: a few milliseconds even for 100 000 characters; the backtracking engine would not end.
  expect(performance.now() - begun).toBeLessThan(1000);
});

test('the patterns still match as JSON Schema says', () => {
  const validate = untrustedSchemaAjv().compile(schema);
  expect(validate({ city: 'aaa', xxy: 1 })).toBe(true);
  expect(validate({ city: 'aab' })).toBe(false);
  expect(validate({ city: 'aaa', xxy: 'one' })).toBe(false);
});

test('a pattern RE2 cannot run (a backreference, a lookahead) does not compile', () => {
  expect(() => untrustedSchemaAjv().compile({ type: 'string', pattern: '(a)\\1' })).toThrow(/invalid/i);
  expect(() => untrustedSchemaAjv().compile({ type: 'string', pattern: '(?=a)a' })).toThrow(/invalid/i);
});
