import { Client, Pool } from 'pg';
import type { Logger } from '../support/logger';
import { MAX_BUS_MESSAGE_BYTES, type BusChannel, type EventBus } from './event-bus';

const PREFIX = 'toolgate_';

/**
 * Cross-node bus on PostgreSQL LISTEN/NOTIFY: one dedicated listening connection per
 * node; publishes through one connection, never inside a business transaction, so a
 * node's messages arrive everywhere in the order it sent them (token deltas rely on it). A lost
 * listener reconnects, with backoff, for as long as the database is gone; what was missed in
 * between is recovered by sequence (`onReconnect`: subscribers re-read the ledger), so
 * nothing acknowledged is lost.
 */
export class PostgresBus implements EventBus {
  readonly kind = 'postgres' as const;
  private readonly pool: Pool;
  private listener: Client | null = null;
  private readonly handlers = new Map<string, Set<(message: string) => void>>();
  private readonly reconnected = new Set<() => void>();
  private reconnecting = false;
  private closed = false;

  constructor(
    private readonly connectionString: string,
    private readonly logger: Logger,
  ) {
    this.pool = new Pool({ connectionString, max: 1 });
    this.pool.on('error', (error) => logger.warn({ err: error }, 'event bus publisher connection lost'));
  }

  async publish(channel: BusChannel, message: string): Promise<void> {
    if (Buffer.byteLength(message) > MAX_BUS_MESSAGE_BYTES) throw new Error(`bus message over ${MAX_BUS_MESSAGE_BYTES} bytes`);
    await this.pool.query('select pg_notify($1, $2)', [PREFIX + channel, message]);
  }

  async subscribe(channel: BusChannel, handler: (message: string) => void): Promise<() => Promise<void>> {
    const name = PREFIX + channel;
    let set = this.handlers.get(name);
    if (!set) {
      set = new Set();
      this.handlers.set(name, set);
      await (await this.connectListener()).query(`listen ${name}`);
    }
    set.add(handler);
    return async () => {
      set!.delete(handler);
    };
  }

  connected(): boolean {
    return this.listener !== null || this.handlers.size === 0;
  }

  onReconnect(listener: () => void): () => void {
    this.reconnected.add(listener);
    return () => this.reconnected.delete(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.reconnected.clear();
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(() => undefined);
    await this.pool.end();
  }

  private async connectListener(): Promise<Client> {
    if (this.listener) return this.listener;
    const client = new Client({ connectionString: this.connectionString });
    client.on('notification', (n) => {
      for (const handler of this.handlers.get(n.channel) ?? []) handler(n.payload ?? '');
    });
    client.on('error', (error) => {
      if (this.listener !== client) return;
      this.logger.warn({ err: error }, 'event bus listener connection lost; reconnecting');
      this.listener = null;
      void this.reconnect();
    });
    client.on('end', () => {
      if (this.listener !== client || this.closed) return;
      this.logger.warn('event bus listener connection ended; reconnecting');
      this.listener = null;
      void this.reconnect();
    });
    await client.connect().catch(async (error: unknown) => {
      await client.end().catch(() => undefined);
      throw error;
    });
    this.listener = client;
    return client;
  }

  /** Until it is back (or the bus closes), however long the database is gone; then subscribers catch up. */
  private async reconnect(): Promise<void> {
    if (this.reconnecting) return;
    this.reconnecting = true;
    try {
      for (let attempt = 0; !this.closed; attempt++) {
        try {
          const client = await this.connectListener();
          for (const name of this.handlers.keys()) await client.query(`listen ${name}`);
          this.logger.warn({ attempts: attempt + 1 }, 'event bus listener reconnected');
          for (const listener of this.reconnected) listener();
          return;
        } catch {
          const failed = this.listener;
          this.listener = null;
          await failed?.end().catch(() => undefined);
          await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 100 * 2 ** attempt)));
        }
      }
    } finally {
      this.reconnecting = false;
    }
  }
}
