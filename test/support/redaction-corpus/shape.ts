/**
 * The variation every kind of the redaction corpus goes through: surrounding prose,
 * punctuation, case, labels, key spellings and nesting in objects and arrays.
 */
import fc from 'fast-check';

/** A generated value and the parts of it that must not survive redaction. */
export interface Positive {
  value: unknown;
  secrets: string[];
}

/** A piece of text holding a secret, before it is placed in a value. */
export interface Piece {
  text: string;
  secrets: string[];
}

/** Digit-free filler that names nothing redactable (no label words such as token, phone, pin). */
const WORDS = (
  'please check the order before shipping customer asked about refund thanks note update from support team see ' +
  'below details today urgent kindly confirm this was sent with our records and keep it safe for later review ' +
  'hello regards delivery status invoice attached reply when you can we have it here is'
).split(' ');

const filler = fc.array(fc.constantFrom(...WORDS), { maxLength: 6 }).map((words) => words.join(' '));

/** How a fragment sits in a sentence: bare, quoted, in brackets, before punctuation. */
const WRAPS: Array<(text: string) => string> = [
  (t) => t,
  (t) => `${t}.`,
  (t) => `${t},`,
  (t) => `(${t})`,
  (t) => `"${t}"`,
  (t) => `'${t}'`,
  (t) => `[${t}]`,
  (t) => `${t};`,
  (t) => `${t}!`,
];
const GAPS = [' ', ' ', ' ', '\n', '\t', ' - ', ': '];

export function inProse(piece: fc.Arbitrary<Piece>): fc.Arbitrary<Piece> {
  return fc
    .tuple(filler, fc.constantFrom(...GAPS), piece, fc.constantFrom(...WRAPS), fc.constantFrom(...GAPS), filler)
    .map(([before, gap1, p, wrap, gap2, after]) => ({
      text: `${before}${before ? gap1 : ''}${wrap(p.text)}${after ? gap2 : ''}${after}`,
      secrets: p.secrets,
    }));
}

/** Keys that say nothing about their value, so only the value's shape can give it away. */
const INNOCENT_KEYS = ['note', 'comment', 'message', 'text', 'body', 'description', 'memo', 'content', 'remark', 'summary', 'value', 'data'];

type Wrapper = (inner: unknown) => unknown;

const wrapper: fc.Arbitrary<Wrapper> = fc.oneof(
  fc.constantFrom(...INNOCENT_KEYS).map(
    (key): Wrapper =>
      (inner) => ({ [key]: inner }),
  ),
  fc.constant<Wrapper>((inner) => [inner]),
  fc.constantFrom(...INNOCENT_KEYS).map(
    (key): Wrapper =>
      (inner) => ({ id: 'rec_a', status: 'open', [key]: inner }),
  ),
  fc.constant<Wrapper>((inner) => ['first', inner, 'last']),
  fc.constant<Wrapper>((inner) => ({ items: [{ kind: 'line', detail: inner }] })),
);

/** The value alone, or nested 1–4 levels deep in objects and arrays. */
export function nested<T>(value: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.tuple(value, fc.array(wrapper, { maxLength: 4 })).map(([inner, wrappers]) => wrappers.reduce<unknown>((acc, wrap) => wrap(acc), inner));
}

/** A text piece placed in free text, then nested: a string somewhere in a payload. */
export function inPayload(piece: fc.Arbitrary<Piece>): fc.Arbitrary<Positive> {
  const text = fc.oneof({ arbitrary: piece, weight: 1 }, { arbitrary: inProse(piece), weight: 3 });
  return fc.tuple(text, fc.array(wrapper, { maxLength: 4 })).map(([p, wrappers]) => ({
    value: wrappers.reduce<unknown>((acc, wrap) => wrap(acc), p.text),
    secrets: p.secrets,
  }));
}

/** `{ [key]: value }` with sibling fields, nested: the field-name rules. */
export function underKey(key: fc.Arbitrary<string>, value: fc.Arbitrary<unknown>, secrets: (value: unknown) => string[]): fc.Arbitrary<Positive> {
  return fc.tuple(key, value, fc.array(wrapper, { maxLength: 3 })).map(([k, v, wrappers]) => ({
    value: wrappers.reduce<unknown>((acc, wrap) => wrap(acc), { id: 'rec_b', [k]: v, status: 'active' }),
    secrets: secrets(v),
  }));
}

/** One name in the spellings APIs use: snake_case, camelCase, PascalCase, kebab-case, UPPER_SNAKE, Train-Case. */
export function keySpelling(words: string[]): fc.Arbitrary<string> {
  const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
  return fc.constantFrom(
    words.join('_'),
    words.map((w, i) => (i === 0 ? w : cap(w))).join(''),
    words.map(cap).join(''),
    words.join('-'),
    words.join('_').toUpperCase(),
    words.map(cap).join('-'),
  );
}

/** Any of the names, in any spelling. */
export function keyFrom(names: string[]): fc.Arbitrary<string> {
  return fc.constantFrom(...names).chain((name) => keySpelling(name.split(' ')));
}

/** Label case as people type it: lower, Capitalised, UPPER, as written. */
export function labelCase(label: string): fc.Arbitrary<string> {
  return fc.constantFrom(label, label.toLowerCase(), label.toUpperCase(), label.charAt(0).toUpperCase() + label.slice(1).toLowerCase());
}

export const digits = (min: number, max = min): fc.Arbitrary<string> =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((d) => d.join(''));

export const chars = (alphabet: string, min: number, max = min): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...alphabet), { minLength: min, maxLength: max }).map((c) => c.join(''));

export const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const HEX = '0123456789abcdef';

/** Groups of `sizes` joined by one separator. */
export function grouped(text: string, sizes: number[], separator: string): string {
  const parts: string[] = [];
  let at = 0;
  for (const size of sizes) {
    if (at >= text.length) break;
    parts.push(text.slice(at, at + size));
    at += size;
  }
  if (at < text.length) parts.push(text.slice(at));
  return parts.join(separator);
}

/** The separator-free groups of at least four characters: none of them may survive. */
export function groupsOf(text: string): string[] {
  return text.split(/[\s.\-()/]+/).filter((g) => g.length >= 4);
}
