import type { RequestContext } from '../graphql/context';
import { requireCaller } from '../graphql/auth-checker';
import { mayUse, type Operation } from '../auth/access';
import type { Caller } from '../auth/caller';
import { AppError } from '../errors/app-error';
import type { KeyAccess } from '../auth/key-access';

declare module '../graphql/context' {
  interface RequestServices {
    keys: KeyAccess;
  }
}

/** The caller of a subscription, if its role may use it (FORBIDDEN otherwise). */
export function authorize(ctx: RequestContext, coordinate: Operation): Caller {
  const caller = requireCaller(ctx);
  if (!mayUse(coordinate, caller.role)) throw new AppError('FORBIDDEN', `This subscription is not allowed for the ${caller.role} role`);
  return caller;
}

/**
 * Access is re-checked before each event is sent: a key revoked or expired since the
 * subscription started ends it with UNAUTHENTICATED, a suspended org with ORG_SUSPENDED, and
 * nothing after that reaches it. The lookup is shared by all subscriptions of the key
 * receiving the same event (`slot`: the event's sequence), or made once a second (`slot`
 * omitted: replays and token deltas).
 */
export function recheckAccess(ctx: RequestContext, slot?: string): void | Promise<void> {
  const caller = requireCaller(ctx);
  if (!caller.keyId) return;
  const keyId = caller.keyId;
  const key = `key:${keyId}:${slot ?? `t${Math.floor(Date.now() / 1000)}`}`;
  // Known already (the common case: another subscriber of the key checked this event): no await.
  const known = settled.get(key);
  if (known !== undefined) return assertValid(known);
  return resolveOnce(key, async () => {
    let refusal: Refusal = null;
    try {
      await ctx.services.keys.check(keyId, { use: false });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      refusal = error.code === 'ORG_SUSPENDED' ? 'ORG_SUSPENDED' : 'UNAUTHENTICATED';
    }
    remember(settled, key, refusal);
    return refusal;
  }).then(assertValid);
}

/** Why the key may no longer receive events (null: it may). */
type Refusal = 'UNAUTHENTICATED' | 'ORG_SUSPENDED' | null;

function assertValid(refusal: Refusal): void {
  if (refusal === 'ORG_SUSPENDED') throw new AppError('ORG_SUSPENDED', 'The organization is suspended');
  if (refusal) throw new AppError('UNAUTHENTICATED', 'The API key is no longer valid');
}

const settled = new Map<string, Refusal>();

/** One resolution per key (an event, a key check), shared by every subscriber on this node that needs it. */
const resolutions = new Map<string, Promise<unknown>>();
const MAX_RESOLUTIONS = 5000;

export function resolveOnce<T>(key: string, resolve: () => Promise<T>): Promise<T> {
  let promise = resolutions.get(key) as Promise<T> | undefined;
  if (!promise) {
    promise = resolve();
    remember(resolutions, key, promise);
    promise.catch(() => resolutions.delete(key));
  }
  return promise;
}

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.set(key, value);
  if (map.size > MAX_RESOLUTIONS) map.delete(map.keys().next().value as string);
}
