import { useEffect, useRef, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import {
  ConsoleApprovalEventsDocument,
  ConsoleInboxDocument,
  ConsoleResolveApprovalDocument,
  ConsoleRevealApprovalParamsDocument,
  type ApprovalDecision,
  type ConsoleApprovalEventsSubscription,
} from '../../../gql/graphql';
import type { Connection } from '../api';
import type { Session } from '../main';
import { Badge, ErrorNote, Json, resolverName, timeLeft, useNow, when } from '../ui';
import { EditParams, explainEditError } from './edit-params';
import { AlsoLooking } from './presence';
import { HighRiskAlerts } from './high-risk-alerts';
import { CardConversation } from './conversation';
import { CardHistory } from './approval-history';
import { ParamDiff } from './param-diff';
import { DEFAULT_QUERY, ORDER_LABELS, PAGE_SIZE, matches, merged, queryVariables, urgency, type Item, type QueueQuery } from './queue';
import { useQueueTools } from './queue-tools';

/** How an item left the queue while this reviewer had it on screen (resolved by someone else, or expired). */
interface Gone {
  status: string;
  by: string | null;
  reason: string | null;
  /** Approved there with edits: the params it runs with (redacted). */
  editedParams: unknown;
}

const RESOLVED = new Set(['approved', 'rejected', 'expired', 'cancelled']);
const CONNECTION_WORDS: Record<Connection, string> = { connecting: 'connecting', live: 'live', reconnecting: 'reconnecting', offline: 'offline' };
const CONNECTION_TITLES: Record<Connection, string> = {
  connecting: 'Opening the live connection',
  live: 'Updates arrive without reloading',
  reconnecting: 'The live connection dropped; retrying. Missed updates are read again once it is back.',
  offline: 'No live updates: the connection was refused or could not be restored. Reload to try again.',
};

/**
 * The approval queue, live: the pending list, then approvalRequests events over graphql-ws
 * (the subscription opens first, so nothing between the two is missed). After a dropped
 * connection comes back, the subscription resumes after the last sequence seen and the list
 * is read again, so an approval created during the drop appears. An item resolved elsewhere
 * stays on screen, with who resolved it and how, until the reviewer dismisses it (their
 * draft is kept). Review items have a view of their own (review-queue.tsx).
 */
export function Inbox({ session }: { session: Session }) {
  const { api, can } = session;
  const [items, setItems] = useState<Item[]>([]);
  const [query, setQuery] = useState<QueueQuery>(DEFAULT_QUERY);
  const [draft, setDraft] = useState<QueueQuery>(DEFAULT_QUERY);
  const [total, setTotal] = useState(0);
  const [cursor, setCursor] = useState<string | null>(null);
  const [moreBusy, setMoreBusy] = useState(false);
  const current = useRef(query);
  current.current = query;
  const [gone, setGone] = useState<Map<string, Gone>>(new Map());
  const [error, setError] = useState<unknown>(null);
  const [loaded, setLoaded] = useState(false);
  const [connection, setConnection] = useState<Connection>('connecting');
  const [announcement, setAnnouncement] = useState('');
  const list = useRef<HTMLUListElement>(null);
  /** Ids this reviewer took off the list (resolved here, or dismissed): a later event for them counts nothing again. */
  const left = useRef(new Set<string>());

  useEffect(() => {
    const variables = { audit: can.audit, kind: can.inboxKind };
    const resolved = new Set<string>();
    /** Ids counted in the total already (read, or arrived live). */
    const seen = new Set<string>();
    setItems([]);
    setLoaded(false);
    let lastSequence: string | null = null;
    let closed = false;
    const onEvent = ({ approvalRequests: event }: ConsoleApprovalEventsSubscription) => {
      lastSequence = event.sequence;
      const request = event.approvalRequest;
      if (request && RESOLVED.has(event.change)) {
        resolved.add(request.id);
        if (left.current.has(request.id)) return;
        setGone((map) =>
          new Map(map).set(request.id, {
            status: event.change,
            by: resolverName(request),
            reason: request.reason ?? null,
            editedParams: request.edited ? request.editedParams : null,
          }),
        );
      } else if (request && (event.change === 'voted' || event.change === 'escalated')) {
        // A quorum's progress or the ladder's next step: the card shows it in place.
        setItems((list) => list.map((i) => (i.id === request.id ? { ...i, ...request } : i)));
      } else if (request && event.change === 'requested' && request.status === 'pending' && !resolved.has(request.id)) {
        const item = { ...request, toolCall: event.toolCall };
        if (!matches(current.current, item) || seen.has(item.id)) return;
        seen.add(item.id);
        setTotal((n) => n + 1);
        setItems((list) => merged(list, [item], current.current.orderBy));
      }
    };
    // The first page in the reviewer's order and filters (again after a reconnect: merged, never reset).
    const read = () =>
      api
        .request(ConsoleInboxDocument, {
          ...variables,
          ...queryVariables(query),
          kind: can.inboxKind ?? (query.kind || null),
          first: PAGE_SIZE,
          after: null,
        })
        .then((data) => {
          if (closed) return;
          const pending = data.approvalRequests.edges.map((e) => e.node).filter((n) => !resolved.has(n.id));
          for (const item of pending) seen.add(item.id);
          setItems((live) => merged(live, pending, query.orderBy));
          setTotal(data.approvalRequests.totalCount);
          setCursor((known) => known ?? (data.approvalRequests.pageInfo.hasNextPage ? (data.approvalRequests.pageInfo.endCursor ?? null) : null));
          setLoaded(true);
          setError(null);
        })
        .catch(setError);
    const subscribe = () => api.subscribe(ConsoleApprovalEventsDocument, { ...variables, afterSequence: lastSequence }, onEvent, setError);
    const stop = api.followLive(subscribe, read, setConnection);
    return () => {
      closed = true;
      stop();
      setCursor(null);
    };
  }, [api, can, query]);

  /** The next page of the same order and filters. */
  const loadMore = async () => {
    if (!cursor) return;
    setMoreBusy(true);
    try {
      const data = await api.request(ConsoleInboxDocument, {
        audit: can.audit,
        ...queryVariables(query),
        kind: can.inboxKind ?? (query.kind || null),
        first: PAGE_SIZE,
        after: cursor,
      });
      setItems((list) =>
        merged(
          list,
          data.approvalRequests.edges.map((e) => e.node),
          query.orderBy,
        ),
      );
      setTotal(data.approvalRequests.totalCount);
      setCursor(data.approvalRequests.pageInfo.hasNextPage ? (data.approvalRequests.pageInfo.endCursor ?? null) : null);
    } catch (e) {
      setError(e);
    } finally {
      setMoreBusy(false);
    }
  };

  const dismiss = (id: string) => {
    left.current.add(id);
    setItems((list) => list.filter((i) => i.id !== id));
    setTotal((n) => Math.max(0, n - 1));
    setGone((map) => {
      const next = new Map(map);
      next.delete(id);
      return next;
    });
  };
  /** After this reviewer resolved an item: it leaves, focus goes to the next card, and the outcome is announced. */
  const resolvedHere = (item: Item, outcome: string) => {
    const index = items.findIndex((i) => i.id === item.id);
    dismiss(item.id);
    setAnnouncement(`${item.toolCall.toolName}.${item.toolCall.action} ${outcome}.`);
    requestAnimationFrame(() => {
      const cards = list.current?.querySelectorAll<HTMLElement>(':scope > li.card');
      const next = cards?.[Math.min(index, cards.length - 1)];
      (next ?? document.getElementById('main'))?.focus();
    });
  };

  const tools = useQueueTools({ session, items, isGone: (id) => gone.has(id), list, dismiss, announce: setAnnouncement });
  const shown = items.filter((i) => !gone.has(i.id)).length;
  const pending = Math.max(shown, total - gone.size);
  const field = (name: keyof QueueQuery) => (e: Event) => setDraft({ ...draft, [name]: (e.target as HTMLInputElement).value });
  useEffect(() => {
    document.title = pending > 0 ? `(${pending}) Approvals · Toolgate` : 'Approvals · Toolgate';
    return () => {
      document.title = 'Toolgate console';
    };
  }, [pending]);

  // A person signed in with single sign-on resolves as a person, so the queue speaks of roles, not keys.
  const resolvers = session.person ? { expert: 'experts', client: 'clients' } : { expert: 'expert keys', client: 'client keys' };
  const whoResolves = (kind: string) => (kind === 'expert' ? resolvers.expert : resolvers.client);
  return (
    <>
      <h1>
        Approvals <span class="count">({pending})</span>{' '}
        <span class={`live live-${connection}`} data-testid="connection" data-state={connection} title={CONNECTION_TITLES[connection]}>
          {CONNECTION_WORDS[connection]}
        </span>
      </h1>
      <HighRiskAlerts session={session} />
      <p class="sr-only" role="status" aria-live="polite">
        {announcement}
      </p>
      <form
        class="filters queue-controls"
        aria-label="Order and filter the queue"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery({ ...draft });
        }}
      >
        <label>
          Order
          <select
            value={draft.orderBy}
            onChange={(e) => {
              const next = { ...draft, orderBy: (e.target as HTMLSelectElement).value as QueueQuery['orderBy'] };
              setDraft(next);
              setQuery(next);
            }}
          >
            {Object.entries(ORDER_LABELS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        {can.inboxKind === null && (
          <label>
            Kind
            <select
              value={draft.kind}
              onChange={(e) => {
                const next = { ...draft, kind: (e.target as HTMLSelectElement).value as QueueQuery['kind'] };
                setDraft(next);
                setQuery(next);
              }}
            >
              <option value="">Expert and client</option>
              <option value="expert">Expert</option>
              <option value="client">Client</option>
            </select>
          </label>
        )}
        <label>
          Tool
          <input value={draft.toolName} onInput={field('toolName')} placeholder="invoice" />
        </label>
        <label>
          Amount from
          <input type="number" step="any" value={draft.amountMin} onInput={field('amountMin')} />
        </label>
        <label>
          Amount to
          <input type="number" step="any" value={draft.amountMax} onInput={field('amountMax')} />
        </label>
        <label>
          Customer
          <input value={draft.customerId} onInput={field('customerId')} />
        </label>
        <button type="submit">Apply</button>
      </form>
      <p class="queue-summary" data-testid="queue-summary">
        Showing {shown} of {pending}
      </p>
      <ErrorNote error={error} />
      {loaded && items.length === 0 && <p class="empty">Nothing waits for approval.</p>}
      {tools.bar}
      <div class={tools.wide ? 'queue-split' : 'queue'}>
        {tools.rows}
        <ul class="cards" aria-label="Pending approvals" aria-busy={!loaded} ref={list} onFocusIn={tools.onFocusIn}>
          {items.map((item) => (
            <ApprovalCard
              key={item.id}
              {...tools.card(item)}
              item={item}
              gone={gone.get(item.id) ?? null}
              session={session}
              whoResolves={whoResolves(item.kind)}
              onResolved={(outcome) => resolvedHere(item, outcome)}
              onDismiss={() => dismiss(item.id)}
            />
          ))}
        </ul>
      </div>
      {tools.help}
      {cursor && (
        <button type="button" class="more" disabled={moreBusy} onClick={loadMore}>
          {moreBusy ? 'Loading…' : `Show ${Math.min(PAGE_SIZE, pending - shown)} more`}
        </button>
      )}
    </>
  );
}

const OUTCOME_WORDS: Record<string, string> = { approved: 'Approved', rejected: 'Rejected', expired: 'Expired', cancelled: 'Cancelled' };

function ApprovalCard({
  hidden,
  bulk,
  item,
  gone,
  session,
  whoResolves,
  onResolved,
  onDismiss,
}: {
  hidden: boolean;
  bulk: ComponentChildren;
  item: Item;
  gone: Gone | null;
  session: Session;
  whoResolves: string;
  onResolved: (outcome: string) => void;
  onDismiss: () => void;
}) {
  const now = useNow();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<unknown>(null);
  /** This reviewer's approval counted, short of the quorum: the card stays for the next approver. */
  const [voted, setVoted] = useState<{ approvals: number; quorum: number } | null>(null);
  const call = item.toolCall;
  const decision = call.policyDecision;
  const mayResolve = session.can.resolves && session.viewer.role === item.kind;
  const resolve = async (choice: ApprovalDecision, editedParams?: Record<string, unknown>) => {
    setBusy(true);
    setError(null);
    try {
      const answer = await session.api.request(ConsoleResolveApprovalDocument, {
        id: item.id,
        decision: choice,
        reason: reason.trim() || null,
        editedParams: editedParams ?? null,
      });
      const { status, approvals, quorum } = answer.resolveApproval;
      if (status === 'pending') {
        setVoted({ approvals, quorum });
        setEditing(false);
        return;
      }
      onResolved(choice === 'APPROVE' ? (editedParams ? 'approved with edits' : 'approved') : 'rejected');
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  // Expired on this reviewer's clock: the buttons stop at once (the server's answer stays authoritative).
  const expired = new Date(String(item.expiresAt)).getTime() <= now;
  const closed = busy || expired || gone !== null;
  const headingId = `approval-${item.id}`;
  const editorId = `edit-${item.id}`;
  return (
    <li class={`card${gone ? ' card-gone' : ''}`} aria-labelledby={headingId} data-approval-id={item.id} tabIndex={-1} hidden={hidden}>
      {bulk}
      {gone && (
        <div class="gone-notice" role="status">
          <strong>
            {OUTCOME_WORDS[gone.status] ?? gone.status} elsewhere{gone.by ? ` by ${gone.by}` : ''}
          </strong>
          {gone.reason ? `: “${gone.reason}”` : '.'} Your draft below was not sent.{' '}
          {gone.editedParams !== null && <ParamDiff before={call.input} after={gone.editedParams} label="Edited there, before and after" />}
          <button type="button" onClick={onDismiss}>
            Dismiss
          </button>
        </div>
      )}
      <h2 id={headingId} class="card-title">
        {call.toolName}.{call.action} <Badge kind={call.riskLevel ?? 'none'}>risk {call.riskLevel ?? '—'}</Badge>
      </h2>
      {!gone && <AlsoLooking approvalId={item.id} session={session} />}
      <dl class="facts">
        <dt>Time left</dt>
        <dd class={`time-left due-${urgency(item.expiresAt, now)}`}>{timeLeft(item.expiresAt, now)}</dd>
        {item.quorum > 1 && (
          <>
            <dt>Approvals</dt>
            <dd class="quorum">
              {voted?.approvals ?? item.approvals} of {item.quorum} approvals
              {voted ? ' (yours counted: another approver is needed)' : ''}
            </dd>
          </>
        )}
        {item.steps > 0 && (
          <>
            <dt>Escalation</dt>
            <dd class={`step-left due-${urgency(item.stepEndsAt, now)}`}>
              step {item.step + 1} of {item.steps + 1}
              {item.group ? ` (${item.group})` : ''}: {timeLeft(item.stepEndsAt, now)} left in this step
            </dd>
          </>
        )}
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
      <h3 class="sub">Parameters being approved (redacted as stored)</h3>
      <Json value={call.input} label="Parameters being approved" />
      {mayResolve && <HiddenValues approvalId={item.id} session={session} />}
      <CardConversation session={session} runId={item.runId} />
      <CardHistory session={session} toolCallId={item.toolCallId} />
      {mayResolve ? (
        <div class="resolve">
          <label>
            Reason
            <input value={reason} onInput={(e) => setReason((e.target as HTMLInputElement).value)} maxLength={1000} />
          </label>
          <div class="buttons">
            <button type="button" class="approve" disabled={closed} onClick={() => resolve('APPROVE')}>
              Approve
            </button>
            <button type="button" class="reject" disabled={closed} onClick={() => resolve('REJECT')}>
              Reject
            </button>
            <button
              type="button"
              class="edit"
              disabled={closed}
              aria-expanded={editing}
              aria-controls={editing ? editorId : undefined}
              onClick={() => setEditing(!editing)}
            >
              Edit parameters
            </button>
          </div>
          {editing && (
            <EditParams
              id={editorId}
              initial={call.input}
              busy={closed}
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
      const { revealApprovalParams: revealed } = await session.api.request(ConsoleRevealApprovalParamsDocument, { id: approvalId });
      setShown({ params: revealed.params as Record<string, unknown>, hiddenPaths: revealed.hiddenPaths });
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
      <h3 class="sub">Parameters as they will run (unredacted; your view is recorded in the ledger)</h3>
      <p class="hint">
        {shown.hiddenPaths.length === 0
          ? 'Nothing was hidden: the stored copy is complete.'
          : `Hidden in the stored copy (redacted as a secret or personal data): ${shown.hiddenPaths.join(', ')}`}
      </p>
      <Json value={shown.params} label="Parameters as they will run" />
    </div>
  );
}
