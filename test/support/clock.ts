import type { Clock } from '../../src/clock';

/** A clock that moves only when the test says so (src/clock.ts): no test sleeps on the wall clock. */
export class ManualClock implements Clock {
  constructor(private current: number = Date.now()) {}

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }
}
