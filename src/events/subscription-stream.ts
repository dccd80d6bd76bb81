import { AppError } from '../errors/app-error';

/**
 * A bounded push queue exposed as an async iterator: producers push, the subscription
 * pulls. A consumer that falls more than `limit` items behind is ended with
 * SUBSCRIBER_TOO_SLOW (naming where to resume), so one slow client never holds memory
 * or delays the others.
 */
export class SubscriptionStream<T> implements AsyncIterableIterator<T> {
  private readonly queue: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | null = null;
  private failure: Error | null = null;
  private done = false;
  private closed = false;

  constructor(
    private readonly limit: number,
    private readonly onClose: () => void,
    private readonly resumeHint: () => Record<string, unknown>,
  ) {}

  push(item: T): void {
    if (this.done || this.failure) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve({ value: item, done: false });
      return;
    }
    if (this.queue.length >= this.limit) {
      this.fail(new AppError('SUBSCRIBER_TOO_SLOW', 'The subscriber fell too far behind; subscribe again from the last sequence received', this.resumeHint()));
      return;
    }
    this.queue.push(item);
  }

  fail(error: Error): void {
    if (this.done) return;
    this.failure = error;
    this.queue.length = 0;
    // A pending next() wakes up, sees the failure and throws it: the client gets an error.
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve({ value: undefined as never, done: true });
    }
    this.close();
  }

  async next(): Promise<IteratorResult<T>> {
    if (this.queue.length > 0) return { value: this.queue.shift()!, done: false };
    if (this.failure) {
      const error = this.failure;
      this.finish();
      throw error;
    }
    if (this.done) return { value: undefined as never, done: true };
    return new Promise((resolve) => {
      this.waiting = resolve;
    }).then((result) => {
      if ((result as IteratorResult<T>).done && this.failure) {
        const error = this.failure;
        this.finish();
        throw error;
      }
      return result as IteratorResult<T>;
    });
  }

  async return(): Promise<IteratorResult<T>> {
    this.finish();
    return { value: undefined as never, done: true };
  }

  async throw(error: unknown): Promise<IteratorResult<T>> {
    this.finish();
    throw error;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.queue.length = 0;
    this.waiting?.({ value: undefined as never, done: true });
    this.waiting = null;
    this.close();
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose();
  }
}
