import type { SocketWriter } from './socket-writer';
import { AppError } from '../errors/app-error';
import { requireCaller } from '../graphql/auth-checker';
import type { LedgerEvent } from '../ledger/ledger-event.entity';
import { realtimeOf, sequenceOf, type LedgerFeed, type LedgerFilter } from '../events/ledger-stream';
import { recheckAccess } from '../events/subscription-access';
import { SubscriptionInbox } from '../events/subscription-inbox';
import type { Realtime } from '../events/realtime';
import type { RequestContext } from '../graphql/context';
import type { Config } from '../config';

declare module '../graphql/context' {
  interface RequestServices {
    config: Config;
  }
}

/**
 * Ledger subscriptions over websockets, delivered by group. A group (one org and role, the
 * same operation and arguments, the resume position aside: src/api/subscription-fanout.ts)
 * follows the org's ledger once; for each event it runs the filter once, executes and
 * serializes the result once, checks each of its members' keys once, then writes the same
 * JSON text to every member's socket as a graphql-ws `next` frame in which only the
 * subscription id differs: a synchronous loop, no per-subscriber async pipeline.
 *
 * A member that resumes from an earlier sequence first replays the ledger on its own (each
 * frame awaited, so a client that does not read holds only its own replay) until it has
 * reached what the group has delivered, then joins the live loop in the same tick: no gap,
 * nothing twice. Per subscription the protocol is graphql-ws's own: completion by either
 * side, an `error` frame ending it (access lost, SUBSCRIBER_TOO_SLOW), frames in sequence
 * order. A member whose socket has more than SUBSCRIPTION_MAX_LAG_EVENTS frames queued (its
 * client stopped reading) ends with SUBSCRIBER_TOO_SLOW and the sequence to resume after;
 * the frames already queued still reach the client before the error.
 */

/** Where a websocket subscription's frames go: its socket and the id its client gave it. */
export interface SubscriptionSink {
  writer: SocketWriter;
  id: string;
}

/** The group's JSON text of the result for one event: executed and serialized once per group. */
export type GroupExecution = (sequence: bigint, payload: unknown) => string | Promise<string>;

/** Counts shared with the fan-out's (frames written from a group's shared text). */
export interface SendCounter {
  sharedSends: number;
}

const REPLAY_PAGE = 500;
const DONE: IteratorResult<never> = { value: undefined as never, done: true };

const groups = new Map<string, LedgerGroup>();

/** Ledger subscriptions on this node that receive live events (for tests). */
export function liveLedgerMembers(): number {
  let live = 0;
  for (const group of groups.values()) live += group.liveMembers();
  return live;
}

/**
 * Starts a member of the group `key` for a websocket subscription; the returned iterator
 * yields nothing (the group writes the frames) and settles when the subscription ends: done
 * when completed, rejected with the error that ended it.
 */
export function joinLedgerGroup(options: {
  key: string;
  feed: LedgerFeed;
  sink: SubscriptionSink;
  /** Made once, by the group's first member (members hold no closure of their own). */
  execution: () => GroupExecution;
  counter: SendCounter;
  closed?: () => void;
}): AsyncIterableIterator<never> {
  const member = new Member(options.sink, options.feed, options.counter, options.closed);
  void member.start(options.key, options.feed.prepare, options.execution);
  return member;
}

class Member implements AsyncIterableIterator<never> {
  /** The newest sequence written to the socket (or skipped by the filter). */
  last = 0n;
  live = false;
  readonly keyId: string;
  private readonly prefix: string;
  private readonly prefixBytes: number;
  private readonly maxLag: number;
  private group: LedgerGroup | null = null;
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
    // graphql-ws's own frame: {"id":…,"type":"next","payload":…}, byte for byte.
    this.prefix = `{"id":${JSON.stringify(sink.id)},"type":"next","payload":`;
    this.prefixBytes = Buffer.byteLength(this.prefix);
    this.ctx = feed.ctx;
    this.after = feed.after;
    this.keyId = requireCaller(feed.ctx).keyId ?? '';
    this.maxLag = feed.ctx.services.config.subscriptions.maxLagEvents;
  }

  async start(key: string, prepare: LedgerFeed['prepare'], execution: () => GroupExecution): Promise<void> {
    try {
      const { ctx, after } = this;
      const filter = await prepare();
      await recheckAccess(ctx);
      if (this.ended) return;
      const group = LedgerGroup.join(key, ctx, filter, execution);
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

  /** A live event's frame (the group's loop); a member behind it or already past it is skipped. */
  deliver(sequence: bigint, json: string, jsonBytes: number): void {
    if (this.ended || sequence <= this.last) return;
    const { writer } = this.sink;
    // A closing socket: graphql-ws ends its subscriptions (return()) with it.
    if (!writer.open) return;
    writer.write(`${this.prefix}${json}}`, this.prefixBytes + jsonBytes + 1);
    this.sent(sequence);
    // Past the bound, the client is not reading its socket.
    if (writer.queuedMessages() > this.maxLag) this.fail(tooSlow(this.last));
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
  private async replay(group: LedgerGroup, filter: LedgerFilter): Promise<void> {
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

/**
 * One group's follower of the org's ledger: a bounded inbox (past SUBSCRIPTION_BUFFER_EVENTS
 * it re-reads the gap from the ledger) and one loop that hands each event to every live member.
 */
class LedgerGroup {
  /** The newest sequence handed to the live members (or skipped by the filter). */
  delivered = 0n;
  readonly ready: Promise<void>;
  private readonly members = new Set<Member>();
  /** Each key of the members once (with a context to check it with) and how many members use it. */
  private readonly keys = new Map<string, { ctx: RequestContext; members: number }>();
  private readonly inbox: SubscriptionInbox<LedgerEvent>;
  private readonly realtime: Realtime;
  private readonly orgId: string;
  private stop: (() => void) | null = null;
  private closed = false;

  static join(key: string, ctx: RequestContext, filter: LedgerFilter, execution: () => GroupExecution): LedgerGroup {
    let group = groups.get(key);
    if (!group) {
      group = new LedgerGroup(key, ctx, filter, execution());
      groups.set(key, group);
    }
    return group;
  }

  private constructor(
    private readonly key: string,
    ctx: RequestContext,
    private readonly filter: LedgerFilter,
    readonly execute: GroupExecution,
  ) {
    this.realtime = realtimeOf(ctx);
    this.orgId = requireCaller(ctx).orgId;
    this.inbox = new SubscriptionInbox<LedgerEvent>(ctx.services.config.subscriptions.bufferEvents);
    this.ready = this.realtime.ledger
      .listen(this.orgId, (events) => this.inbox.push(events))
      .then((registration) => {
        this.stop = registration.stop;
        this.delivered = registration.delivered;
        if (this.closed) registration.stop();
        else void this.run();
      })
      .catch((error: unknown) => {
        this.close();
        throw error;
      });
    // Its members see the failure; with none left by then, nobody else waits on it.
    this.ready.catch(() => undefined);
  }

  liveMembers(): number {
    let live = 0;
    for (const member of this.members) if (member.live) live++;
    return live;
  }

  add(member: Member): void {
    this.members.add(member);
    const entry = this.keys.get(member.keyId);
    if (entry) entry.members++;
    else this.keys.set(member.keyId, { ctx: member.ctx, members: 1 });
  }

  remove(member: Member): void {
    if (!this.members.delete(member)) return;
    const entry = this.keys.get(member.keyId);
    if (entry && --entry.members === 0) this.keys.delete(member.keyId);
    if (this.members.size === 0) this.close();
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    if (groups.get(this.key) === this) groups.delete(this.key);
    this.inbox.end();
    this.stop?.();
  }

  private async run(): Promise<void> {
    try {
      let fromLedger = false;
      while (!this.inbox.closed) {
        let events: readonly LedgerEvent[];
        if (fromLedger) {
          const head = this.realtime.ledger.head(this.orgId) ?? this.delivered;
          events = this.delivered < head ? await this.realtime.ledger.read(this.orgId, this.delivered, head) : [];
          if (events.length === 0) {
            fromLedger = false;
            continue;
          }
        } else {
          const taken = await this.inbox.take();
          if (taken === null) return;
          if (taken === 'gap') {
            fromLedger = true;
            continue;
          }
          events = taken;
        }
        for (const event of events) {
          if (this.closed) return;
          const sequence = sequenceOf(event);
          if (sequence <= this.delivered) continue;
          let payload = this.filter(event);
          if (payload instanceof Promise) payload = await payload;
          if (payload !== null && payload !== undefined) {
            let json = this.execute(sequence, payload);
            if (typeof json !== 'string') json = await json;
            let refused = this.checkKeys(sequence);
            if (refused instanceof Promise) refused = await refused;
            const jsonBytes = Buffer.byteLength(json);
            for (const member of this.members) {
              if (!member.live) {
                member.behind(sequence);
                continue;
              }
              const refusal = refused?.get(member.keyId);
              if (refusal) member.fail(refusal.error);
              else member.deliver(sequence, json, jsonBytes);
            }
          }
          this.delivered = sequence;
        }
      }
    } catch (error) {
      // The filter, the execution or a ledger read failed: every member ends with it, as each would have alone.
      for (const member of [...this.members]) member.fail(error);
      this.close();
    }
  }

  /** Each member key checked once for the event (shared with other groups); the keys refused, if any. */
  private checkKeys(sequence: bigint): Refusals | Promise<Refusals> {
    let refused: Refusals = null;
    let pending: Promise<void>[] | null = null;
    const refuse = (keyId: string, error: unknown) => {
      refused ??= new Map();
      refused.set(keyId, { error });
    };
    const slot = `${this.orgId}:${sequence}`;
    for (const [keyId, { ctx }] of this.keys) {
      try {
        const check = recheckAccess(ctx, slot);
        if (check) (pending ??= []).push(check.catch((error: unknown) => refuse(keyId, error)));
      } catch (error) {
        refuse(keyId, error);
      }
    }
    if (!pending) return refused;
    return Promise.all(pending).then(() => refused);
  }
}

type Refusals = Map<string, { error: unknown }> | null;

function tooSlow(last: bigint): AppError {
  return new AppError('SUBSCRIBER_TOO_SLOW', 'The subscriber fell too far behind; subscribe again from the last sequence received', {
    resumeAfterSequence: String(last),
  });
}
