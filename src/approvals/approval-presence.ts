import { randomUUID } from 'node:crypto';
import type { Role } from '../auth/roles';
import { cancellable } from '../events/cancellable';

/** One open view of an approval: a key's name and role, never its secret or id. */
export interface PresenceViewer {
  /** This view's own id (one per subscription: two tabs of one key are two views). */
  id: string;
  name: string;
  role: Role;
}

/** What a watcher is sent: everyone looking at the approval now, `you` marking its own view. */
export interface PresenceSnapshot {
  approvalId: string;
  viewers: { name: string; role: Role; you: boolean }[];
}

/**
 * Who has an approval open, on this node. A view is an open `approvalPresence`
 * subscription: it joins when the subscription starts and leaves when it ends (the client
 * closed it, or its socket went away). Rooms are keyed by org and approval, so another
 * org's key can never join or see a room. Kept per node, not shared through the event bus:
 * reviewers served by different nodes do not see each other (README, "Console").
 */
export class ApprovalPresence {
  private readonly rooms = new Map<string, Map<string, PresenceViewer>>();
  private readonly watchers = new Map<string, Set<() => void>>();

  /** Counts a view of the approval until the answered function is called. */
  join(orgId: string, approvalId: string, viewer: Omit<PresenceViewer, 'id'>): { id: string; leave: () => void } {
    const room = roomOf(orgId, approvalId);
    const id = randomUUID();
    const viewers = this.rooms.get(room) ?? new Map<string, PresenceViewer>();
    this.rooms.set(room, viewers.set(id, { ...viewer, id }));
    this.changed(room);
    return {
      id,
      leave: () => {
        if (!viewers.delete(id)) return;
        if (viewers.size === 0) this.rooms.delete(room);
        this.changed(room);
      },
    };
  }

  viewers(orgId: string, approvalId: string): PresenceViewer[] {
    return [...(this.rooms.get(roomOf(orgId, approvalId))?.values() ?? [])];
  }

  /** Calls `listener` after each join or leave of the approval's room; answers the unwatch. */
  watch(orgId: string, approvalId: string, listener: () => void): () => void {
    const room = roomOf(orgId, approvalId);
    const set = this.watchers.get(room) ?? new Set();
    this.watchers.set(room, set.add(listener));
    return () => {
      set.delete(listener);
      if (set.size === 0) this.watchers.delete(room);
    };
  }

  private changed(room: string): void {
    for (const listener of this.watchers.get(room) ?? []) listener();
  }
}

const roomOf = (orgId: string, approvalId: string): string => `${orgId}:${approvalId}`;

/**
 * A view of an approval as a subscription source: joins the room, sends who is looking at
 * once and after every change (changes that come together are sent once), and leaves when
 * the subscription ends. `beforeEach` runs before each snapshot is sent (the key's access
 * re-check); what it throws ends the subscription.
 */
export function presenceStream(
  presence: ApprovalPresence,
  orgId: string,
  approvalId: string,
  viewer: Omit<PresenceViewer, 'id'>,
  beforeEach: () => void | Promise<void>,
): AsyncIterableIterator<PresenceSnapshot> {
  let dirty = true;
  let ended = false;
  let wake: (() => void) | null = null;
  const unwatch = presence.watch(orgId, approvalId, () => {
    dirty = true;
    wake?.();
  });
  const self = presence.join(orgId, approvalId, viewer);
  async function* snapshots(): AsyncGenerator<PresenceSnapshot> {
    try {
      while (!ended) {
        if (!dirty) await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
        if (ended) return;
        dirty = false;
        await beforeEach();
        const viewers = presence.viewers(orgId, approvalId).map((v) => ({ name: v.name, role: v.role, you: v.id === self.id }));
        yield { approvalId, viewers };
      }
    } finally {
      unwatch();
      self.leave();
    }
  }
  return cancellable(snapshots(), () => {
    ended = true;
    wake?.();
    // A generator never started runs no finally: leave here too (leave is idempotent).
    unwatch();
    self.leave();
  });
}
