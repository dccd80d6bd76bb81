import { randomUUID } from 'node:crypto';
import { isRole } from '../auth/roles';
import type { Clock } from '../support/clock';
import type { EventBus } from '../realtime/event-bus';
import type { Logger } from '../support/logger';
import type { ApprovalPresence, PresenceView } from './approval-presence';

/**
 * What nodes say on the bus's `presence` channel, as JSON; `n` is the sender. `join` and
 * `leave` are a view opening and closing; `beat` (with `c`, the sender's view count) says the
 * sender's views are still open; `sync` asks every node (or only node `to`) to announce its
 * views again; `bye` is a node stopping.
 */
type PresenceMessage =
  | { k: 'join'; n: string; v: string; o: string; a: string; name: string; role: PresenceView['role'] }
  | { k: 'leave'; n: string; v: string }
  | { k: 'beat'; n: string; c: number }
  | { k: 'sync'; n: string; to?: string }
  | { k: 'bye'; n: string };

interface RemoteNode {
  /** On this node's clock: when the node was last heard from. */
  heardAt: number;
  views: Map<string, PresenceView>;
}

/**
 * Carries approval presence between nodes on the event bus. Each node announces its own
 * views as they open and close and heartbeats while it has any; it keeps the other nodes'
 * views, and drops all of a node's views when that node said nothing for two heartbeats
 * (it died: no goodbye) or said `bye`. A node asks for a sync when it starts and when its
 * bus is back (messages sent meanwhile were lost), and re-announces its own views then; a
 * heartbeat whose count disagrees with what this node holds asks its sender for a sync too.
 * Messages carry org and approval ids, a key's name and role: never a key's id or secret.
 */
export class ApprovalPresenceRelay {
  /** This process on the bus (a restarted node is a new one). */
  readonly nodeId = randomUUID();
  private readonly nodes = new Map<string, RemoteNode>();
  private readonly undo: (() => unknown)[] = [];
  private cancelBeat: (() => void) | null = null;
  private failing = false;

  constructor(
    private readonly presence: ApprovalPresence,
    private readonly bus: EventBus,
    private readonly clock: Clock,
    private readonly heartbeatMs: number,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    this.undo.push(await this.bus.subscribe('presence', (message) => this.received(message)));
    this.undo.push(
      this.presence.onLocalChange((change, view) => this.send(change === 'join' ? this.joinOf(view) : { k: 'leave', n: this.nodeId, v: view.id })),
    );
    const unlisten = this.bus.onReconnect?.(() => {
      this.announce();
      this.send({ k: 'sync', n: this.nodeId });
    });
    if (unlisten) this.undo.push(unlisten);
    this.scheduleBeat();
    this.send({ k: 'sync', n: this.nodeId });
  }

  /** Says goodbye (the others drop this node's views at once) and stops listening. */
  async stop(): Promise<void> {
    this.cancelBeat?.();
    this.cancelBeat = null;
    for (const undo of this.undo.splice(0).reverse()) await undo();
    // Even with no view left: a leave lost on the way would otherwise linger for two heartbeats.
    await this.publish({ k: 'bye', n: this.nodeId });
  }

  private scheduleBeat(): void {
    this.cancelBeat = this.clock.after(this.heartbeatMs, () => {
      this.scheduleBeat();
      this.expire();
      const count = this.presence.localViews().length;
      if (count > 0) this.send({ k: 'beat', n: this.nodeId, c: count });
    });
  }

  /** Drops the views of nodes not heard from for two heartbeats. */
  private expire(): void {
    const silentSince = this.clock.now() - 2 * this.heartbeatMs;
    for (const [nodeId, node] of this.nodes) if (node.heardAt <= silentSince) this.drop(nodeId);
  }

  private received(raw: string): void {
    const message = parse(raw);
    if (!message || message.n === this.nodeId) return;
    switch (message.k) {
      case 'sync':
        if (message.to === undefined || message.to === this.nodeId) this.announce();
        return;
      case 'bye':
        this.drop(message.n);
        return;
      case 'join': {
        const view: PresenceView = { id: message.v, orgId: message.o, approvalId: message.a, name: message.name, role: message.role };
        this.heard(message.n).views.set(view.id, view);
        this.presence.addRemote(view);
        return;
      }
      case 'leave': {
        const node = this.heard(message.n);
        const view = node.views.get(message.v);
        if (!view) return;
        node.views.delete(view.id);
        this.presence.removeRemote(view);
        return;
      }
      case 'beat': {
        const node = this.heard(message.n);
        if (node.views.size === message.c) return;
        // Something was lost: a missed leave cannot be told apart, so start that node over.
        if (node.views.size > message.c) this.drop(message.n, true);
        this.send({ k: 'sync', n: this.nodeId, to: message.n });
      }
    }
  }

  private heard(nodeId: string): RemoteNode {
    const node = this.nodes.get(nodeId) ?? { heardAt: 0, views: new Map() };
    node.heardAt = this.clock.now();
    this.nodes.set(nodeId, node);
    return node;
  }

  private drop(nodeId: string, keepNode = false): void {
    const node = this.nodes.get(nodeId);
    if (!node) return;
    if (!keepNode) this.nodes.delete(nodeId);
    for (const view of node.views.values()) this.presence.removeRemote(view);
    node.views.clear();
  }

  private announce(): void {
    for (const view of this.presence.localViews()) this.send(this.joinOf(view));
  }

  private joinOf(view: PresenceView): PresenceMessage {
    return { k: 'join', n: this.nodeId, v: view.id, o: view.orgId, a: view.approvalId, name: view.name, role: view.role };
  }

  /** Best effort: presence lost on the way is repaired by the next sync or heartbeat. */
  private send(message: PresenceMessage): void {
    void this.publish(message);
  }

  private async publish(message: PresenceMessage): Promise<void> {
    try {
      await this.bus.publish('presence', JSON.stringify(message));
      this.failing = false;
    } catch (error) {
      if (!this.failing) this.logger.warn({ err: error }, 'approval presence not sent on the event bus (other nodes catch up when it is back)');
      this.failing = true;
    }
  }
}

const isId = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= 64;

/** A well-formed message, else null (ignored). */
function parse(raw: string): PresenceMessage | null {
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!m || typeof m !== 'object' || !isId(m.n)) return null;
  switch (m.k) {
    case 'join':
      return isId(m.v) && isId(m.o) && isId(m.a) && typeof m.name === 'string' && m.name.length <= 512 && isRole(m.role)
        ? (m as PresenceMessage)
        : null;
    case 'leave':
      return isId(m.v) ? (m as PresenceMessage) : null;
    case 'beat':
      return Number.isInteger(m.c) ? (m as PresenceMessage) : null;
    case 'sync':
      return m.to === undefined || isId(m.to) ? (m as PresenceMessage) : null;
    case 'bye':
      return m as PresenceMessage;
    default:
      return null;
  }
}
