/**
 * Redaction of what the ledger stores. The model always gets full data; the ledger keeps a
 * copy with secrets (inputs and outputs) and personal data (outputs) replaced.
 *
 * Both functions are pure: they return a deep copy shaped like their argument and never
 * touch it. Redacting an already redacted value returns an equal value.
 *
 * Deliberate choices:
 * - Field names decide first: a secret-named field loses its whole value, whatever shape.
 *   Booleans, null and empty strings under such names are kept: they hold no secret.
 * - Addresses are redacted partially: street lines, names, phone and coordinates go;
 *   postal code, city, province/state and country stay, enough for support questions
 *   about delivery regions without pointing at a household.
 * - Personal data is only redacted in outputs: inputs are what the agent asked for (an
 *   email to look up) and are stored with only secrets removed.
 * - Object keys are never rewritten: doing so could merge two keys into one.
 * - Values nested deeper than MAX_DEPTH, and the back edge of a cycle, become TRUNCATED.
 */
import {
  classifyAddressField,
  isAddressKey,
  isCardSummary,
  isPersonalKey,
  isPersonKey,
  isPersonNameField,
  isSecretKey,
  isTaxKey,
  pairLabel,
} from './field-names';
import { containsMarker, REDACTED, TRUNCATED } from './markers';
import { isSecretNumber, redactSecretsInText } from './patterns';
import { hasStreetLine, redactPiiInText } from './pii-patterns';

export { REDACTED, TRUNCATED };

export const MAX_DEPTH = 32;

type Mode = 'input' | 'output';

/** What the keys above a value say about it. */
interface Place {
  /** The value is an address: an object of address fields, or one address string. */
  address: boolean;
  /** The value describes a person, so its plain `name` field is personal. */
  person: boolean;
  taxScope: boolean;
}

interface Walk {
  mode: Mode;
  /** Objects on the path from the root: meeting one again means a cycle. */
  ancestors: Set<object>;
}

const ROOT: Place = { address: false, person: false, taxScope: false };

/** Secrets removed: for tool-call parameters before they are stored. */
export function redactInput(value: unknown): unknown {
  return walk(value, 0, ROOT, { mode: 'input', ancestors: new Set() });
}

/** Secrets and personal data removed: for normalized vendor results before they are stored. */
export function redactOutput(value: unknown): unknown {
  return walk(value, 0, ROOT, { mode: 'output', ancestors: new Set() });
}

function walk(value: unknown, depth: number, place: Place, state: Walk): unknown {
  if (depth > MAX_DEPTH) return TRUNCATED;
  if (typeof value === 'string') return redactString(value, place, state.mode);
  if (typeof value === 'number') return isSecretNumber(value) ? REDACTED : value;
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Date) return new Date(value.getTime());
  if (state.ancestors.has(value)) return TRUNCATED;
  state.ancestors.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1, place, state));
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    // Buffers and other serialisable classes are stored as their JSON form anyway.
    if (typeof toJSON === 'function') return walk(toJSON.call(value), depth, place, state);
    return walkObject(value as Record<string, unknown>, depth, place, state);
  } finally {
    state.ancestors.delete(value);
  }
}

function walkObject(object: Record<string, unknown>, depth: number, place: Place, state: Walk): unknown {
  if (state.mode === 'output' && isCardSummary(object)) return REDACTED;
  const pair = pairLabel(object);
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(object)) {
    const judgedAs = pair && key === pair.valueKey ? pair.label : key;
    const redacted = walkField(judgedAs, child, depth + 1, place, state);
    // A JSON "__proto__" key is data; plain assignment would replace the prototype.
    if (key === '__proto__') {
      Object.defineProperty(out, key, { value: redacted, enumerable: true, writable: true, configurable: true });
    } else {
      out[key] = redacted;
    }
  }
  return out;
}

function walkField(key: string, value: unknown, depth: number, parent: Place, state: Walk): unknown {
  if (depth > MAX_DEPTH) return TRUNCATED;
  const place = placeOf(key, parent, state.mode);
  if (place !== 'redact') return walk(value, depth, place, state);
  const holdsNothing = value === null || value === undefined || typeof value === 'boolean' || value === '';
  return holdsNothing ? value : REDACTED;
}

function placeOf(key: string, parent: Place, mode: Mode): Place | 'redact' {
  if (isSecretKey(key)) return 'redact';
  const taxScope = parent.taxScope || isTaxKey(key);
  if (mode === 'input') return { address: false, person: false, taxScope };
  if (isPersonalKey(key)) return 'redact';
  if (parent.address) {
    const field = classifyAddressField(key);
    if (field === 'redact') return 'redact';
    if (field === 'keep') return { address: false, person: false, taxScope };
  }
  if (parent.person && isPersonNameField(key)) return 'redact';
  const address = isAddressKey(key);
  return { address, person: !address && isPersonKey(key), taxScope };
}

function redactString(text: string, place: Place, mode: Mode): string {
  const withoutSecrets = redactSecretsInText(text, { taxScope: place.taxScope });
  if (mode === 'input') return withoutSecrets;
  const redacted = redactPiiInText(withoutSecrets);
  // An address string whose street line is not recognised is dropped whole: better to
  // lose a postal code than to store a street. Already redacted text is left as it is.
  if (!place.address || text.trim() === '' || hasStreetLine(text) || containsMarker(text)) return redacted;
  return REDACTED;
}
