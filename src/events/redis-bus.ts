import { createClient } from 'redis';
import type { Logger } from '../logger';
import type { BusChannel, EventBus } from './event-bus';

const PREFIX = 'toolgate:';

/** Cross-node bus on Redis pub/sub (when REDIS_URL is set): one publisher, one subscriber connection. */
export class RedisBus implements EventBus {
  readonly kind = 'redis' as const;

  private constructor(
    private readonly publisher: ReturnType<typeof createClient>,
    private readonly subscriber: ReturnType<typeof createClient>,
  ) {}

  static async connect(url: string, logger: Logger): Promise<RedisBus> {
    const publisher = createClient({ url });
    const subscriber = publisher.duplicate();
    for (const client of [publisher, subscriber]) client.on('error', (error) => logger.warn({ err: error }, 'redis bus connection error'));
    await Promise.all([publisher.connect(), subscriber.connect()]);
    return new RedisBus(publisher, subscriber);
  }

  async publish(channel: BusChannel, message: string): Promise<void> {
    await this.publisher.publish(PREFIX + channel, message);
  }

  async subscribe(channel: BusChannel, handler: (message: string) => void): Promise<() => Promise<void>> {
    await this.subscriber.subscribe(PREFIX + channel, handler);
    return async () => {
      await this.subscriber.unsubscribe(PREFIX + channel, handler);
    };
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.publisher.quit(), this.subscriber.quit()]);
  }
}
