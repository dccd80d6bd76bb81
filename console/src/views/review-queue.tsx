import { useEffect, useRef, useState } from 'preact/hooks';
import {
  ConsoleAcknowledgeReviewDocument,
  ConsoleReviewEventsDocument,
  ConsoleReviewsDocument,
  type ConsoleReviewEventsSubscription,
  type ConsoleReviewItemFragment,
} from '../../../gql/graphql';
import type { Session } from '../main';
import { Badge, ErrorNote, Json, Section, when } from '../ui';

const PAGE = 50;

/** Why a call is for review, in words (its decision, or its outcome). */
function whyOf(item: ConsoleReviewItemFragment): string {
  const d = item.policyDecision;
  if (item.errorCode === 'VENDOR_OUTCOME_UNKNOWN') return 'The vendor could not confirm the outcome: the action may have happened.';
  if (d?.outcome === 'observe') return `Observed by policy (risk ${d.risk}): ${d.reason}`;
  if (d?.shadowOutcome && d.shadowOutcome !== 'allow') return `Let through by shadow mode; policy would have said ${d.shadowOutcome}.`;
  return 'The action was left partly done, or needs a person to check it.';
}

/**
 * "For review" (admin and expert keys): calls observed by policy, let through by shadow
 * mode, or with an outcome nobody could confirm, that nobody has acknowledged yet. Live:
 * items arrive (review_required) and leave when anyone acknowledges them
 * (review_acknowledged); after a drop the subscription resumes after the last event seen
 * and the list is read again. Each is acknowledged with an optional note (in the ledger).
 * Read 50 at a time, newest first; "Show more" reads the next page after the last one read.
 */
export function ReviewQueue({ session }: { session: Session }) {
  const { api } = session;
  const [items, setItems] = useState<ConsoleReviewItemFragment[]>([]);
  const [total, setTotal] = useState(0);
  const [error, setError] = useState<unknown>(null);
  const [announcement, setAnnouncement] = useState('');
  const [cursor, setCursor] = useState<string | null>(null);
  const [moreBusy, setMoreBusy] = useState(false);
  /** Acknowledged anywhere (events): a page read later must not bring them back. */
  const acknowledgedRef = useRef(new Set<string>());
  /** Ids on screen, so the total counts each item once whichever way it arrived. */
  const shownRef = useRef(new Set<string>());

  useEffect(() => {
    const acknowledged = new Set<string>();
    const shown = new Set<string>();
    acknowledgedRef.current = acknowledged;
    shownRef.current = shown;
    let lastSequence: string | null = null;
    let closed = false;
    const onEvent = ({ approvalRequests: event }: ConsoleReviewEventsSubscription) => {
      lastSequence = event.sequence;
      const call = event.toolCall;
      if (event.change === 'review_acknowledged') {
        acknowledged.add(call.id);
        if (shown.delete(call.id)) setTotal((n) => Math.max(0, n - 1));
        setItems((list) => list.filter((c) => c.id !== call.id));
      } else if (event.change === 'review_required' && !acknowledged.has(call.id) && call.reviewAcknowledgedAt == null) {
        if (!shown.has(call.id)) {
          shown.add(call.id);
          setTotal((n) => n + 1);
        }
        setItems((list) => [call, ...list.filter((c) => c.id !== call.id)]);
      }
    };
    const read = () =>
      api
        .request(ConsoleReviewsDocument, { first: PAGE, after: null })
        .then((data) => {
          if (closed) return;
          const listed = data.toolCalls.edges.map((e) => e.node).filter((c) => !acknowledged.has(c.id));
          for (const c of listed) shown.add(c.id);
          setItems((live) => [...live.filter((c) => !listed.some((l) => l.id === c.id)), ...listed]);
          setTotal(data.toolCalls.totalCount);
          const { hasNextPage, endCursor } = data.toolCalls.pageInfo;
          // After a reconnect the list is read again: the pages already shown stay, and so does the cursor past them.
          setCursor((known) => known ?? (hasNextPage ? (endCursor ?? null) : null));
          setError(null);
        })
        .catch(setError);
    const subscribe = () => api.subscribe(ConsoleReviewEventsDocument, { afterSequence: lastSequence }, onEvent, setError);
    const stop = api.followLive(subscribe, read);
    return () => {
      closed = true;
      stop();
      setCursor(null);
    };
  }, [api]);

  /** The next page after the last one read (the cursor is the last row's sort key: acknowledgements shift nothing). */
  const loadMore = async () => {
    if (!cursor) return;
    setMoreBusy(true);
    try {
      const data = await api.request(ConsoleReviewsDocument, { first: PAGE, after: cursor });
      const listed = data.toolCalls.edges.map((e) => e.node).filter((c) => !acknowledgedRef.current.has(c.id));
      for (const c of listed) shownRef.current.add(c.id);
      setItems((list) => [...list, ...listed.filter((c) => !list.some((l) => l.id === c.id))]);
      setTotal(data.toolCalls.totalCount);
      setCursor(data.toolCalls.pageInfo.hasNextPage ? (data.toolCalls.pageInfo.endCursor ?? null) : null);
    } catch (e) {
      setError(e);
    } finally {
      setMoreBusy(false);
    }
  };

  // The total follows the review_acknowledged event this acknowledgement sends.
  const done = (call: ConsoleReviewItemFragment) => {
    setItems((list) => list.filter((c) => c.id !== call.id));
    setAnnouncement(`Review of ${call.toolName}.${call.action} acknowledged.`);
  };

  return (
    <>
      <h1>For review ({total})</h1>
      <p class="sr-only" role="status" aria-live="polite">
        {announcement}
      </p>
      <ErrorNote error={error} />
      <Section title={`Calls for review (${items.length} shown of ${total})`}>
        {items.length === 0 ? (
          <p class="empty">Nothing to review.</p>
        ) : (
          <ul class="cards" aria-label="Calls for review">
            {items.map((call) => (
              <ReviewCard key={call.id} call={call} session={session} onDone={() => done(call)} />
            ))}
          </ul>
        )}
      </Section>
      {cursor && (
        <button type="button" class="more" disabled={moreBusy} onClick={loadMore}>
          {moreBusy ? 'Loading…' : `Show ${Math.max(1, Math.min(PAGE, total - items.length))} more`}
        </button>
      )}
    </>
  );
}

function ReviewCard({ call, session, onDone }: { call: ConsoleReviewItemFragment; session: Session; onDone: () => void }) {
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const headingId = `review-${call.id}`;
  const acknowledge = async () => {
    setBusy(true);
    setError(null);
    try {
      await session.api.request(ConsoleAcknowledgeReviewDocument, { toolCallId: call.id, note: note.trim() || null });
      onDone();
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  };
  return (
    <li class="card" aria-labelledby={headingId} data-review-id={call.id}>
      <h3 id={headingId}>
        {call.toolName}.{call.action} <Badge kind={call.status}>{call.status}</Badge>
      </h3>
      <p>{whyOf(call)}</p>
      <p>
        {call.errorCode && <code>{call.errorCode}</code>} Run <a href={`#/runs/${call.runId}`}>{call.runId.slice(0, 8)}</a> · risk{' '}
        {call.riskLevel ?? '—'} · {when(call.createdAt)}
      </p>
      <Json value={call.input} label="Parameters (redacted)" />
      <div class="resolve">
        <label>
          Note
          <input value={note} maxLength={2000} onInput={(e) => setNote((e.target as HTMLInputElement).value)} />
        </label>
        <div class="buttons">
          <button type="button" class="approve" disabled={busy} onClick={acknowledge}>
            Acknowledge
          </button>
        </div>
      </div>
      <ErrorNote error={error} />
    </li>
  );
}
