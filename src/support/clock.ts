/**
 * Where code reads the time or waits for it when a test needs to move it (token expiry,
 * the circuit breaker's half-open delay, a vendor attempt's timeout, the wait before a
 * retry, a Retry-After date, a call's recorded duration): injected, `systemClock` by
 * default. Tests pass a manual clock (test/support/clock.ts) and move it instead of sleeping.
 */
export interface Clock {
  /** Epoch milliseconds, like Date.now(). */
  now(): number;
  /** Calls `callback` once `ms` have passed on this clock; answers a function that cancels it. */
  after(ms: number, callback: () => void): () => void;
  /** A deliberate wait (before a retry): resolves once `ms` have passed on this clock. */
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  after(ms, callback) {
    const timer = setTimeout(callback, ms);
    return () => clearTimeout(timer);
  },
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
