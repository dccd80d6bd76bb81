import { useState } from 'preact/hooks';
import { ConsoleApprovalHistoryDocument, type ConsoleHistoryEntryFragment } from '../../../gql/graphql';
import type { Session } from '../main';
import { ErrorNote, when } from '../ui';
import { ParamDiff } from './param-diff';

const STEP_WORDS: Record<string, string> = {
  requested: 'Requested',
  params_viewed: 'Hidden values viewed',
  approved: 'Approved',
  rejected: 'Rejected',
  expired: 'Expired',
  cancelled: 'Cancelled (the run was cancelled)',
};

/** Who did a step: the key's name, else its role; expiry and the system have none. */
const who = (entry: ConsoleHistoryEntryFragment) =>
  entry.actorName ?? entry.actorRole ?? (entry.step === 'expired' ? 'the expiry job' : 'the system');

/**
 * An approval's history from the ledger: requested → hidden values viewed → resolved, each
 * with who (the key's name) and when, the reviewer's reason, and an edit as a diff.
 */
export function ApprovalHistory({ history, label }: { history: ConsoleHistoryEntryFragment[]; label: string }) {
  if (history.length === 0) return <p class="empty">No history recorded.</p>;
  return (
    <ol class="history" aria-label={label}>
      {history.map((entry) => (
        <li key={entry.sequence} class={`history-${entry.step}`}>
          <strong>
            {STEP_WORDS[entry.step] ?? entry.step}
            {entry.edited ? ' with edits' : ''}
          </strong>{' '}
          by {who(entry)} · <time dateTime={String(entry.at)}>{when(entry.at)}</time>
          {entry.reason && <span class="history-reason">: “{entry.reason}”</span>}
          {entry.step === 'params_viewed' && entry.hiddenPaths.length > 0 && <small> ({entry.hiddenPaths.join(', ')})</small>}
          {entry.edited && <ParamDiff before={entry.originalParams} after={entry.editedParams} label="Edited parameters, before and after" />}
        </li>
      ))}
    </ol>
  );
}

/** "History" on an approval card: read from the ledger when opened, again on each opening (it grows). */
export function CardHistory({ session, toolCallId }: { session: Session; toolCallId: string }) {
  const [history, setHistory] = useState<ConsoleHistoryEntryFragment[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const onToggle = (event: Event) => {
    if (!(event.currentTarget as HTMLDetailsElement).open) return;
    session.api
      .request(ConsoleApprovalHistoryDocument, { toolCallId })
      .then((data) => {
        setHistory(data.toolCall.approvalRequest?.history ?? []);
        setError(null);
      })
      .catch(setError);
  };
  return (
    <details onToggle={onToggle}>
      <summary>History{history ? ` (${history.length})` : ''}</summary>
      {history ? <ApprovalHistory history={history} label="History of this approval" /> : !error && <p class="loading">Loading…</p>}
      <ErrorNote error={error} />
    </details>
  );
}
