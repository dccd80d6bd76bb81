import { useState } from 'preact/hooks';
import { containsMarker } from '../../../src/redaction/markers';
import type { ApiError } from '../api';

type Params = Record<string, unknown>;

/**
 * The text of the editor, checked before anything is sent: JSON, an object (the tool's
 * params), and no redaction marker left — a "[REDACTED]" string may pass the tool's schema
 * (a description is any string) and would then be sent to the vendor as it stands.
 */
function parseEditedParams(text: string): { params: Params } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { problem: `Not valid JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { problem: 'The parameters must be one JSON object, like {"amount": 99}.' };
  }
  if (containsMarker(JSON.stringify(value))) {
    return { problem: 'Replace every "[REDACTED]" (or "[TRUNCATED]") with the full value before approving.' };
  }
  return { params: value as Params };
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
  if (error.code === 'INVALID_TOOL_INPUT' && Array.isArray(error.extensions.problems)) {
    const problems = error.extensions.problems as { path?: string; problem?: string }[];
    return problems.map((p) => `${p.path ?? '/'}: ${p.problem ?? 'invalid'}`).join('; ');
  }
  return null;
}

/**
 * "Edit parameters, then approve": a textarea with the params as stored (redacted), checked
 * locally, then `onApprove` with the parsed object. The server checks the edit again
 * (schema, then policy) and answers its refusals with a code.
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
  const [text, setText] = useState(() => JSON.stringify(initial ?? {}, null, 2));
  const [problem, setProblem] = useState<string | null>(null);
  const noteId = `${id}-note`;
  const problemId = `${id}-problem`;
  const submit = () => {
    const parsed = parseEditedParams(text);
    if ('problem' in parsed) setProblem(parsed.problem);
    else {
      setProblem(null);
      onApprove(parsed.params);
    }
  };
  return (
    <div class="edit-params" id={id}>
      <p class="hint" id={noteId}>
        These are the parameters as stored, with secrets redacted: type the full value wherever you see "[REDACTED]", or the edit is refused. The call
        will run with exactly these parameters; policy checks them again, and an edit that needs another approver, a higher risk, or would be blocked,
        is refused.
      </p>
      <label>
        Edited parameters (JSON)
        <textarea
          value={text}
          rows={Math.min(16, text.split('\n').length + 1)}
          spellcheck={false}
          aria-describedby={problem ? `${noteId} ${problemId}` : noteId}
          aria-invalid={problem ? true : undefined}
          onInput={(e) => {
            setText((e.target as HTMLTextAreaElement).value);
            setProblem(null);
          }}
        />
      </label>
      {problem && (
        <p class="error" role="alert" id={problemId}>
          {problem}
        </p>
      )}
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
