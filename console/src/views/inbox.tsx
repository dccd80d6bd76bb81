import { useEffect, useState } from 'preact/hooks';
import {
  ConsoleApprovalEventsDocument,
  ConsoleInboxDocument,
  ConsoleResolveApprovalDocument,
  ConsoleRevealApprovalParamsDocument,
  type ApprovalDecision,
  type ConsoleApprovalItemFragment,
  type ConsoleCallDetailFragment,
} from '../../../gql/graphql';
import type { Session } from '../main';
import { Badge, ErrorNote, Json, Section, timeLeft, useNow, when } from '../ui';
import { EditParams, explainEditError } from './edit-params';

type Item = ConsoleApprovalItemFragment & { toolCall: ConsoleCallDetailFragment };

const RESOLVED = new Set(['approved', 'rejected', 'expired', 'cancelled']);

/**
 * The approval queue, live: the pending list, then approvalRequests events over graphql-ws
 * (the subscription opens first, so nothing between the two is missed). A request resolved
 * anywhere leaves the list at once; review items (audit roles) follow it.
 */
export function Inbox({ session }: { session: Session }) {
  const { api, can } = session;
  const [items, setItems] = useState<Item[]>([]);
  const [reviews, setReviews] = useState<ConsoleCallDetailFragment[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [loaded, setLoaded] = useState(false);
  const [live, setLive] = useState(false);

  useEffect(() => {
    const variables = { audit: can.audit, kind: can.inboxKind };
    const gone = new Set<string>();
    const stop = api.subscribe(
      ConsoleApprovalEventsDocument,
      variables,
      ({ approvalRequests: event }) => {
        setLive(true);
        const request = event.approvalRequest;
        if (event.change === 'review_required') {
          setReviews((list) => [event.toolCall, ...list.filter((c) => c.id !== event.toolCall.id)]);
        } else if (request && RESOLVED.has(event.change)) {
          gone.add(request.id);
          setItems((list) => list.filter((i) => i.id !== request.id));
        } else if (request && event.change === 'requested' && request.status === 'pending') {
          const item = { ...request, toolCall: event.toolCall };
          setItems((list) => [item, ...list.filter((i) => i.id !== request.id)]);
        }
      },
      setError,
    );
    setLive(true);
    api
      .request(ConsoleInboxDocument, variables)
      .then((data) => {
        const pending = data.approvalRequests.edges.map((e) => e.node).filter((n) => !gone.has(n.id));
        setItems((live) => [...live, ...pending.filter((n) => !live.some((l) => l.id === n.id))]);
        if (data.toolCalls) setReviews(data.toolCalls.edges.map((e) => e.node));
        setLoaded(true);
      })
      .catch(setError);
    return stop;
  }, [api, can]);

  const whoResolves = (kind: string) => (kind === 'expert' ? 'expert keys' : 'client keys');
  return (
    <>
      <h1>
        Approvals <span class="count">({items.length})</span>
        {live && (
          <span class="live" title="Updates arrive without reloading">
            live
          </span>
        )}
      </h1>
      <ErrorNote error={error} />
      {loaded && items.length === 0 && <p class="empty">Nothing waits for approval.</p>}
      <ul class="cards" aria-label="Pending approvals">
        {items.map((item) => (
          <ApprovalCard
            key={item.id}
            item={item}
            session={session}
            whoResolves={whoResolves(item.kind)}
            onResolved={() => setItems((list) => list.filter((i) => i.id !== item.id))}
          />
        ))}
      </ul>
      {can.audit && (
        <Section title={`For review (${reviews.length})`}>
          {reviews.length === 0 ? (
            <p class="empty">No calls are marked for review.</p>
          ) : (
            <ul class="cards" aria-label="Calls for review">
              {reviews.map((call) => (
                <li key={call.id} class="card">
                  <h3>
                    {call.toolName}.{call.action} <Badge kind={call.status}>{call.status}</Badge>
                  </h3>
                  <p>
                    {call.errorCode && <code>{call.errorCode}</code>} Run <a href={`#/runs/${call.runId}`}>{call.runId.slice(0, 8)}</a> · risk{' '}
                    {call.riskLevel ?? '—'}
                  </p>
                  <Json value={call.input} label="Parameters (redacted)" />
                </li>
              ))}
            </ul>
          )}
        </Section>
      )}
    </>
  );
}

function ApprovalCard({ item, session, whoResolves, onResolved }: { item: Item; session: Session; whoResolves: string; onResolved: () => void }) {
  const now = useNow();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const call = item.toolCall;
  const decision = call.policyDecision;
  const mayResolve = session.can.resolves && session.viewer.role === item.kind;
  const resolve = async (choice: ApprovalDecision, editedParams?: Record<string, unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await session.api.request(ConsoleResolveApprovalDocument, {
        id: item.id,
        decision: choice,
        reason: reason.trim() || null,
        editedParams: editedParams ?? null,
      });
      onResolved();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const headingId = `approval-${item.id}`;
  const editorId = `edit-${item.id}`;
  return (
    <li class="card" aria-labelledby={headingId} data-approval-id={item.id}>
      <h3 id={headingId}>
        {call.toolName}.{call.action} <Badge kind={call.riskLevel ?? 'none'}>risk {call.riskLevel ?? '—'}</Badge>
      </h3>
      <dl class="facts">
        <dt>Time left</dt>
        <dd class="time-left">{timeLeft(item.expiresAt, now)}</dd>
        <dt>Resolved by</dt>
        <dd>{whoResolves}</dd>
        <dt>Required by</dt>
        <dd>
          {decision
            ? `${decision.outcome} (risk ${decision.risk}${decision.matchedRuleId ? `, rule ${decision.matchedRuleId.slice(0, 8)}` : ', catalog default'}): ${decision.reason}`
            : `${item.kind} approval, risk ${call.riskLevel ?? '—'}`}
        </dd>
        <dt>Run</dt>
        <dd>
          <a href={`#/runs/${item.runId}`}>{item.runId.slice(0, 8)}</a> · requested {when(item.createdAt)}
        </dd>
      </dl>
      <h4>Parameters being approved (redacted as stored)</h4>
      <Json value={call.input} label="Parameters being approved" />
      {mayResolve && <HiddenValues approvalId={item.id} session={session} />}
      <details>
        <summary>Conversation so far ({call.run.messages.length})</summary>
        <ol class="conversation">
          {call.run.messages.map((m) => (
            <li key={m.position} class={`msg msg-${m.role}`}>
              <strong>{m.role}</strong> {m.text || <em>(tool use)</em>}
            </li>
          ))}
        </ol>
      </details>
      {mayResolve ? (
        <div class="resolve">
          <label>
            Reason
            <input value={reason} onInput={(e) => setReason((e.target as HTMLInputElement).value)} maxLength={1000} />
          </label>
          <div class="buttons">
            <button type="button" class="approve" disabled={busy} onClick={() => resolve('APPROVE')}>
              Approve
            </button>
            <button type="button" class="reject" disabled={busy} onClick={() => resolve('REJECT')}>
              Reject
            </button>
            <button type="button" aria-expanded={editing} aria-controls={editing ? editorId : undefined} onClick={() => setEditing(!editing)}>
              Edit parameters
            </button>
          </div>
          {editing && (
            <EditParams
              id={editorId}
              initial={call.input}
              busy={busy}
              onApprove={(params) => resolve('APPROVE', params)}
              onCancel={() => setEditing(false)}
            />
          )}
        </div>
      ) : (
        <p class="hint">Only {whoResolves} resolve this request.</p>
      )}
      <ErrorNote error={error} explain={explainEditError} />
    </li>
  );
}

/**
 * "Show hidden values": the call's real params (revealApprovalParams), fetched only on
 * demand — each view is recorded in the ledger — with the values the stored copy hides named.
 */
function HiddenValues({ approvalId, session }: { approvalId: string; session: Session }) {
  const [shown, setShown] = useState<{ params: Record<string, unknown>; hiddenPaths: string[] } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const reveal = async () => {
    setBusy(true);
    setError(null);
    try {
      setShown((await session.api.request(ConsoleRevealApprovalParamsDocument, { id: approvalId })).revealApprovalParams);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  if (!shown) {
    return (
      <div class="reveal">
        <button type="button" disabled={busy} onClick={reveal}>
          Show hidden values
        </button>
        <ErrorNote error={error} />
      </div>
    );
  }
  return (
    <div class="reveal">
      <h4>Parameters as they will run (unredacted; your view is recorded in the ledger)</h4>
      <p class="hint">
        {shown.hiddenPaths.length === 0
          ? 'Nothing was hidden: the stored copy is complete.'
          : `Hidden in the stored copy (redacted as a secret or personal data): ${shown.hiddenPaths.join(', ')}`}
      </p>
      <Json value={shown.params} label="Parameters as they will run" />
    </div>
  );
}
