import { AppError } from '../errors/app-error';
import { containsMarker } from '../redaction/markers';

type Json = unknown;

const pointer = (path: string[]) => `/${path.map((key) => key.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object';

/** True when editedParams hold a redaction marker anywhere: only then are the sealed params needed. */
export function holdsMarker(value: Json): boolean {
  if (typeof value === 'string') return containsMarker(value);
  if (isObject(value)) return Object.values(value).some(holdsMarker);
  return false;
}

/**
 * A reviewer edits the stored (redacted) copy of the params, so every hidden value reaches
 * them as a marker. Where the edit gives back exactly the stored value at a path the stored
 * copy hides (it differs from the sealed one there), the sealed value is kept: the reviewer
 * changed the visible fields only. A marker anywhere else — a path where nothing was hidden,
 * or a hidden value changed in part — would run with the marker itself, so it is refused
 * (APPROVAL_EDIT_REDACTED_VALUE, with the path, never the values).
 */
export function mergeSealedValues(edited: Json, stored: Json, sealed: Json, path: string[] = []): Json {
  if (typeof edited === 'string') {
    if (!containsMarker(edited)) return edited;
    if (edited === stored && stored !== sealed && sealed !== undefined) return sealed;
    throw new AppError(
      'APPROVAL_EDIT_REDACTED_VALUE',
      `editedParams hold a redaction marker at ${pointer(path)} where the stored params hide nothing to keep: give the full value or the stored one unchanged; nothing changed`,
      { field: 'editedParams', path: pointer(path) },
    );
  }
  if (Array.isArray(edited)) {
    return edited.map((item, i) =>
      mergeSealedValues(item, Array.isArray(stored) ? stored[i] : undefined, Array.isArray(sealed) ? sealed[i] : undefined, [...path, String(i)]),
    );
  }
  if (isObject(edited)) {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(edited)) {
      const merged = mergeSealedValues(
        value,
        isObject(stored) && !Array.isArray(stored) && Object.hasOwn(stored, key) ? stored[key] : undefined,
        isObject(sealed) && !Array.isArray(sealed) && Object.hasOwn(sealed, key) ? sealed[key] : undefined,
        [...path, key],
      );
      // A JSON "__proto__" key is data; plain assignment would replace the prototype.
      Object.defineProperty(out, key, { value: merged, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return edited;
}
