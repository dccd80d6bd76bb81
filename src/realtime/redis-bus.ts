import { createClient } from 'redis';
import type { Logger } from '../support/logger';
import type { BusChannel, EventBus } from './event-bus';

const PREFIX = 'toolgate:';

/**
 * Cross-node bus on Redis pub/sub (when REDIS_URL is set): one publisher, one subscriber
 * connection. Redis going away costs no request and no crash: the clients reconnect on
 * their own (node-redis, resubscribing), commands fail at once instead of queueing
 * (`disableOfflineQueue`), ledger notices and token deltas are dropped meanwhile — one
 * warning per outage — and subscribers catch up from the ledger when it is back
 * (`onReconnect`). A revocation notice (`access`) is refused instead, so its sender logs it.
 */
export class RedisBus implements EventBus {
  readonly kind = 'redis' as const;
  private down: { since: number; dropped: number } | null = null;
  private readonly reconnected = new Set<() => void>();
  private closed = false;

  private constructor(
    private readonly publisher: ReturnType<typeof createClient>,
    private readonly subscriber: ReturnType<typeof createClient>,
    private readonly logger: Logger,
  ) {}

  static async connect(url: string, logger: Logger): Promise<RedisBus> {
    const publisher = createClient({ url, disableOfflineQueue: true });
    const subscriber = publisher.duplicate();
    const bus = new RedisBus(publisher, subscriber, logger);
    for (const client of [publisher, subscriber]) {
      client.on('error', (error: unknown) => bus.lost(error));
      client.on('ready', () => bus.back());
    }
    await Promise.all([publisher.connect(), subscriber.connect()]);
    return bus;
  }

  /** Whether both connections are up (for /readyz). */
  connected(): boolean {
    return this.publisher.isReady && this.subscriber.isReady;
  }

  onReconnect(listener: () => void): () => void {
    this.reconnected.add(listener);
    return () => this.reconnected.delete(listener);
  }

  async publish(channel: BusChannel, message: string): Promise<void> {
    if (!this.publisher.isReady) {
      if (channel === 'access') throw new Error('the redis event bus is unreachable');
      if (this.down) this.down.dropped += 1;
      return;
    }
    await this.publisher.publish(PREFIX + channel, message);
  }

  async subscribe(channel: BusChannel, handler: (message: string) => void): Promise<() => Promise<void>> {
    await this.subscriber.subscribe(PREFIX + channel, handler);
    return async () => {
      // Once closed there is nothing to leave (and node-redis would queue the command forever).
      if (this.closed) return;
      await this.subscriber.unsubscribe(PREFIX + channel, handler);
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.reconnected.clear();
    await Promise.allSettled([this.publisher.quit(), this.subscriber.quit()]);
  }

  private lost(error: unknown): void {
    if (this.down) return;
    this.down = { since: Date.now(), dropped: 0 };
    this.logger.warn(
      { err: error },
      'redis event bus unreachable: cross-node events dropped until it is back (subscribers then catch up from the ledger)',
    );
  }

  private back(): void {
    if (!this.down || !this.connected()) return;
    this.logger.warn({ afterMs: Date.now() - this.down.since, dropped: this.down.dropped }, 'redis event bus reachable again');
    this.down = null;
    for (const listener of this.reconnected) listener();
  }
}
