/** Why a key may no longer receive events (null: it may). */
export type Refusal = 'UNAUTHENTICATED' | 'ORG_SUSPENDED' | null;

const MAX_RESOLUTIONS = 5000;

/**
 * One app's lookups shared by its subscriptions (a key check, an event's row): each made
 * once, however many subscribers need it. Bounded: the oldest are forgotten first. One per
 * composed app (on its `Realtime`): two apps in one process never share an answer.
 */
export class SharedResolutions {
  /** Key checks already answered, by key and slot. */
  private readonly settled = new Map<string, Refusal>();
  private readonly resolutions = new Map<string, Promise<unknown>>();

  settledCheck(key: string): Refusal | undefined {
    return this.settled.get(key);
  }

  settle(key: string, refusal: Refusal): void {
    remember(this.settled, key, refusal);
  }

  /** One resolution per key, shared by every subscriber of this app that needs it. */
  once<T>(key: string, resolve: () => Promise<T>): Promise<T> {
    let promise = this.resolutions.get(key) as Promise<T> | undefined;
    if (!promise) {
      promise = resolve();
      remember(this.resolutions, key, promise);
      promise.catch(() => this.resolutions.delete(key));
    }
    return promise;
  }
}

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.set(key, value);
  if (map.size > MAX_RESOLUTIONS) map.delete(map.keys().next().value as string);
}
