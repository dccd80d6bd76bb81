// The executor's waits: between retries (Retry-After or jittered backoff) and before a breaker probes again.
import type { IBackoff, IBackoffFactory, IHalfOpenAfterBackoffContext, IRetryBackoffContext } from 'cockatiel';
import type { Clock } from '../clock';
import { classifyFailure } from './failure-classifier';

/** Exponential backoff with full jitter, or the vendor's Retry-After when it names one. */
export class RetryAfterBackoff implements IBackoffFactory<IRetryBackoffContext<unknown>> {
  constructor(
    private readonly baseMs: number,
    private readonly maxMs: number,
  ) {}

  next(context: IRetryBackoffContext<unknown>): IBackoff<IRetryBackoffContext<unknown>> {
    const retryAfter = 'error' in context.result ? classifyFailure(context.result.error).retryAfterMs : null;
    const exponential = Math.min(this.maxMs, this.baseMs * 2 ** (context.attempt - 1));
    const duration = retryAfter ?? exponential / 2 + Math.random() * (exponential / 2);
    return { duration, next: (c) => this.next(c) };
  }
}

/**
 * The breaker's half-open delay on our clock. cockatiel half-opens an open breaker when
 * `Date.now() - openedAt >= backoff.duration`, reading Date.now() itself and `duration` at
 * each call while open; this backoff (created when the breaker opens or re-opens) answers
 * 0 once our clock has moved `halfOpenMs` past that moment and Infinity before, so the
 * decision follows the injected clock. With the system clock it is cockatiel's constant delay.
 */
export class ClockHalfOpen implements IBackoffFactory<IHalfOpenAfterBackoffContext> {
  constructor(
    private readonly clock: Clock,
    private readonly halfOpenMs: number,
  ) {}

  next(): IBackoff<IHalfOpenAfterBackoffContext> {
    const { clock, halfOpenMs } = this;
    const openedAt = clock.now();
    return {
      get duration() {
        return clock.now() - openedAt >= halfOpenMs ? 0 : Number.POSITIVE_INFINITY;
      },
      next: () => this.next(),
    };
  }
}
