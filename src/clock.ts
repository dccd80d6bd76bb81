/**
 * Where code reads the time or waits for it when a test needs to move it (token expiry,
 * the circuit breaker's half-open delay, a vendor attempt's timeout, a Retry-After date,
 * a call's recorded duration): injected, `systemClock` by default. Tests pass a manual
 * clock (test/support/clock.ts) and advance it instead of sleeping.
 */
export interface Clock {
  /** Epoch milliseconds, like Date.now(). */
  now(): number;
  /** Calls `callback` once `ms` have passed on this clock; answers a function that cancels it. */
  after(ms: number, callback: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  after(ms, callback) {
    const timer = setTimeout(callback, ms);
    return () => clearTimeout(timer);
  },
};
