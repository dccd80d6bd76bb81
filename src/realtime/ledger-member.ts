import { AppError } from '../errors/app-error';
import { requireCaller } from '../graphql/auth-checker';
import type { RequestContext } from '../graphql/context';
import { realtimeOf, sequenceOf, type LedgerFeed, type LedgerFilter } from './ledger-stream';
import { recheckAccess } from './subscription-access';
import { GraphQLWsConnection } from './graphql-ws-server';
import type { SocketWriter } from './socket-writer';

/**
 * One websocket subscription of a ledger group (src/realtime/ledger-groups.ts): its replay, its
 * frames, its slow-consumer bound. As graphql-ws's operation result it yields nothing (the
 * group writes its frames) and settles when the subscription ends: done when completed,
 * rejected with the error that ended it (graphql-ws then sends the `error` message).
 */

/** Where a websocket subscription's frames go: its socket and the id its client gave it. */
export interface SubscriptionSink {
  writer: SocketWriter;
  id: string;
}

/** The group as a member sees it. */
export interface MemberGroup {
  /** The newest sequence handed to the live members (or skipped by the filter). */
  readonly delivered: bigint;
  readonly ready: Promise<void>;
  add(member: LedgerMember): void;
  remove(member: LedgerMember): void;
  /** The group's JSON text of an event's result: executed and serialized once per group. */
  execute(sequence: bigint, payload: unknown): string | Promise<string>;
}

/** Counts shared with the fan-out's (frames written from a group's shared text). */
export interface SendCounter {
  sharedSends: number;
}

/** A live event as the group hands it to its members: the group's JSON and the keys refused for it. */
export interface LiveFrame {
  sequence: bigint;
  json: string;
  jsonBytes: number;
  refused: Refusals;
}

/** Keys that may no longer receive an event, with the error that ends their subscriptions. */
export type Refusals = Map<string, { error: unknown }> | null;

const REPLAY_PAGE = 500;
/** Frames written in one corked run at most (two buffers each: well within a `writev`'s limit). */
const MAX_CORKED = 128;
const DONE: IteratorResult<never> = { value: undefined as never, done: true };

export class LedgerMember implements AsyncIterableIterator<never> {
  /** The newest sequence written to the socket (or skipped by the filter). */
  last = 0n;
  live = false;
  readonly keyId: string;
  private readonly prefix: string;
  private readonly prefixBytes: number;
  private readonly maxLag: number;
  private group: MemberGroup | null = null;
  private ended = false;
  private failure: { error: unknown } | null = null;
  private waiting: { resolve: (result: IteratorResult<never>) => void; reject: (error: unknown) => void } | null = null;

  readonly ctx: RequestContext;
  private readonly after: bigint | null;
  /** The group's head when this member's replay began (null: live, or not replaying). */
  private replayFrom: bigint | null = null;

  constructor(
    private readonly sink: SubscriptionSink,
    feed: LedgerFeed,
    private readonly counter: SendCounter,
    private closed?: () => void,
  ) {
    // graphql-ws's own `next` message, made by graphql-ws: only the result's JSON follows.
    this.prefix = GraphQLWsConnection.nextPrefix(sink.id);
    this.prefixBytes = Buffer.byteLength(this.prefix);
    this.ctx = feed.ctx;
    this.after = feed.after;
    this.keyId = requireCaller(feed.ctx).keyId ?? '';
    this.maxLag = feed.ctx.services.config.subscriptions.maxLagEvents;
  }

  /** Joins the group (`join`, given this member's filter), then replays up to it or goes live at once. */
  async start(prepare: LedgerFeed['prepare'], join: (filter: LedgerFilter) => MemberGroup): Promise<void> {
    try {
      const { ctx, after } = this;
      const filter = await prepare();
      await recheckAccess(ctx);
      if (this.ended) return;
      const group = join(filter);
      this.group = group;
      group.add(this);
      await group.ready;
      if (this.ended) return;
      if (after === null || after >= group.delivered) {
        this.last = after ?? group.delivered;
        this.live = true;
        return;
      }
      this.last = after;
      await this.replay(group, filter);
    } catch (error) {
      this.fail(error);
    }
  }

  /**
   * Live events' frames (the group's loop), in order; those behind this member are skipped.
   * Several go out corked, one `writev` for all of them, as long as they cannot pass the
   * slow-consumer bound: with `queued` messages in the socket, `maxLag − queued` more frames
   * can be written before the check below could fire, so it ends the subscription at the
   * same frame as writing them one by one would.
   */
  deliver(frames: readonly LiveFrame[]): void {
    const { writer } = this.sink;
    /** Frames still to write in the current corked run (0: not corked). */
    let corked = 0;
    for (let i = 0; i < frames.length; i++) {
      const { sequence, json, jsonBytes, refused } = frames[i];
      if (this.ended) break;
      if (sequence <= this.last) continue;
      // A closing socket: graphql-ws ends its subscriptions (return()) with it.
      if (!writer.open) break;
      const refusal = refused?.get(this.keyId);
      if (refusal) {
        this.fail(refusal.error);
        break;
      }
      if (corked === 0 && i + 1 < frames.length && writer.corkable) {
        corked = Math.min(frames.length - i, MAX_CORKED, this.maxLag - writer.queuedMessages());
        if (corked > 1) writer.cork();
        else corked = 0;
      }
      writer.write(`${this.prefix}${json}}`, this.prefixBytes + jsonBytes + 1);
      this.sent(sequence);
      if (corked > 0) {
        if (--corked === 0) writer.uncork();
        continue;
      }
      // Past the bound, the client is not reading its socket.
      if (writer.queuedMessages() > this.maxLag) {
        this.fail(tooSlow(this.last));
        break;
      }
    }
    if (corked > 0) writer.uncork();
  }

  /**
   * While it replays, a member whose client stopped reading waits on its socket: once the
   * group's head is more than SUBSCRIPTION_MAX_LAG_EVENTS past both where its replay began
   * and what it has sent, it ends with SUBSCRIBER_TOO_SLOW (a long replay alone is not lag).
   */
  behind(head: bigint): void {
    if (this.replayFrom === null) return;
    let reached = this.replayFrom; // bigints: no Math.max
    if (this.last > reached) reached = this.last;
    if (head - reached > BigInt(this.maxLag)) this.fail(tooSlow(this.last));
  }

  /** From the ledger, up to what the group has delivered; then live, in the same tick. */
  private async replay(group: MemberGroup, filter: LedgerFilter): Promise<void> {
    const { ctx } = this;
    this.replayFrom = group.delivered;
    const orgId = requireCaller(ctx).orgId;
    const realtime = realtimeOf(ctx);
    for (;;) {
      if (this.ended) return;
      const target = group.delivered;
      if (this.last >= target) {
        this.live = true;
        this.replayFrom = null;
        return;
      }
      const events = await realtime.ledger.read(orgId, this.last, target, REPLAY_PAGE);
      for (const event of events) {
        if (this.ended) return;
        const sequence = sequenceOf(event);
        if (sequence <= this.last) continue;
        let payload = filter(event);
        if (payload instanceof Promise) payload = await payload;
        if (payload !== null && payload !== undefined) {
          // A replay checks the key once a second (shared by the key's subscriptions).
          const check = recheckAccess(ctx);
          if (check) await check;
          let json = group.execute(sequence, payload);
          if (typeof json !== 'string') json = await json;
          if (!(await this.sendAwaited(sequence, json, Buffer.byteLength(json)))) return;
        }
        this.last = sequence;
      }
      // A short page read everything up to the target.
      if (events.length < REPLAY_PAGE && this.last < target) this.last = target;
    }
  }

  /** A replayed frame, written when the socket has taken the previous one (the client's pace). */
  private sendAwaited(sequence: bigint, json: string, jsonBytes: number): Promise<boolean> {
    const { writer } = this.sink;
    if (this.ended || !writer.open) return Promise.resolve(false);
    const sent = new Promise<boolean>((resolve) =>
      writer.write(`${this.prefix}${json}}`, this.prefixBytes + jsonBytes + 1, (error) => resolve(!error && !this.ended)),
    );
    // Queued in the socket, it reaches the client before any error frame: counted as sent.
    this.sent(sequence);
    return sent;
  }

  private sent(sequence: bigint): void {
    this.last = sequence;
    this.counter.sharedSends++;
  }

  /** Ends the subscription with `error` (an `error` frame, after the frames already written). */
  fail(error: unknown): void {
    if (this.ended) return;
    this.finish();
    const waiting = this.waiting;
    this.waiting = null;
    if (waiting) waiting.reject(error);
    else this.failure = { error };
  }

  private finish(): void {
    this.ended = true;
    this.live = false;
    this.group?.remove(this);
    this.group = null;
    const closed = this.closed;
    this.closed = undefined;
    closed?.();
  }

  next(): Promise<IteratorResult<never>> {
    if (this.failure) {
      const { error } = this.failure;
      this.failure = null;
      return Promise.reject(error);
    }
    if (this.ended) return Promise.resolve(DONE);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  /** The client completed the subscription, or its socket closed. */
  return(): Promise<IteratorResult<never>> {
    if (!this.ended) this.finish();
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.resolve(DONE);
    return Promise.resolve(DONE);
  }

  throw(error?: unknown): Promise<IteratorResult<never>> {
    void this.return();
    return Promise.reject(error);
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<never> {
    return this;
  }
}

function tooSlow(last: bigint): AppError {
  return new AppError('SUBSCRIBER_TOO_SLOW', 'The subscriber fell too far behind; subscribe again from the last sequence received', {
    resumeAfterSequence: String(last),
  });
}
