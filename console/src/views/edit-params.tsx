import { useState } from 'preact/hooks';
import { containsMarker } from '../../../src/redaction/markers';
import type { ApiError } from '../api';
import { ParamDiff } from './param-diff';

type Params = Record<string, unknown>;

/** How one top-level parameter is edited: by its type; a hidden (redacted) one is not edited at all. */
type FieldKind = 'hidden' | 'number' | 'boolean' | 'text' | 'json';

function kindOf(value: unknown): FieldKind {
  if (typeof value === 'string') return containsMarker(value) ? 'hidden' : 'text';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  return 'json';
}

/** What the reviewer typed, per field, as text (a checkbox as "true"/"false"). */
type Drafts = Record<string, string>;

const draftOf = (value: unknown, kind: FieldKind) =>
  kind === 'text' ? String(value) : kind === 'json' ? JSON.stringify(value, null, 2) : String(value);

/**
 * The params from the fields: each typed back to its kind; a hidden value is sent exactly as
 * stored, which the server reads as "keep the sealed value" (README, "Hidden values stay
 * sealed"). Problems are named per field, before anything is sent.
 */
function paramsOf(initial: Params, drafts: Drafts): { params: Params } | { problems: Record<string, string> } {
  const params: Params = {};
  const problems: Record<string, string> = {};
  for (const [field, stored] of Object.entries(initial)) {
    const kind = kindOf(stored);
    const draft = drafts[field];
    if (kind === 'hidden') params[field] = stored;
    else if (kind === 'text') params[field] = draft;
    else if (kind === 'boolean') params[field] = draft === 'true';
    else if (kind === 'number') {
      const n = Number(draft);
      if (draft.trim() === '' || !Number.isFinite(n)) problems[field] = 'Not a number.';
      else params[field] = n;
    } else {
      try {
        params[field] = JSON.parse(draft);
      } catch (e) {
        problems[field] = `Not valid JSON: ${e instanceof Error ? e.message : String(e)}`;
      }
    }
  }
  return Object.keys(problems).length > 0 ? { problems } : { params };
}

const ESCALATIONS: Record<string, string> = {
  blocked: 'Policy would block the edited call.',
  other_approver: 'The edited call would need another kind of approver (expert or client), so this approval cannot release it.',
  higher_risk: 'The edited call is of a higher risk than the one requested.',
};

/** A sentence for the refusals of an edit, from the error's extensions. */
export function explainEditError(error: ApiError): string | null {
  if (error.code === 'APPROVAL_EDIT_ESCALATES') {
    const reason = String(error.extensions.reason ?? '');
    return `${ESCALATIONS[reason] ?? 'The edit needs more than this approval gives.'} The request is still pending.`;
  }
  if (error.code === 'APPROVAL_EDIT_REDACTED_VALUE') {
    return `${String(error.extensions.path ?? 'A field')} holds "[REDACTED]" where nothing is hidden: type the full value. The request is still pending.`;
  }
  if (error.code === 'INVALID_TOOL_INPUT' && Array.isArray(error.extensions.problems)) {
    const problems = error.extensions.problems as { path?: string; problem?: string }[];
    return problems.map((p) => `${p.path ?? '/'}: ${p.problem ?? 'invalid'}`).join('; ');
  }
  return null;
}

/**
 * "Edit parameters, then approve": one field per top-level parameter (a number, a text, a
 * checkbox, or JSON for nested values), the hidden ones shown as hidden and left as they are
 * — the server keeps their sealed values — and the change shown as a diff before approving.
 * The server checks the edit again (schema, then policy) and answers its refusals with a code.
 */
export function EditParams({
  id,
  initial,
  busy,
  onApprove,
  onCancel,
}: {
  id: string;
  initial: unknown;
  busy: boolean;
  onApprove: (params: Params) => void;
  onCancel: () => void;
}) {
  const stored: Params = initial !== null && typeof initial === 'object' && !Array.isArray(initial) ? (initial as Params) : {};
  const [drafts, setDrafts] = useState<Drafts>(() =>
    Object.fromEntries(Object.entries(stored).map(([field, value]) => [field, draftOf(value, kindOf(value))])),
  );
  const [problems, setProblems] = useState<Record<string, string>>({});
  const noteId = `${id}-note`;
  const set = (field: string, value: string) => {
    setDrafts((d) => ({ ...d, [field]: value }));
    setProblems(({ [field]: _, ...rest }) => rest);
  };
  const parsed = paramsOf(stored, drafts);
  const submit = () => {
    if ('problems' in parsed) setProblems(parsed.problems);
    else onApprove(parsed.params);
  };
  return (
    <div class="edit-params" id={id}>
      <p class="hint" id={noteId}>
        Change the fields to edit; hidden values stay as they are (the server keeps them sealed). The call will run with these parameters; policy
        checks them again, and an edit that needs another approver, a higher risk, or would be blocked, is refused.
      </p>
      <fieldset class="edit-fields" aria-describedby={noteId}>
        <legend>Edited parameters</legend>
        {Object.entries(stored).map(([field, value]) => {
          const kind = kindOf(value);
          const fieldId = `${id}-field-${field}`;
          const problemId = `${fieldId}-problem`;
          const invalid = problems[field] ? { 'aria-invalid': true, 'aria-describedby': problemId } : {};
          return (
            <div class={`edit-field edit-${kind}`} key={field}>
              <label for={fieldId}>{field}</label>
              {kind === 'hidden' ? (
                <output id={fieldId} class="hidden-value">
                  hidden — kept as it is ({String(value)})
                </output>
              ) : kind === 'boolean' ? (
                <input
                  id={fieldId}
                  type="checkbox"
                  checked={drafts[field] === 'true'}
                  onChange={(e) => set(field, String((e.target as HTMLInputElement).checked))}
                />
              ) : kind === 'json' ? (
                <textarea
                  id={fieldId}
                  value={drafts[field]}
                  rows={Math.min(10, drafts[field].split('\n').length + 1)}
                  spellcheck={false}
                  {...invalid}
                  onInput={(e) => set(field, (e.target as HTMLTextAreaElement).value)}
                />
              ) : kind === 'number' ? (
                <input
                  id={fieldId}
                  type="number"
                  step="any"
                  value={drafts[field]}
                  {...invalid}
                  onInput={(e) => set(field, (e.target as HTMLInputElement).value)}
                />
              ) : (
                <input
                  id={fieldId}
                  type="text"
                  value={drafts[field]}
                  {...invalid}
                  onInput={(e) => set(field, (e.target as HTMLInputElement).value)}
                />
              )}
              {problems[field] && (
                <p class="error" role="alert" id={problemId}>
                  {problems[field]}
                </p>
              )}
            </div>
          );
        })}
      </fieldset>
      {'params' in parsed && <ParamDiff before={stored} after={parsed.params} label="Your edit, before and after" />}
      <div class="buttons">
        <button type="button" class="approve" disabled={busy} onClick={submit}>
          Approve with edits
        </button>
        <button type="button" disabled={busy} onClick={onCancel}>
          Cancel edit
        </button>
      </div>
    </div>
  );
}
