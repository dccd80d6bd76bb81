import type { RequestContext } from '../graphql/context';
import { requireCaller } from '../graphql/auth-checker';
import { AppError } from '../errors/app-error';
import type { LedgerEvent } from '../ledger/ledger-event.entity';
import type { Realtime } from './realtime';
import { SubscriptionInbox } from './subscription-inbox';
import { recheckAccess } from './subscription-access';
import { cancellable } from './cancellable';

/** What a subscription sends for a ledger event, or null to skip it. */
export type LedgerFilter = (event: LedgerEvent) => unknown | Promise<unknown>;

/** Sequences as bigints, computed once per event for all the subscriptions that see it. */
const sequences = new WeakMap<LedgerEvent, bigint>();
export function sequenceOf(event: LedgerEvent): bigint {
  let sequence = sequences.get(event);
  if (sequence === undefined) {
    sequence = BigInt(event.sequence);
    sequences.set(event, sequence);
  }
  return sequence;
}

/**
 * What a ledger subscription is, for a consumer that delivers it itself rather than by
 * iterating it (the websocket fan-out: src/api/ledger-groups.ts): who asks, from where, and
 * how to build its filter. Iterating the stream instead never looks at it.
 */
export interface LedgerFeed {
  ctx: RequestContext;
  after: bigint | null;
  prepare: () => Promise<LedgerFilter>;
}

const FEED = Symbol('ledger feed');

export function ledgerFeedOf(source: unknown): LedgerFeed | undefined {
  return (source as { [FEED]?: LedgerFeed } | null)?.[FEED];
}

export function realtimeOf(ctx: RequestContext): Realtime {
  return ctx.services.realtime;
}

/**
 * An org's ledger as a subscription: what was persisted after `after` (none when null:
 * live from now on), then live events from this node's ledger tail, each once and in
 * sequence order. The listener is registered before the replay is read, and events are
 * deduplicated by sequence, so nothing falls between the two.
 *
 * The ledger is the buffer: a burst larger than the subscription's queue is re-read from
 * it rather than held in memory. A subscriber more than `maxLagEvents` behind the live
 * head (its client is not reading) is ended with SUBSCRIBER_TOO_SLOW and the sequence to
 * resume after; it never delays other subscribers.
 *
 * Reads use short-lived forks of the ORM (`services.orm.em.fork()`), never the
 * subscription context's own EntityManager, which would live as long as the subscription.
 */
export function ledgerStream(ctx: RequestContext, after: bigint | null, prepare: () => Promise<LedgerFilter>): AsyncIterableIterator<unknown> {
  const realtime = realtimeOf(ctx);
  const { bufferEvents, maxLagEvents } = ctx.services.config.subscriptions;
  const inbox = new SubscriptionInbox<LedgerEvent>(bufferEvents);
  const maxLag = BigInt(maxLagEvents);

  async function* stream() {
    const orgId = requireCaller(ctx).orgId;
    const filter = await prepare();
    await recheckAccess(ctx);
    // The newest sequence handed to the client (or skipped by the filter).
    let last = after ?? 0n;
    // The live head when the listener was registered: lag counts from there (a long replay is not lag).
    let liveFrom: bigint | null = null;
    const registration = await realtime.ledger.listen(orgId, (events) => {
      const head = sequenceOf(events[events.length - 1]);
      if (liveFrom !== null && head - (last > liveFrom ? last : liveFrom) > maxLag) {
        inbox.fail(
          new AppError('SUBSCRIBER_TOO_SLOW', 'The subscriber fell too far behind; subscribe again from the last sequence received', {
            resumeAfterSequence: String(last),
          }),
        );
      } else {
        inbox.push(events);
      }
    });
    liveFrom = registration.delivered;
    if (after === null) last = registration.delivered;
    try {
      // First (and after a dropped burst) from the ledger up to the live head, then from the inbox.
      let fromLedger = after !== null;
      while (!inbox.closed) {
        let events: readonly LedgerEvent[];
        let replaying = false;
        if (fromLedger) {
          const head = realtime.ledger.head(orgId) ?? registration.delivered;
          events = last < head ? await realtime.ledger.read(orgId, last, head) : [];
          replaying = true;
          if (events.length === 0) {
            fromLedger = false;
            continue;
          }
        } else {
          const taken = await inbox.take();
          if (taken === null) return;
          if (taken === 'gap') {
            fromLedger = true;
            continue;
          }
          events = taken;
        }
        for (const event of events) {
          if (inbox.closed) break;
          const sequence = sequenceOf(event);
          if (sequence <= last) continue;
          last = sequence;
          // Awaited only when they are pending: most events need no extra turn of the loop.
          let payload = filter(event);
          if (payload instanceof Promise) payload = await payload;
          if (payload === null || payload === undefined) continue;
          // Live events share one key check per event; a replay checks once a second.
          const check = recheckAccess(ctx, replaying ? undefined : `${orgId}:${event.sequence}`);
          if (check) await check;
          yield payload;
        }
      }
      // A failure (too slow) surfaces here, after what was already sent.
      await inbox.take();
    } finally {
      registration.stop();
      inbox.end();
    }
  }

  // The generator starts on the first next(): a consumer that takes the feed never starts it.
  return Object.assign(
    cancellable(stream(), () => inbox.end()),
    { [FEED]: { ctx, after, prepare } satisfies LedgerFeed },
  );
}
