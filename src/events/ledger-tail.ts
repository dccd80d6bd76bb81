import type { MikroORM } from '@mikro-orm/postgresql';
import { LedgerEvent } from '../ledger/ledger-event.entity';
import type { Logger } from '../logger';
import type { EventBus } from './event-bus';

type Listener = (events: LedgerEvent[]) => void;

interface OrgTail {
  listeners: Set<Listener>;
  /** The newest sequence this node has read and handed to listeners. */
  delivered: bigint;
  /** The newest sequence announced on the bus. */
  announced: bigint;
  reading: Promise<void> | null;
}

const BATCH = 500;

/**
 * Each node follows the ledgers of the orgs someone on it is subscribed to. A notice on
 * the bus ("org X reached sequence N") makes the node read the new events once, in
 * order, and hand the same rows to every subscription of that org: events are resolved
 * once per node, not once per subscriber, and an org's events never reach another org's
 * listeners.
 */
export class LedgerTail {
  private readonly orgs = new Map<string, OrgTail>();
  private started: Promise<void> | null = null;

  constructor(
    private readonly orm: MikroORM,
    private readonly bus: EventBus,
    private readonly logger: Logger,
  ) {}

  /** Registers a listener; returns the sequence up to which the org's events were already delivered. */
  async listen(orgId: string, listener: Listener): Promise<{ delivered: bigint; stop: () => void }> {
    await (this.started ??= this.bus.subscribe('ledger', (message) => this.onNotice(message)).then(() => undefined));
    let tail = this.orgs.get(orgId);
    if (!tail) {
      const current = await this.currentSequence(orgId);
      tail = this.orgs.get(orgId) ?? { listeners: new Set(), delivered: current, announced: current, reading: null };
      this.orgs.set(orgId, tail);
    }
    tail.listeners.add(listener);
    const org = tail;
    return {
      delivered: org.delivered,
      stop: () => {
        org.listeners.delete(listener);
        if (org.listeners.size === 0 && !org.reading) this.orgs.delete(orgId);
      },
    };
  }

  /** Events of an org after a sequence, up to another, for replay. */
  async read(orgId: string, after: bigint, upTo: bigint | null, limit = BATCH): Promise<LedgerEvent[]> {
    return this.orm.em.fork().find(
      LedgerEvent,
      { orgId, sequence: upTo === null ? { $gt: String(after) } : { $gt: String(after), $lte: String(upTo) } },
      { orderBy: { sequence: 'asc' }, limit },
    );
  }

  private onNotice(message: string): void {
    const [orgId, sequence] = message.split(':');
    const tail = this.orgs.get(orgId);
    if (!tail || !/^\d+$/.test(sequence ?? '')) return;
    const announced = BigInt(sequence);
    if (announced > tail.announced) tail.announced = announced;
    tail.reading ??= this.catchUp(orgId, tail).finally(() => {
      tail.reading = null;
      if (tail.listeners.size === 0) this.orgs.delete(orgId);
    });
  }

  private async catchUp(orgId: string, tail: OrgTail): Promise<void> {
    try {
      while (tail.delivered < tail.announced) {
        const events = await this.read(orgId, tail.delivered, null);
        if (events.length === 0) break;
        tail.delivered = BigInt(events[events.length - 1].sequence);
        for (const listener of tail.listeners) listener(events);
      }
    } catch (error) {
      this.logger.warn({ err: error, orgId }, 'could not read new ledger events; the next notice retries');
    }
  }

  private async currentSequence(orgId: string): Promise<bigint> {
    const [row] = await this.orm.em
      .fork()
      .execute<{ sequence: string | null }[]>('select max(sequence) as sequence from ledger_events where org_id = ?', [orgId]);
    return BigInt(row?.sequence ?? 0);
  }
}
