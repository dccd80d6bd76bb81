/**
 * Secrets recognised by the shape of a value, wherever they appear: a whole string or a
 * substring of free text. Only the matching part is replaced; the rest of the text stays.
 *
 * Invariant relied on for idempotence: no detector matches inside `[REDACTED]` or
 * `[TRUNCATED]`, so redacting a redacted value changes nothing.
 */
import { REDACTED } from './markers';
import { redactLabelledInProse } from './prose-labels';
import { ibanLength, isBasicCredential, isCardNumber, isValidIban, isValidSsn } from './validators';

export interface TextScope {
  /** The string sits under a key about taxes, where a bare `NN-NNNNNNN` is an EIN. */
  taxScope: boolean;
}

type Detector = (text: string, scope: TextScope) => string;

function replaceWhere(pattern: RegExp, accept: (match: string, groups: string[]) => boolean): Detector {
  return (text) => text.replace(pattern, (match, ...rest) => (accept(match, rest as string[]) ? REDACTED : match));
}

const always = () => true;

// An unterminated block (a truncated log line) is redacted to the end of the text: the
// remainder is key material.
const PEM_PRIVATE_KEY = /-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g;

// The whole userinfo goes: the user part is often the token itself (x-access-token:…).
const URL_USERINFO = /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@"'<>]+)@/gi;

const JWT = /(?<![\w-])eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*/g;

const PROVIDER_TOKENS: Array<[RegExp, (match: string) => boolean]> = [
  [/(?<![\w-])shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}(?![\w-])/g, always], // Shopify
  [/(?<!\w)(?:sk|rk)_(?:live|test)_[0-9a-zA-Z]{10,}/g, always], // Stripe secret / restricted
  [/(?<!\w)whsec_[0-9a-zA-Z+/=]{20,}/g, always], // Stripe webhook signing secret
  [/(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}(?![A-Za-z0-9])/g, always], // AWS key id
  [/(?<!\w)(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{20,})/g, always], // GitHub
  [/(?<![\w-])xox[abposr]-[A-Za-z0-9-]{10,}/g, always], // Slack
  [/(?<![\w-])AIza[0-9A-Za-z_-]{35}(?![\w-])/g, always], // Google
  [/(?<![\w-])Atz[ar]\|[A-Za-z0-9\-_+/=.%|]{20,}/g, always], // Amazon LWA refresh / access
  // Anthropic (sk-ant-) and OpenAI (sk-, sk-proj-, …). A digit is required so that a long
  // hyphenated slug starting with "sk-" is not taken for a key.
  [/(?<![\w-])sk-[A-Za-z0-9_-]{20,}/g, (m) => /\d/.test(m) && /[A-Za-z]/.test(m.slice(3))],
];

const SLACK_WEBHOOK = /(hooks\.slack\.com\/(?:services|workflows|triggers)\/)[A-Za-z0-9/_-]+/g;

// A trailing sentence dot is not part of the token ("bearer of the note." stays). `Token`
// is the same scheme in Django REST framework and GitHub ("Authorization: Token …").
const BEARER = /\b(Bearer|Token)(\s+)([A-Za-z0-9\-_~+/]+(?:\.[A-Za-z0-9\-_~+/]+)*=*)/gi;
const BASIC = /\b(Basic)(\s+)([A-Za-z0-9+/]{4,}={0,2})(?![A-Za-z0-9+/=])/gi;

/** English words after "Bearer" have no digits or token punctuation and are short. */
function looksLikeToken(value: string): boolean {
  return value.length >= 8 && (/[\d\-_~+/.=]/.test(value) || value.length >= 20);
}

/**
 * `password=…`, `"api_key": "…"`, `access_token=…` inside free text, URLs and embedded
 * JSON: the field-name rule applied to text. Two-word labels may be written with a space
 * ("API key: …", "session id: …"). A value starting with `[` is left alone so
 * `[REDACTED]` is never re-wrapped.
 */
const SECRET_LABEL =
  '(?:password|passwd|pwd|passphrase|pass|secret|(?:api|private|secret|signing|encryption|client|app)[_ -]?key|apikey|' +
  '(?:access|refresh|id|auth|session|security|bearer)[_ -]?token|token|session[_ -]?id|sig|signature|cvv2?|cvc2?|pin)';
const LABELLED_SECRET = new RegExp(
  `(?<![\\w-])((?:[A-Za-z0-9]+[_-])*${SECRET_LABEL})(["']?\\s*[:=]\\s*["']?)([^\\s"'&,;<>{}\\[\\]][^\\s"'&,;<>{}\\]]*)`,
  'gi',
);

// Labelled numbers are redacted without the dashes a bare SSN needs. Tax labels accept
// ITINs (9xx), which the SSN range rule would reject.
const LABELLED_SSN =
  /\b(SSN#?|SS#|social\s+security(?:\s+(?:number|no\.?|#))?)(\s*(?:#\s*:?|[:=]|is)?\s*)(\d{3})([- .]?)(\d{2})\4(\d{4})(?!\w|[-.]\d)/gi;
const LABELLED_TAX_ID =
  /\b(F?EIN|I?TIN|tax\s*(?:payer\s*)?(?:id|identification)(?:\s*(?:number|no\.?|#))?|employer\s+identification\s+number)(\s*(?:[:#=]|is)?\s*)(\d{2}-\d{7}|\d{3}-\d{2}-\d{4}|\d{9})(?!\w|-\d)/gi;
// Card security codes, PINs and one-time codes are short digit runs: only after their label.
const LABELLED_CODE =
  /\b(cvv2?|cvc2?|csc|pin|security\s+code|otp|one[-\s]time\s+(?:pass)?code|verification\s+code|(?:2fa|mfa)\s+code)(\s*#?\s*(?:[:=]|is)?\s*)\d{3,8}(?!\w|[.,]\d)/gi;
// Passport, driving licence and national id numbers after their label; the value needs a
// digit, so "passport required" stays.
const LABELLED_ID_DOCUMENT =
  /\b(passport|driver'?s?\s+licen[cs]e|driving\s+licen[cs]e|national\s+id|id\s+card)((?:\s+(?:number|no\.?))?\s*#?\s*(?:[:=]|is)?\s*)([A-Za-z0-9][A-Za-z0-9-]{4,14})(?![\w-])/gi;
const DASHED_SSN = /(?<![\w-])(\d{3})-(\d{2})-(\d{4})(?!\w|-\d)/g;
const DASHED_EIN = /(?<![\w-])\d{2}-\d{7}(?!\w|-\d)/g;

// Not started inside a run of digit groups (the second group of a grouped tracking number).
const CARD_CANDIDATE = /(?<![\w/.+-])(?<!\d[ .-])\d(?:[ .-]?\d){12,18}(?!\w|[-./]\d)/g;
// `#` before a number marks an order or ticket number, unless a card label precedes it (CC#).
const CARD_HASH_LABEL = /(?:\bcc|card|credit|debit)\s*(?:no\.?|number)?\s*#$/i;
const CARD_GROUPINGS = [/^4-4-4-4(?:-[1-3])?$/, /^4-6-[45]$/];

/**
 * Length of the longest leading run of groups that is a card, or 0. A card followed by
 * more digits ("4111 1111 1111 1111 12 units") still has its card part found.
 */
function cardPrefixLength(candidate: string): number {
  const separators = new Set(candidate.match(/[ .-]/g) ?? []);
  if (separators.size > 1) return 0;
  const groups = candidate.split(/[ .-]/);
  for (let count = groups.length; count >= 1; count--) {
    const head = groups.slice(0, count);
    const digits = head.join('');
    const shape = head.map((g) => g.length).join('-');
    const grouped = count === 1 || CARD_GROUPINGS.some((g) => g.test(shape));
    if (grouped && isCardNumber(digits)) return head.join(candidate[groups[0].length] ?? '').length;
  }
  return 0;
}

function redactCards(text: string): string {
  return text.replace(CARD_CANDIDATE, (match, offset: number) => {
    if (text[offset - 1] === '#' && !CARD_HASH_LABEL.test(text.slice(Math.max(0, offset - 12), offset))) return match;
    const cut = cardPrefixLength(match);
    return cut === 0 ? match : REDACTED + match.slice(cut);
  });
}

const IBAN_START = /(?<![A-Za-z0-9])([A-Za-z]{2})\d{2}/g;

/**
 * IBANs are scanned by hand: the country fixes the length, and printed IBANs are grouped
 * by spaces (or dashes), so a regex alone cannot tell where one ends and the next word
 * begins.
 */
function redactIbans(text: string): string {
  let out = '';
  let last = 0;
  IBAN_START.lastIndex = 0;
  for (let m = IBAN_START.exec(text); m; m = IBAN_START.exec(text)) {
    const length = ibanLength(m[1]);
    if (!length) continue;
    let compact = m[0];
    let i = m.index + m[0].length;
    let group = compact.length;
    while (compact.length < length && i < text.length) {
      // Dashes only after a group of four: a UUID's hex groups can start like an IBAN.
      const dash = text[i] === '-' && group === 4;
      if ((text[i] === ' ' || dash) && /[A-Za-z0-9]/.test(text[i + 1] ?? '')) {
        i++;
        group = 0;
      }
      if (!/[A-Za-z0-9]/.test(text[i] ?? '')) break;
      compact += text[i++];
      group++;
    }
    if (compact.length !== length || /[A-Za-z0-9]/.test(text[i] ?? '') || !isValidIban(compact)) continue;
    out += text.slice(last, m.index) + REDACTED;
    last = i;
    IBAN_START.lastIndex = i;
  }
  return last === 0 ? text : out + text.slice(last);
}

const SECRET_DETECTORS: Detector[] = [
  (t) => t.replace(PEM_PRIVATE_KEY, REDACTED),
  (t) => t.replace(URL_USERINFO, `$1${REDACTED}@`),
  (t) => t.replace(SLACK_WEBHOOK, `$1${REDACTED}`),
  (t) => t.replace(JWT, REDACTED),
  ...PROVIDER_TOKENS.map(([pattern, accept]) => replaceWhere(pattern, accept)),
  (t) => t.replace(BEARER, (m, word, gap, token) => (looksLikeToken(token) ? word + gap + REDACTED : m)),
  (t) => t.replace(BASIC, (m, word, gap, value) => (isBasicCredential(value) ? word + gap + REDACTED : m)),
  (t) => t.replace(LABELLED_SECRET, (_m, label, sep) => label + sep + REDACTED),
  (t) => t.replace(LABELLED_SSN, (m, label, sep, a, _gap, g, s) => (isValidSsn(a, g, s) ? label + sep + REDACTED : m)),
  (t) => t.replace(LABELLED_TAX_ID, (_m, label, sep) => label + sep + REDACTED),
  (t) => t.replace(LABELLED_CODE, (_m, label, sep) => label + sep + REDACTED),
  (t) => t.replace(LABELLED_ID_DOCUMENT, (m, label, sep, value) => (/\d/.test(value) ? label + sep + REDACTED : m)),
  redactLabelledInProse,
  replaceWhere(DASHED_SSN, (_m, [a, g, s]) => isValidSsn(a, g, s)),
  (t, scope) => (scope.taxScope ? t.replace(DASHED_EIN, REDACTED) : t),
  redactCards,
  redactIbans,
];

export function redactSecretsInText(text: string, scope: TextScope): string {
  return SECRET_DETECTORS.reduce((current, detect) => detect(current, scope), text);
}

/** A bare number can only be a card number; ids, prices and quantities pass. */
export function isSecretNumber(value: number): boolean {
  return Number.isSafeInteger(value) && value > 0 && isCardNumber(String(value));
}
