import { randomUUID } from 'node:crypto';
import type { Role } from '../auth/roles';
import { cancellable } from '../realtime/cancellable';

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

/** A view as nodes tell each other of it (approval-presence-relay.ts): ids, a name and a role, never a key's id or secret. */
export interface PresenceView extends PresenceViewer {
  orgId: string;
  approvalId: string;
}

/**
 * Who has an approval open, across the nodes. A view is an open `approvalPresence`
 * subscription: it joins when the subscription starts and leaves when it ends (the client
 * closed it, or its socket went away). This node's views are told to the relay
 * (`onLocalChange`), which announces them on the event bus; the views other nodes announce
 * are added here by the relay (`addRemote`, `removeRemote`), and dropped by it when their node
 * stops heartbeating. Rooms are keyed by org and approval, so another org's key can never
 * join or see a room.
 */
export class ApprovalPresence {
  private readonly rooms = new Map<string, Map<string, PresenceViewer>>();
  private readonly watchers = new Map<string, Set<() => void>>();
  private readonly local = new Map<string, PresenceView>();
  private readonly localListeners = new Set<(change: 'join' | 'leave', view: PresenceView) => void>();

  /** Counts a view of the approval until the answered function is called. */
  join(orgId: string, approvalId: string, viewer: Omit<PresenceViewer, 'id'>): { id: string; leave: () => void } {
    const view: PresenceView = { ...viewer, id: randomUUID(), orgId, approvalId };
    this.local.set(view.id, view);
    this.add(view);
    for (const listener of this.localListeners) listener('join', view);
    return {
      id: view.id,
      leave: () => {
        if (!this.local.delete(view.id)) return;
        this.remove(view);
        for (const listener of this.localListeners) listener('leave', view);
      },
    };
  }

  viewers(orgId: string, approvalId: string): PresenceViewer[] {
    return [...(this.rooms.get(roomOf(orgId, approvalId))?.values() ?? [])];
  }

  /** This node's own open views (what it announces to the others). */
  localViews(): PresenceView[] {
    return [...this.local.values()];
  }

  /** Calls `listener` after each join or leave of a view on this node; answers the unregistration. */
  onLocalChange(listener: (change: 'join' | 'leave', view: PresenceView) => void): () => void {
    this.localListeners.add(listener);
    return () => this.localListeners.delete(listener);
  }

  /** A view open on another node (idempotent). */
  addRemote(view: PresenceView): void {
    if (!this.local.has(view.id)) this.add(view);
  }

  /** A view of another node that closed, or whose node went silent (idempotent). */
  removeRemote(view: PresenceView): void {
    if (!this.local.has(view.id)) this.remove(view);
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

  private add(view: PresenceView): void {
    const room = roomOf(view.orgId, view.approvalId);
    const viewers = this.rooms.get(room) ?? new Map<string, PresenceViewer>();
    const known = viewers.has(view.id);
    this.rooms.set(room, viewers.set(view.id, { id: view.id, name: view.name, role: view.role }));
    if (!known) this.changed(room);
  }

  private remove(view: PresenceView): void {
    const room = roomOf(view.orgId, view.approvalId);
    const viewers = this.rooms.get(room);
    if (!viewers?.delete(view.id)) return;
    if (viewers.size === 0) this.rooms.delete(room);
    this.changed(room);
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
