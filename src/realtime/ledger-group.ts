import type { LedgerEvent } from '../ledger/ledger-event.entity';
import { requireCaller } from '../graphql/auth-checker';
import type { RequestContext } from '../graphql/context';
import { realtimeOf, sequenceOf, type LedgerFilter } from './ledger-stream';
import { recheckAccess } from './subscription-access';
import { SubscriptionInbox } from './subscription-inbox';
import type { Realtime } from './realtime';
import type { LedgerMember, MemberGroup } from './ledger-member';
import type { Config } from '../config';

declare module '../graphql/context' {
  interface RequestServices {
    config: Config;
  }
}

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
