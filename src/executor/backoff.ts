// The executor's waits: between retries (Retry-After or jittered backoff) and before a breaker probes again.
import type { IBackoff, IBackoffFactory, IHalfOpenAfterBackoffContext, IRetryBackoffContext } from 'cockatiel';
import type { Clock } from '../support/clock';

/** The wait before retry `attempt` (1, 2, …): the vendor's Retry-After, or exponential backoff with full jitter. */
export function retryDelayMs(retryAfterMs: number | null, attempt: number, baseMs: number, maxMs: number): number {
  const exponential = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
  return retryAfterMs ?? exponential / 2 + Math.random() * (exponential / 2);
}

/**
 * cockatiel's own wait between attempts, made nothing: the executor waits on its clock
 * instead (retryDelayMs, before the next attempt), so a test's manual clock governs it.
 */
export const NO_WAIT: IBackoffFactory<IRetryBackoffContext<unknown>> = {
  next: () => ({ duration: 0, next: () => NO_WAIT.next({} as IRetryBackoffContext<unknown>) }),
};

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
