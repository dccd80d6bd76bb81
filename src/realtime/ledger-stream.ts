import type { RequestContext } from '../graphql/context';
import type { LedgerEvent } from '../ledger/ledger-event.entity';
import { requireCaller } from '../graphql/auth-checker';
import type { Realtime } from './realtime';
import { cancellable } from './cancellable';
import { recheckAccess } from './subscription-access';
import { SubscriptionInbox } from './subscription-inbox';

declare module '../graphql/context' {
  interface RequestServices {
    realtime: Realtime;
  }
}

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

export function realtimeOf(ctx: RequestContext): Realtime {
  return ctx.services.realtime;
}

const REPLAY_PAGE = 500;

/**
 * An org's ledger as a subscription: what was persisted after `after` (none when null:
 * live from now on), then live events, each once and in sequence order. Over a websocket,
 * the subscription's group takes the feed (src/realtime/ledger-groups.ts): replay, the live
 * follow, access re-checks and the slow-consumer bound live there, once per group.
 * Iterated on its own, it follows the ledger for this one subscriber.
 */
export class LedgerFeed implements AsyncIterable<unknown> {
  constructor(
    readonly ctx: RequestContext,
    readonly after: bigint | null,
    readonly prepare: () => Promise<LedgerFilter>,
  ) {}

  [Symbol.asyncIterator](): AsyncIterableIterator<unknown> {
    const inbox = new SubscriptionInbox<LedgerEvent>(this.ctx.services.config.subscriptions.bufferEvents);
    return cancellable(follow(this, inbox), () => inbox.end());
  }
}

export function ledgerStream(ctx: RequestContext, after: bigint | null, prepare: () => Promise<LedgerFilter>): LedgerFeed {
  return new LedgerFeed(ctx, after, prepare);
}

/** One subscriber's follow: replay up to the live head, then the live events (a gap in the inbox is re-read). */
async function* follow(feed: LedgerFeed, inbox: SubscriptionInbox<LedgerEvent>): AsyncGenerator<unknown> {
  const { ctx } = feed;
  const filter = await feed.prepare();
  await recheckAccess(ctx);
  const orgId = requireCaller(ctx).orgId;
  const { ledger } = realtimeOf(ctx);
  const registration = await ledger.listen(orgId, (events) => inbox.push(events));
  try {
    let last = feed.after ?? registration.delivered;
    let fromLedger = last < registration.delivered;
    while (!inbox.closed) {
      let events: readonly LedgerEvent[];
      if (fromLedger) {
        const head = ledger.head(orgId) ?? registration.delivered;
        events = last < head ? await ledger.read(orgId, last, head, REPLAY_PAGE) : [];
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
        const sequence = sequenceOf(event);
        if (sequence <= last) continue;
        let payload = filter(event);
        if (payload instanceof Promise) payload = await payload;
        last = sequence;
        if (payload === null || payload === undefined) continue;
        const check = recheckAccess(ctx);
        if (check) await check;
        yield payload;
      }
    }
  } finally {
    registration.stop();
    inbox.end();
  }
}
