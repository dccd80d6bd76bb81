import { containsMarker } from '../../../src/redaction/markers';

type Params = Record<string, unknown>;

export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

const asObject = (value: unknown): Params => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Params) : {});
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The top-level fields an edit changed, added or removed, in the order of the params. */
export function changedFields(before: unknown, after: unknown): FieldChange[] {
  const b = asObject(before);
  const a = asObject(after);
  const fields = [...new Set([...Object.keys(b), ...Object.keys(a)])];
  return fields.filter((field) => !same(b[field], a[field])).map((field) => ({ field, before: b[field], after: a[field] }));
}

/** A value as the diff shows it: hidden (redacted) values said to be so, never guessed at. */
function Value({ value }: { value: unknown }) {
  if (value === undefined) return <em>(none)</em>;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (typeof value === 'string' && containsMarker(value)) return <span class="hidden-value">{text} (hidden)</span>;
  return <code>{text}</code>;
}

/**
 * An edit as a diff: one row per field that changed, before → after. Values are redacted
 * as stored; a hidden one is shown as hidden (the server kept its sealed value).
 */
export function ParamDiff({ before, after, label }: { before: unknown; after: unknown; label: string }) {
  const changes = changedFields(before, after);
  if (changes.length === 0) return <p class="hint">No parameter changed.</p>;
  return (
    <table class="param-diff" aria-label={label}>
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Before</th>
          <th scope="col">After</th>
        </tr>
      </thead>
      <tbody>
        {changes.map((change) => (
          <tr key={change.field}>
            <th scope="row">{change.field}</th>
            <td class="diff-before">
              <Value value={change.before} />
            </td>
            <td class="diff-after">
              <Value value={change.after} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
