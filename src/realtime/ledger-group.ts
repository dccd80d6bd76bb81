import type { LedgerEvent } from '../ledger/ledger-event.entity';
import { requireCaller } from '../graphql/auth-checker';
import type { RequestContext } from '../graphql/context';
import { realtimeOf, sequenceOf, type LedgerFilter } from './ledger-stream';
import { recheckAccess } from './subscription-access';
import { SubscriptionInbox } from './subscription-inbox';
import type { Realtime } from './realtime';
import type { LedgerMember, LiveFrame, MemberGroup, Refusals } from './ledger-member';
import type { Config } from '../config';

declare module '../graphql/context' {
  interface RequestServices {
    config: Config;
  }
}

/** At most this many events' frames are made before the members get them (the first event's latency stays short). */
const MAX_BATCH = 128;

/**
 * Frames written to sockets between two turns of the event loop, about 1 ms of work: the
 * commits and reads of the events that follow go on meanwhile, and those events then reach
 * the members as one batch (in the bench's bursts, 2–8 events instead of 1).
 */
const FRAMES_PER_TURN = 128;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The group's JSON text of the result for one event: executed and serialized once per group. */
export type GroupExecution = (sequence: bigint, payload: unknown) => string | Promise<string>;

/**
 * One group's follower of the org's ledger: a bounded inbox (past SUBSCRIPTION_BUFFER_EVENTS
 * it re-reads the gap from the ledger) and one loop that hands each event to every live member.
 */
export class LedgerGroup implements MemberGroup {
  /** The newest sequence handed to the live members (or skipped by the filter). */
  delivered = 0n;
  readonly ready: Promise<void>;
  private readonly members = new Set<LedgerMember>();
  /** Each key of the members once (with a context to check it with) and how many members use it. */
  private readonly keys = new Map<string, { ctx: RequestContext; members: number }>();
  private readonly inbox: SubscriptionInbox<LedgerEvent>;
  private readonly realtime: Realtime;
  private readonly orgId: string;
  private stop: (() => void) | null = null;
  private closed = false;

  /** The group `key` of `groups`, made (with its execution) by its first member. */
  static join(
    groups: Map<string, LedgerGroup>,
    key: string,
    ctx: RequestContext,
    filter: LedgerFilter,
    execution: () => GroupExecution,
  ): LedgerGroup {
    let group = groups.get(key);
    if (!group) {
      group = new LedgerGroup(groups, key, ctx, filter, execution());
      groups.set(key, group);
    }
    return group;
  }

  private constructor(
    private readonly groups: Map<string, LedgerGroup>,
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

  add(member: LedgerMember): void {
    this.members.add(member);
    const entry = this.keys.get(member.keyId);
    if (entry) entry.members++;
    else this.keys.set(member.keyId, { ctx: member.ctx, members: 1 });
  }

  remove(member: LedgerMember): void {
    if (!this.members.delete(member)) return;
    const entry = this.keys.get(member.keyId);
    if (entry && --entry.members === 0) this.keys.delete(member.keyId);
    if (this.members.size === 0) this.close();
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.groups.get(this.key) === this) this.groups.delete(this.key);
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
        // The batch's frames are made first (each event executed, serialized and its keys
        // checked once), then each member gets all of them in one go (src/realtime/ledger-member.ts).
        let frames: LiveFrame[] = [];
        let upTo = this.delivered;
        try {
          for (const event of events) {
            if (this.closed) return;
            const sequence = sequenceOf(event);
            if (sequence <= upTo) continue;
            let payload = this.filter(event);
            if (payload instanceof Promise) payload = await payload;
            if (payload !== null && payload !== undefined) {
              let json = this.execute(sequence, payload);
              if (typeof json !== 'string') json = await json;
              let refused = this.checkKeys(sequence);
              if (refused instanceof Promise) refused = await refused;
              frames.push({ sequence, json, jsonBytes: Buffer.byteLength(json), refused });
            }
            upTo = sequence;
            if (frames.length === MAX_BATCH) {
              await this.deliver(frames, upTo);
              frames = [];
            }
          }
        } finally {
          // What was made before a failure is delivered first, as it would have been one by one.
          await this.deliver(frames, upTo);
        }
      }
    } catch (error) {
      // The filter, the execution or a ledger read failed: every member ends with it, as each would have alone.
      for (const member of [...this.members]) member.fail(error);
      this.close();
    }
  }

  /**
   * The frames to every live member, in order, yielding to the event loop after every
   * FRAMES_PER_TURN frames: a fan-out to thousands of sockets does not hold up other work,
   * and events committed meanwhile reach the members as one batch (corked: one write each).
   * `delivered` moves first, so that a member replaying from the ledger meanwhile replays
   * up to the batch's end itself if its turn here has passed (one that has not gets the
   * frames it has not sent yet: `deliver` skips the others).
   */
  private async deliver(frames: readonly LiveFrame[], upTo: bigint): Promise<void> {
    if (upTo > this.delivered) this.delivered = upTo;
    if (frames.length === 0) return;
    const head = frames[frames.length - 1].sequence;
    let budget = FRAMES_PER_TURN;
    for (const member of this.members) {
      if (this.closed) return;
      if (member.live) member.deliver(frames);
      else member.behind(head);
      budget -= frames.length;
      if (budget <= 0) {
        budget = FRAMES_PER_TURN;
        await nextTurn();
      }
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
