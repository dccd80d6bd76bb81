import type { Clock } from '../../src/support/clock';

interface Timer {
  at: number;
  callback: () => void;
}

/**
 * A clock that moves only when the test (or a deliberate `sleep` of the code under test)
 * moves it (src/support/clock.ts): no test sleeps on the wall clock. Timers set with `after` fire,
 * in time order, when `advance` passes them.
 */
export class ManualClock implements Clock {
  private readonly timers = new Set<Timer>();

  constructor(private current: number = Date.now()) {}

  now(): number {
    return this.current;
  }

  after(ms: number, callback: () => void): () => void {
    const timer = { at: this.current + ms, callback };
    this.timers.add(timer);
    return () => this.timers.delete(timer);
  }

  /** Timers waiting to fire: a test advances once the code under test is waiting. */
  pendingTimers(): number {
    return this.timers.size;
  }

  /**
   * A deliberate wait of the code under test (a retry's backoff): its time passes at once.
   * (A timer racing real I/O, set with `after`, waits for the test to move the clock.)
   */
  async sleep(ms: number): Promise<void> {
    this.advance(ms);
  }

  advance(ms: number): void {
    const until = this.current + ms;
    for (;;) {
      const due = [...this.timers].filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers.delete(due);
      this.current = due.at;
      due.callback();
    }
    this.current = until;
  }
}

/**
 * Times out `hangs` hung vendor attempts, one after another, on `clock` (the executor's):
 * once attempt n has reached the vendor (`reached()` counts the requests it saw), the clock
 * moves to 1 ms before the attempt's timeout — the attempt must still be waiting — and then
 * onto it, which must abort it. Polls for the request; never waits on time itself.
 */
export async function timeOutHungAttempts(clock: ManualClock, timeoutMs: number, hangs: number, reached: () => number): Promise<void> {
  for (let attempt = 1; attempt <= hangs; attempt += 1) {
    const deadline = Date.now() + 10_000;
    while (reached() < attempt || clock.pendingTimers() === 0) {
      if (Date.now() > deadline) throw new Error(`attempt ${attempt} never reached the vendor`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    clock.advance(timeoutMs - 1);
    if (clock.pendingTimers() !== 1) throw new Error(`attempt ${attempt} ended before its timeout`);
    clock.advance(1);
    if (clock.pendingTimers() !== 0) throw new Error(`attempt ${attempt} did not time out at ${timeoutMs} ms`);
  }
}
