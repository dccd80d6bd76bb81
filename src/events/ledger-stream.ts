import type { RequestContext } from '../graphql/context';
import type { LedgerEvent } from '../ledger/ledger-event.entity';
import type { Realtime } from './realtime';

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

/**
 * What a ledger subscription is, for its websocket group (src/api/ledger-groups.ts): who
 * asks, from where, and how to build its filter.
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
 * live from now on), then live events, each once and in sequence order. Delivered by its
 * websocket group (src/api/ledger-groups.ts), which takes the feed: replay, the live
 * follow, access re-checks and the slow-consumer bound live there, once. Iterating it
 * instead fails: there is no other transport for subscriptions.
 */
export function ledgerStream(ctx: RequestContext, after: bigint | null, prepare: () => Promise<LedgerFilter>): AsyncIterableIterator<unknown> {
  const feed: LedgerFeed = { ctx, after, prepare };
  const unsupported = async (): Promise<IteratorResult<unknown>> => {
    throw new Error('a ledger subscription is delivered by its websocket group, not iterated');
  };
  return {
    [FEED]: feed,
    next: unsupported,
    return: async () => ({ value: undefined, done: true }),
    [Symbol.asyncIterator]() {
      return this;
    },
  } as AsyncIterableIterator<unknown>;
}
