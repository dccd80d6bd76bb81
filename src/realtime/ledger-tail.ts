import type { MikroORM } from '@mikro-orm/postgresql';
import { LedgerEvent } from '../ledger/ledger-event.entity';
import type { Logger } from '../support/logger';
import type { EventBus } from './event-bus';
import type { ToolgateMetrics } from '../telemetry/metrics';

type Listener = (events: LedgerEvent[]) => void;

interface OrgTail {
  listeners: Set<Listener>;
  /** The newest sequence this node has read and handed to listeners. */
  delivered: bigint;
  /** The newest sequence announced on the bus. */
  announced: bigint;
  reading: Promise<void> | null;
  /** Settles once `delivered` holds the org's sequence at the time it was first followed. */
  opened: Promise<void> | null;
  noticedWhileReading?: boolean;
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
    private readonly metrics?: ToolgateMetrics,
  ) {
    // Notices sent while the bus was down are lost: every followed org is read up to its head.
    bus.onReconnect?.(() => {
      for (const orgId of this.orgs.keys()) void this.catchUpToHead(orgId);
    });
  }

  private async catchUpToHead(orgId: string): Promise<void> {
    const tail = this.orgs.get(orgId);
    if (!tail || tail.delivered < 0n) return;
    try {
      const head = await this.currentSequence(orgId);
      if (head > tail.announced) tail.announced = head;
      if (tail.announced > tail.delivered) this.startReading(orgId, tail);
    } catch (error) {
      this.logger.warn({ err: error, orgId }, 'could not catch up on ledger events after the bus reconnected; the next notice retries');
    }
  }

  /**
   * Registers a listener; returns the sequence up to which the org's events were already
   * delivered. The org's tail exists (and records notices) before its current sequence is
   * read, so a notice arriving meanwhile is not lost, and simultaneous first subscribers
   * of an org share one lookup.
   */
  async listen(orgId: string, listener: Listener): Promise<{ delivered: bigint; stop: () => void }> {
    // A failed subscription (the bus's store unreachable) is tried again by the next listener.
    await (this.started ??= this.bus
      .subscribe('ledger', (message) => this.onNotice(message))
      .then(
        () => undefined,
        (error: unknown) => {
          this.started = null;
          throw error;
        },
      ));
    let tail = this.orgs.get(orgId);
    if (!tail) {
      const opening: OrgTail = { listeners: new Set(), delivered: -1n, announced: -1n, reading: null, opened: null };
      tail = opening;
      this.orgs.set(orgId, opening);
      opening.opened = this.currentSequence(orgId).then(
        (current) => {
          opening.delivered = current;
          if (opening.announced > current) this.startReading(orgId, opening);
          else opening.announced = current;
        },
        (error: unknown) => {
          if (this.orgs.get(orgId) === opening) this.orgs.delete(orgId);
          throw error;
        },
      );
    }
    tail.listeners.add(listener);
    const org = tail;
    try {
      await org.opened;
    } catch (error) {
      org.listeners.delete(listener);
      throw error;
    }
    return {
      delivered: org.delivered,
      stop: () => {
        org.listeners.delete(listener);
        if (org.listeners.size === 0 && !org.reading && this.orgs.get(orgId) === org) this.orgs.delete(orgId);
      },
    };
  }

  /** Live subscriptions on this node following an org's ledger (for tests and metrics). */
  listenerCount(orgId: string): number {
    return this.orgs.get(orgId)?.listeners.size ?? 0;
  }

  /** The newest sequence this node has handed to the org's listeners. */
  head(orgId: string): bigint | null {
    const tail = this.orgs.get(orgId);
    return tail && tail.delivered >= 0n ? tail.delivered : null;
  }

  /** Events of an org after a sequence, up to another, for replay. */
  async read(orgId: string, after: bigint, upTo: bigint | null, limit = BATCH): Promise<LedgerEvent[]> {
    return this.orm.em
      .fork()
      .find(
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
    // Still reading the org's current sequence: `listen` starts the catch-up once it has it.
    if (tail.delivered < 0n) return;
    if (tail.reading) tail.noticedWhileReading = true;
    this.startReading(orgId, tail);
  }

  private startReading(orgId: string, tail: OrgTail): void {
    tail.reading ??= this.catchUp(orgId, tail).finally(() => {
      tail.reading = null;
      // A notice that came after the last read's check must not wait for the next one.
      if (tail.noticedWhileReading) {
        tail.noticedWhileReading = false;
        this.startReading(orgId, tail);
      } else if (tail.listeners.size === 0 && this.orgs.get(orgId) === tail) this.orgs.delete(orgId);
    });
  }

  private async catchUp(orgId: string, tail: OrgTail): Promise<void> {
    try {
      while (tail.delivered < tail.announced) {
        const events = await this.read(orgId, tail.delivered, null);
        if (events.length === 0) break;
        tail.delivered = BigInt(events[events.length - 1].sequence);
        for (const listener of tail.listeners) listener(events);
        this.metrics?.eventsDelivered(events, Date.now());
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
