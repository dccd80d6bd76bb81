/**
 * Personal data recognised in free text, for tool outputs only: email addresses, phone
 * numbers and street lines. Ids, order and tracking numbers, prices, dates and
 * timestamps must survive, so every phone shape needs either a `+`, separators in a
 * national layout, or a label, and street lines need a house number and a street suffix.
 */
import { REDACTED } from './markers';

// The lookbehind starts a match only at the start of a run, which keeps long runs linear.
const EMAIL = /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}\b/g;

const LABELLED_PHONE = /\b(phone|tel|telephone|mobile|cell|fax)(\.?\s*(?:[:#=]|no\.?|number)?\s*)(\+?\(?\d[\d ().-]{5,18}\d)(?!\w)/gi;

// Must start with "+": a bare run of digits is far more often an id than a phone.
const INTERNATIONAL_PHONE = /(?<![\w+])\+\(?[1-9][\d ().-]{6,20}\d(?!\d)/g;
const INTERNATIONAL_SHAPE = /^\+\(?\d{1,4}\)?(?:[ .-]?\(?\d{1,5}\)?){1,6}$/;

// (415) 555-2671, 415-555-2671, 415.555.2671, 1-415-555-2671. Area code and exchange
// never start with 0 or 1, which rules out many 3-3-4 ids.
const NANP_PHONE = /(?<![\w+-])(?:1[ .-]?)?(?:\(\d{3}\)[ .-]?|\d{3}[ .-])\d{3}[ .-]\d{4}(?!\w|[-.]\d)/g;

// 020 7946 0958, 07911 123456: trunk prefix 0, grouped.
const TRUNK_PHONE = /(?<![\w+-])0\d{2,4}[ -]\d{3,4}[ -]?\d{3,4}(?!\w|[-.]\d)/g;

const digitCount = (text: string) => text.replace(/\D/g, '').length;

function isInternationalPhone(candidate: string): boolean {
  const digits = digitCount(candidate);
  return (
    digits >= 8 &&
    digits <= 15 &&
    INTERNATIONAL_SHAPE.test(candidate) &&
    // "+1234567.89" is a signed amount.
    !/^\+\d+\.\d{1,2}$/.test(candidate)
  );
}

function isNanpPhone(candidate: string): boolean {
  const digits = candidate.replace(/\D/g, '').replace(/^1(?=\d{10}$)/, '');
  return digits.length === 10 && /^[2-9]\d\d[2-9]/.test(digits);
}

const STREET_SUFFIX =
  'Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|Terrace|Ter|' +
  'Circle|Cir|Parkway|Pkwy|Highway|Hwy|Square|Sq|Trail|Trl|Crescent|Close|Plaza|Alley|Mews|Grove';
const DIRECTION = '(?:N|S|E|W|NE|NW|SE|SW|North|South|East|West)';

// Case-sensitive on purpose: "3 items in the way" must not read as an address. Only the
// street line goes; city, state and postal code after it are kept.
const STREET_LINE = new RegExp(
  `(?<![\\w#./-])\\d{1,6}[A-Za-z]?(?:-\\d{1,4})?(?:\\s+${DIRECTION}\\.?)?` +
    `(?:\\s+[A-Z0-9][A-Za-z0-9'.-]*){1,4}?\\s+(?:${STREET_SUFFIX})\\b\\.?(?:\\s+${DIRECTION}\\b\\.?)?` +
    `(?:,?\\s*(?:Apt|Apartment|Suite|Ste|Unit|Fl|Floor|Rm|Room|#)\\.?\\s*[A-Za-z0-9-]+)?`,
  'g',
);
const PO_BOX = /\b(?:P\.?\s?O\.?|Post\s+Office)\s*Box\s+\d+/gi;
// German style: street name first, house number after ("Hauptstraße 5", "Berliner Straße 12a").
const STRASSE =
  /(?<![\w])(?:[A-ZÄÖÜ][a-zäöüß]+[ -])?(?:[A-ZÄÖÜ][a-zäöüß]*(?:straße|strasse|str\.|weg|gasse|platz|allee)|Straße|Strasse|Weg|Gasse|Platz|Allee)\s+\d{1,4}\s?[a-zA-Z]?(?!\w)/g;

const STREET_PATTERNS = [STREET_LINE, PO_BOX, STRASSE];

export function redactStreetLines(text: string): string {
  return STREET_PATTERNS.reduce((current, pattern) => current.replace(pattern, REDACTED), text);
}

export function hasStreetLine(text: string): boolean {
  return STREET_PATTERNS.some((pattern) => {
    pattern.lastIndex = 0;
    const found = pattern.test(text);
    pattern.lastIndex = 0;
    return found;
  });
}

export function redactPiiInText(text: string): string {
  let out = text.replace(EMAIL, REDACTED);
  out = out.replace(LABELLED_PHONE, (m, label, sep, number) => (digitCount(number) >= 7 && digitCount(number) <= 15 ? label + sep + REDACTED : m));
  out = out.replace(INTERNATIONAL_PHONE, (m) => (isInternationalPhone(m) ? REDACTED : m));
  out = out.replace(NANP_PHONE, (m) => (isNanpPhone(m) ? REDACTED : m));
  out = out.replace(TRUNK_PHONE, (m) => {
    const digits = digitCount(m);
    return digits >= 10 && digits <= 11 ? REDACTED : m;
  });
  return redactStreetLines(out);
}
