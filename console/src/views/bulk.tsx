import { useState } from 'preact/hooks';
import { ConsoleResolveApprovalsDocument, type ApprovalDecision } from '../../../gql/graphql';
import type { Api } from '../api';
import { ErrorNote } from '../ui';

/** The server's limit per request (MAX_BULK_APPROVALS): a larger selection goes in several. */
const CHUNK = 50;

/** Why one item of a bulk resolution was not resolved. */
export interface BulkFailure {
  code: string;
  message: string;
}

export interface BulkOutcome {
  resolved: string[];
  failed: Map<string, BulkFailure>;
}

/** Resolves `ids` with one decision and reason, 50 at a time; each item answers for itself. */
export async function resolveInBulk(api: Api, ids: string[], decision: ApprovalDecision, reason: string | null): Promise<BulkOutcome> {
  const outcome: BulkOutcome = { resolved: [], failed: new Map() };
  for (let start = 0; start < ids.length; start += CHUNK) {
    const { resolveApprovals } = await api.request(ConsoleResolveApprovalsDocument, { ids: ids.slice(start, start + CHUNK), decision, reason });
    for (const item of resolveApprovals) {
      if (item.error) outcome.failed.set(item.approvalId, item.error);
      else outcome.resolved.push(item.approvalId);
    }
  }
  return outcome;
}

/**
 * The bulk bar: how many are selected, "select all shown", one reason, Approve / Reject.
 * Shown to reviewers who may resolve.
 */
export function BulkBar({
  selected,
  shown,
  onSelectAll,
  onResolve,
}: {
  selected: number;
  shown: number;
  onSelectAll: (all: boolean) => void;
  onResolve: (decision: ApprovalDecision, reason: string | null) => Promise<void>;
}) {
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (decision: ApprovalDecision) => {
    setBusy(true);
    setError(null);
    try {
      await onResolve(decision, reason.trim() || null);
      setReason('');
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const none = selected === 0 || busy;
  return (
    <section class="bulk" aria-label="Bulk decision">
      <label class="check">
        <input
          type="checkbox"
          checked={shown > 0 && selected === shown}
          indeterminate={selected > 0 && selected < shown}
          disabled={shown === 0}
          onChange={(e) => onSelectAll((e.target as HTMLInputElement).checked)}
        />
        Select all shown
      </label>
      <span class="bulk-count" data-testid="bulk-count">
        {selected} selected
      </span>
      <label>
        Reason for all
        <input value={reason} onInput={(e) => setReason((e.target as HTMLInputElement).value)} maxLength={1000} />
      </label>
      <button type="button" class="approve" disabled={none} onClick={() => run('APPROVE')}>
        Approve selected
      </button>
      <button type="button" class="reject" disabled={none} onClick={() => run('REJECT')}>
        Reject selected
      </button>
      <ErrorNote error={error} />
    </section>
  );
}

/** An item's bulk checkbox (where it has one) and, after a bulk decision it failed, its code. */
export function BulkMark({
  label,
  checked,
  withCheckbox,
  failure,
  onToggle,
}: {
  label: string;
  checked: boolean;
  withCheckbox: boolean;
  failure: BulkFailure | null;
  onToggle: (checked: boolean) => void;
}) {
  return (
    <>
      {withCheckbox && (
        <label class="check bulk-check">
          <input type="checkbox" checked={checked} onChange={(e) => onToggle((e.target as HTMLInputElement).checked)} />
          <span class="sr-only">{label}</span>
          <span aria-hidden="true">Select</span>
        </label>
      )}
      {failure && (
        <p class="error bulk-failure" data-testid="bulk-failure">
          <code>{failure.code}</code> Not resolved in bulk: {failure.message}
        </p>
      )}
    </>
  );
}
