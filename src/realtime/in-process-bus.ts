import { EventEmitter } from 'node:events';
import type { BusChannel, EventBus } from './event-bus';

/** A single node's bus: delivery on the next tick, in order. */
export class InProcessBus implements EventBus {
  readonly kind = 'in-process' as const;
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  async publish(channel: BusChannel, message: string): Promise<void> {
    queueMicrotask(() => this.emitter.emit(channel, message));
  }

  async subscribe(channel: BusChannel, handler: (message: string) => void): Promise<() => Promise<void>> {
    this.emitter.on(channel, handler);
    return async () => {
      this.emitter.off(channel, handler);
    };
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}
