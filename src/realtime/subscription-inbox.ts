/**
 * What a live subscription has been handed but not yet sent. Bounded: past `limit` items
 * the queue is dropped and replaced by a gap marker, and the subscription re-reads the gap
 * from the ledger (which is the durable buffer) when its client is ready. Memory per
 * subscriber stays bounded however large a burst is; a reader that keeps up never loses
 * an event; one that cannot keep up at all is failed by its owner (see `fail`).
 */
export class SubscriptionInbox<T> {
  private queue: T[] = [];
  private gap = false;
  private failure: Error | null = null;
  private ended = false;
  private wake: (() => void) | null = null;

  constructor(private readonly limit: number) {}

  /** Ended by the client or failed: the subscription should stop working. */
  get closed(): boolean {
    return this.ended || this.failure !== null;
  }

  push(items: readonly T[]): void {
    if (this.ended || this.failure || items.length === 0) return;
    if (this.gap || this.queue.length + items.length > this.limit) {
      this.gap = true;
      this.queue = [];
    } else {
      for (const item of items) this.queue.push(item);
    }
    this.notify();
  }

  /** Ends the subscription with `error` at its next take, after what is already being sent. */
  fail(error: Error): void {
    if (this.ended || this.failure) return;
    this.failure = error;
    this.queue = [];
    this.notify();
  }

  end(): void {
    this.ended = true;
    this.queue = [];
    this.notify();
  }

  /** Everything queued, or 'gap' when some was dropped; waits while empty; null once ended. */
  async take(): Promise<T[] | 'gap' | null> {
    for (;;) {
      if (this.failure) throw this.failure;
      if (this.ended) return null;
      if (this.gap) {
        this.gap = false;
        return 'gap';
      }
      if (this.queue.length > 0) {
        const items = this.queue;
        this.queue = [];
        return items;
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}
