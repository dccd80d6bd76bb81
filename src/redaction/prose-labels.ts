/**
 * Identifiers whose label stands a few words before the value, as people write in notes,
 * emails and chat lines: "SSN on file: 536 22 1234", "the passport number we have is
 * X1234567", "tax id for the account is 12-3456789", "Visa on file ending in 4242".
 *
 * Up to five words may stand between label and value. Those words are letters only, on
 * one line, and none may name another kind of number (order, ticket, phone, fee, expires,
 * since, …) or repeat the kind's own label, so "passport photo on file for order 12345678"
 * keeps its order number. Each value needs its kind's shape, and its checksum or range
 * rule where there is one; a value after a label with no words between is the same rule
 * with an empty gap.
 *
 * Linear time: the gap is at most five blank-separated words whose characters are
 * disjoint from the blanks around them, and every value pattern is bounded, so each label
 * occurrence is tried a bounded number of ways.
 */
import { REDACTED } from './markers';
import { luhnValid, isValidSsn } from './validators';

const STOP_WORDS =
  'orders?|invoices?|tickets?|cases?|tracking|shipments?|parcels?|packages?|phones?|tel|telephone|mobile|cell|fax|call|text|sms|whatsapp|' +
  'ref|reference|po|sku|items?|qty|quantity|units?|room|flight|booking|confirmation|reservation|zip|postal|postcode|serial|model|version|' +
  'ext|extension|page|line|batch|lot|costs?|price|fees?|total|amount|paid|charged|refund(?:ed)?|balance|payment|transaction|receipt|' +
  'expires|expired|expiry|expiration|issued|renewed|renewal|dated|date|since|until|valid|born|dob|birth|years?|months?|days?|weeks?';

/** The words between a label and its value, then the separator before the value. */
function gapThenSeparator(ownLabels: string): string {
  const word = `(?:no\\.|(?!(?:${STOP_WORDS}|${ownLabels})(?![A-Za-z]))[A-Za-z][A-Za-z'’]*)`;
  return `((?:[ \\t]+${word}){0,5}?(?:[ \\t]*[:#=][ \\t]*|[ \\t]+[-–—][ \\t]+|[ \\t]+))`;
}

/** A digit, letter or the continuation of a number right after the value: then it is part of something longer. */
const END = '(?![\\w-]|[.,/]\\d)';

const SSN_LABEL = 'SSN#?|SS#|social[ \\t]+security(?:[ \\t]+(?:number|no\\.?|#))?';
const PROSE_SSN = new RegExp(`(?<![\\w-])(${SSN_LABEL})${gapThenSeparator('ssn|ss|social')}(\\d{3})([ .-]?)(\\d{2})\\4(\\d{4})${END}`, 'gi');

// The short tax labels are ordinary words in lower case ("a tin of biscuits", German "ein").
const SHORT_TAX_LABEL = /^(?:F?EIN|I?TIN)$/;
const TAX_LABEL =
  'F?EIN|I?TIN|tax[ \\t]*(?:payer[ \\t]*)?(?:id|identification)(?:[ \\t]+(?:number|no\\.?|#))?|employer[ \\t]+identification[ \\t]+number';
const PROSE_TAX_ID = new RegExp(`(?<![\\w-])(${TAX_LABEL})${gapThenSeparator('f?ein|i?tin')}(\\d{2}-\\d{7}|\\d{3}-\\d{2}-\\d{4}|\\d{9})${END}`, 'gi');

// EU member states (EL is Greece), Northern Ireland (XI) and the United Kingdom.
const VAT_COUNTRY = 'AT|BE|BG|CY|CZ|DE|DK|EE|EL|ES|FI|FR|HR|HU|IE|IT|LT|LU|LV|MT|NL|PL|PT|RO|SE|SI|SK|XI|GB';
const VAT_LABEL = 'VAT(?:[ \\t]+(?:number|no\\.?|id|reg(?:istration)?(?:[ \\t]+(?:number|no\\.?))?))?';
const PROSE_VAT = new RegExp(
  `(?<![\\w-])(${VAT_LABEL})${gapThenSeparator('vat')}((?:${VAT_COUNTRY})(?:[ ]?(?:\\d{9}B\\d{2}|[A-Z]?\\d{7,12}[A-Z]?)|[ ]\\d{3}[ ]\\d{4}[ ]\\d{2}))${END}`,
  'gi',
);

const NUMBER_WORD = '(?:[ \\t]+(?:number|no\\.?|#))?';
const DOCUMENT_LABEL = `(?:passport|driver'?s?[ \\t]+licen[cs]e|driving[ \\t]+licen[cs]e|national[ \\t]+id|id[ \\t]+card)${NUMBER_WORD}`;
// Passport and licence layouts: letters then digits (X1234567, UK's MORGA657054SM9IJ), nine
// digits (US passport), dashed (D123-4567-8901). Not an amount or a count ("… 1200000 EUR").
const DOCUMENT_VALUE = '[A-Za-z]{1,5}\\d{5,9}[A-Za-z0-9]{0,5}|\\d{6,9}|[A-Za-z]\\d{3}-\\d{3,4}-\\d{3,4}(?:-\\d{1,3})?';
const NOT_A_QUANTITY = '(?![ \\t]*(?:%|[$€£]|(?:EUR|USD|GBP|units?|items?|pcs|times|people|guests)(?![A-Za-z])))';
const PROSE_DOCUMENT = new RegExp(
  `(?<![\\w-])(${DOCUMENT_LABEL})${gapThenSeparator('passport|licen[cs]e|national')}(${DOCUMENT_VALUE})${END}${NOT_A_QUANTITY}`,
  'gi',
);

/** 20261129: a date written without separators is no document number. */
function isCompactDate(value: string): boolean {
  const m = /^(19|20)\d\d(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])$/.exec(value);
  return m !== null;
}

const CARD_NAME =
  'credit[ \\t]+card|debit[ \\t]+card|card|cc|visa|master[ \\t]?card|amex|american[ \\t]+express|discover|maestro|mir|rupay|verve|unionpay|jcb|diners';
const CARD_LABEL = `(?:${CARD_NAME})${NUMBER_WORD}`;
// After a card label any network counts (Mir, RuPay, Verve, UATP, 13-digit Visa): the label
// stands in for the issuer prefix the unlabelled rule needs; Luhn still has to hold.
const PROSE_CARD = new RegExp(`(?<![\\w-])(${CARD_LABEL})${gapThenSeparator('card|cc|visa|mastercard')}(\\d(?:[ .-]?\\d){12,18})${END}`, 'gi');

// "cc" (an email's copy line) and "mir" count only in capitals.
const SHORT_CARD_NAME = /^(?:cc|mir)$/i;
const isLowerShortCardName = (label: string) => {
  const name = label.split(/[ \t]/)[0];
  return SHORT_CARD_NAME.test(name) && name !== name.toUpperCase();
};

function isLabelledCard(candidate: string): boolean {
  const separators = new Set(candidate.match(/[ .-]/g) ?? []);
  const digits = candidate.replace(/[ .-]/g, '');
  return separators.size <= 1 && digits.length >= 13 && digits.length <= 19 && luhnValid(digits);
}

// One cheap scan first: most strings hold no label, and then the five detectors are skipped.
// It must match where any label above begins (the prose kinds of the corpus fail otherwise).
const ANY_LABEL =
  /\b(?:ssn|ss#|social|f?ein|i?tin|tax|employer|vat|passport|driv|national|id[ \t]+card|credit|debit|card|cc|visa|master|amex|american|discover|maestro|mir|rupay|verve|unionpay|jcb|diners)/i;

/** Secrets after a label a few words back: SSNs, tax ids (EIN, ITIN, VAT), passport and licence numbers, cards. */
export function redactLabelledInProse(text: string): string {
  if (!/\d/.test(text) || !ANY_LABEL.test(text)) return text;
  let out = text;
  out = out.replace(PROSE_SSN, (m, label, gap, a, _sep, g, s) => (isValidSsn(a, g, s) ? label + gap + REDACTED : m));
  out = out.replace(PROSE_TAX_ID, (m, label: string, gap) => (label.length <= 4 && !SHORT_TAX_LABEL.test(label) ? m : label + gap + REDACTED));
  // "vat" alone is a barrel; "vat no." is a label in any case.
  out = out.replace(PROSE_VAT, (m, label: string, gap) => (label === 'vat' || label === 'Vat' ? m : label + gap + REDACTED));
  out = out.replace(PROSE_DOCUMENT, (m, label, gap, value: string) => (isCompactDate(value) ? m : label + gap + REDACTED));
  out = out.replace(PROSE_CARD, (m, label: string, gap, value: string) =>
    isLowerShortCardName(label) ? m : isLabelledCard(value) ? label + gap + REDACTED : m,
  );
  return out;
}

// "card ending in 4242", "Visa on file ends with 4242", "card last four: 4242": the last
// four digits, which outputs lose like a `last4` field.
const CARD_ENDING = new RegExp(
  `(?<![\\w-])(${CARD_NAME})((?:[ \\t]+(?!(?:${STOP_WORDS}|ending|ends|last)(?![A-Za-z]))[A-Za-z][A-Za-z'’]*){0,3}?` +
    `[ \\t]+(?:(?:ending|ends)(?:[ \\t]+(?:in|with))?|last[ \\t]+(?:four|4)(?:[ \\t]+digits)?)(?:[ \\t]*[:=#][ \\t]*|[ \\t]+(?:(?:is|are)[ \\t]+)?))` +
    `\\d{4}${END}`,
  'gi',
);

const CARD_ENDING_WORD = /\b(?:end|last)/i;

/** The last four digits of a card after "ending in" and the like: personal data, outputs only. */
export function redactCardEndings(text: string): string {
  if (!CARD_ENDING_WORD.test(text)) return text;
  return text.replace(CARD_ENDING, (_m, label, words) => label + words + REDACTED);
}
