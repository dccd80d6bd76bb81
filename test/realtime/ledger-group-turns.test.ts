import type { RequestContext } from '../../src/graphql/context';
import type { LedgerEvent } from '../../src/ledger/ledger-event.entity';
import { LedgerGroup } from '../../src/realtime/ledger-group';
import type { LedgerMember, LiveFrame } from '../../src/realtime/ledger-member';

/**
 * A group's fan-out yields to the event loop between slices of its members. A member that
 * was replaying when its turn came, and turns live during a later slice, must not miss the
 * batch: it replays up to what the group has delivered, which already includes the batch.
 */

/** The part of a member the group uses, recording what it was given. */
class FakeMember {
  live: boolean;
  last = 0n;
  readonly keyId = '';
  readonly ctx: RequestContext;
  readonly frames: bigint[] = [];
  /** For a replaying member: what `delivered` said when it turned live. */
  wentLiveAt: bigint | null = null;

  constructor(
    ctx: RequestContext,
    live: boolean,
    private readonly group: () => LedgerGroup,
  ) {
    this.ctx = ctx;
    this.live = live;
  }

  deliver(frames: readonly LiveFrame[]): void {
    for (const f of frames) {
      if (f.sequence <= this.last) continue;
      this.frames.push(f.sequence);
      this.last = f.sequence;
    }
  }

  /** Its turn came while it replayed: it finishes its replay in a later turn and goes live (as LedgerMember.replay does). */
  behind(): void {
    setImmediate(() => {
      const target = this.group().delivered;
      this.wentLiveAt = target;
      this.last = target;
      this.live = true;
    });
  }

  fail(error: unknown): void {
    throw error;
  }
}

test('a member that turns live while a fan-out yields has replayed up to the end of the batch being delivered', async () => {
  let push!: (events: LedgerEvent[]) => void;
  const ctx = {
    caller: { orgId: 'org-1', role: 'expert' },
    services: {
      config: { subscriptions: { bufferEvents: 100, maxLagEvents: 1000 } },
      realtime: {
        ledger: {
          listen: async (_orgId: string, listener: (events: LedgerEvent[]) => void) => {
            push = listener;
            return { delivered: 0n, stop: () => undefined };
          },
          head: () => null,
          read: async () => [],
        },
      },
    },
  } as unknown as RequestContext;
  const groups = new Map<string, LedgerGroup>();
  const group = LedgerGroup.join(
    groups,
    'g',
    ctx,
    (event) => event,
    () => (sequence) => JSON.stringify({ data: { sequence: String(sequence) } }),
  );
  const replaying = new FakeMember(ctx, false, () => group);
  const live = Array.from({ length: 600 }, () => new FakeMember(ctx, true, () => group));
  for (const member of [replaying, ...live]) group.add(member as unknown as LedgerMember);
  await group.ready;

  // One event: 601 members, several turns of the event loop.
  push([{ sequence: '1' } as unknown as LedgerEvent]);
  await new Promise<void>((resolve) => {
    const check = () => (live.every((m) => m.frames.length === 1) ? resolve() : setImmediate(check));
    check();
  });
  expect(replaying.wentLiveAt).toBe(1n);
  expect(group.delivered).toBe(1n);

  // And it gets the next one live.
  push([{ sequence: '2' } as unknown as LedgerEvent]);
  await new Promise<void>((resolve) => {
    const check = () => (replaying.frames.length === 1 && live.every((m) => m.frames.length === 2) ? resolve() : setImmediate(check));
    check();
  });
  expect(replaying.frames).toEqual([2n]);
  for (const member of live) expect(member.frames).toEqual([1n, 2n]);
});
