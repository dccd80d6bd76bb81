import { AsyncLocalStorage } from 'node:async_hooks';

/** The calls an HTTP request started (src/api/http/drain.ts): a request cut at shutdown is answered with their ids. */
const requestCalls = new AsyncLocalStorage<string[]>();

/** Runs `work` (a request's handling) noting in `calls` every call it puts in flight. */
export function noteRequestCalls<T>(calls: string[], work: () => T): T {
  return requestCalls.run(calls, work);
}

/**
 * The tool calls this node is executing right now (vendor call, then its outcome write).
 * A call is added inside the transaction that makes it `running` here, so any committed
 * `running` row of this node that is not in the set has been abandoned (its outcome could
 * not be written) and is reconciled; shutdown waits for the set to empty within its budget.
 */
export class InFlightCalls {
  private readonly ids = new Set<string>();
  private waiters: (() => void)[] = [];

  add(id: string): void {
    this.ids.add(id);
    requestCalls.getStore()?.push(id);
  }

  delete(id: string): void {
    if (!this.ids.delete(id) || this.ids.size > 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  list(): string[] {
    return [...this.ids];
  }

  /** Resolves true once no call is in flight, or false when `timeoutMs` passes first. */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.ids.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(
        () => {
          this.waiters = this.waiters.filter((w) => w !== wake);
          resolve(false);
        },
        Math.max(0, timeoutMs),
      );
      this.waiters.push(wake);
    });
  }
}
