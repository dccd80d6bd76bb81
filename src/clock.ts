/**
 * Where code reads the time when a test needs to move it (token expiry, the circuit
 * breaker's half-open delay): injected, `systemClock` by default. Tests pass a manual clock
 * (test/support/clock.ts) and advance it instead of sleeping.
 */
export interface Clock {
  /** Epoch milliseconds, like Date.now(). */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
