/**
 * Personal data recognised in free text, for tool outputs only: email addresses, phone
 * numbers, street lines and dates after a birth label. Ids, order and tracking numbers,
 * prices, dates and timestamps must survive, so every phone shape needs either a `+`,
 * separators in a national layout, or a label, and street lines need a house number and
 * a street suffix.
 */
import { REDACTED } from './markers';
import { redactCardEndings } from './prose-labels';

// The lookbehind starts a match only at the start of a run, which keeps long runs linear.
const EMAIL = /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}\b/g;
// Retina image names (logo@2x.png) have the shape of an address.
const FILE_NAME = /\.(?:png|jpe?g|gif|svg|webp|avif|bmp|ico|tiff?|pdf)$/i;

const LABELLED_PHONE =
  /(\b(?:phone|tel|telephone|mobile|mob|cell|fax|ph|call|whatsapp)\b|\u260e\ufe0f?|\u{1f4de})(\.?\s*(?:no\.?|number|#)?\s*[:#=]?\s*)(\+?\(?\d[\d ().-]{5,18}\d)(?!\w)/giu;

// Must start with "+": a bare run of digits is far more often an id than a phone.
const INTERNATIONAL_PHONE = /(?<![\w+])\+\(?[1-9][\d ().-]{6,20}\d(?!\d)/g;
const INTERNATIONAL_SHAPE = /^\+\(?\d{1,4}\)?(?:[ .-]?\(?\d{1,5}\)?){1,6}$/;

// (415) 555-2671, 415-555-2671, 415.555.2671, 1-415-555-2671. Area code and exchange
// never start with 0 or 1, which rules out many 3-3-4 ids.
const NANP_PHONE = /(?<![\w+-])(?:1[ .-]?)?(?:\(\d{3}\)[ .-]?|\d{3}[ .-])\d{3}[ .-]\d{4}(?!\w|[-.]\d)/g;

// 020 7946 0958, 07911 123456: trunk prefix 0, grouped.
// Not followed by another digit group: then it is part of a longer number.
const TRUNK_PHONE = /(?<![\w+-])0\d{2,4}[ -]\d{3,4}[ -]?\d{3,4}(?!\w|[-. ]\d)/g;

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

const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\\.?';
const DATE =
  `(?:\\d{4}[-/.]\\d{1,2}[-/.]\\d{1,2}|\\d{1,2}[-/.]\\d{1,2}[-/.](?:\\d{4}|\\d{2})|` +
  `${MONTH}\\s+\\d{1,2}(?:st|nd|rd|th)?,?\\s+\\d{4}|\\d{1,2}(?:st|nd|rd|th)?\\s+${MONTH},?\\s+\\d{4})`;
// A date is personal only after a birth label: order dates and timestamps stay.
const LABELLED_BIRTH_DATE = new RegExp(
  `(\\bDOB\\b|\\bD\\.O\\.B\\.?|\\bdate\\s+of\\s+birth|\\bbirth\\s*date|\\bbirthday|\\bborn(?:\\s+on)?)(\\s*(?:[:=-]|is)?\\s*)${DATE}(?!\\d)`,
  'gi',
);

const STREET_SUFFIX_WORDS =
  'Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|Terrace|Ter|' +
  'Circle|Cir|Parkway|Pkwy|Highway|Hwy|Square|Sq|Trail|Trl|Crescent|Close|Plaza|Alley|Mews|Grove';
const DIRECTION_WORDS = 'N|S|E|W|NE|NW|SE|SW|North|South|East|West';
const UNIT_WORDS = 'Apt|Apartment|Suite|Ste|Unit|Fl|Floor|Rm|Room';
// Title Case or UPPER CASE, never lower case: "3 items in the way" must not read as an address.
const both = (words: string) => `${words}|${words.toUpperCase()}`;
// A number followed by a unit of measure starts a product title ("2 TB Hard Drive").
const MEASURE = `${both('TB|GB|MB|Pack|Piece|Pc|Pcs|Oz|Lb|Lbs|Inch|In|Ft|Foot|Feet|Mm|Cm|Count|Ct|Port')}|oz|lb|lbs|mm|cm`;

const streetLineSource = (suffix: string, direction: string, unit: string) =>
  `(?<![\\w#./-])\\d{1,6}[A-Za-z]?(?:-\\d{1,4})?(?!\\s+(?:${MEASURE})\\b)(?:\\s+(?:${direction})\\.?)?` +
  `(?:\\s+[A-Z0-9][A-Za-z0-9'.-]*){1,4}?\\s+(?:${suffix})\\b\\.?(?:\\s+(?:${direction})\\b\\.?)?` +
  `(?:,?\\s*(?:${unit}|#)\\.?\\s*[A-Za-z0-9-]+)?`;

// Case-sensitive on purpose (see above). Only the street line goes; city, state and
// postal code after it are kept.
const STREET_LINE = new RegExp(streetLineSource(both(STREET_SUFFIX_WORDS), both(DIRECTION_WORDS), both(UNIT_WORDS)), 'g');
// After a label, a street line typed in any case is one.
const LABELLED_STREET_LINE = new RegExp(
  `\\b(address|addr|street|ship(?:ping)?\\s+to|deliver(?:y)?\\s+to)(\\s*[:-]?\\s*)${streetLineSource(STREET_SUFFIX_WORDS, DIRECTION_WORDS, UNIT_WORDS)}`,
  'gi',
);
const PO_BOX = /\b(?:P\.?\s?O\.?|Post\s+Office)\s*Box\s+\d+/gi;
// German style: street name first, house number after ("Hauptstraße 5", "Berliner Straße 12a").
const STRASSE =
  /(?<![\w])(?:[A-ZÄÖÜ][a-zäöüß]+[ -])?(?:[A-ZÄÖÜ][a-zäöüß]*(?:straße|strasse|str\.|weg|gasse|platz|allee)|Straße|Strasse|Weg|Gasse|Platz|Allee)\s+\d{1,4}\s?[a-zA-Z]?(?!\w)/g;

const UNLABELLED_STREET_PATTERNS = [STREET_LINE, PO_BOX, STRASSE];
const STREET_PATTERNS = [...UNLABELLED_STREET_PATTERNS, LABELLED_STREET_LINE];

export function redactStreetLines(text: string): string {
  const labelled = text.replace(LABELLED_STREET_LINE, (_m, label, sep) => label + sep + REDACTED);
  return UNLABELLED_STREET_PATTERNS.reduce((current, pattern) => current.replace(pattern, REDACTED), labelled);
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
  let out = text.includes('@') ? text.replace(EMAIL, (m) => (FILE_NAME.test(m) ? m : REDACTED)) : text;
  // Every other detector needs a digit; most strings of a result (names, statuses) have none.
  if (!/\d/.test(out)) return out;
  out = redactCardEndings(out);
  out = out.replace(LABELLED_BIRTH_DATE, (_m, label, sep) => label + sep + REDACTED);
  out = out.replace(LABELLED_PHONE, (m, label, sep, number) => (digitCount(number) >= 7 && digitCount(number) <= 15 ? label + sep + REDACTED : m));
  out = out.replace(INTERNATIONAL_PHONE, (m) => (isInternationalPhone(m) ? REDACTED : m));
  out = out.replace(NANP_PHONE, (m) => (isNanpPhone(m) ? REDACTED : m));
  out = out.replace(TRUNK_PHONE, (m) => {
    const digits = digitCount(m);
    return digits >= 10 && digits <= 11 ? REDACTED : m;
  });
  return redactStreetLines(out);
}
