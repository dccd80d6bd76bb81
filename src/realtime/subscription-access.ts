import type { Refusal } from './shared-resolutions';
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
  // A person's console session is checked as a whole (ended at sign-out, expired), else the key.
  const key = `${caller.sessionId ? `session:${caller.sessionId}` : `key:${caller.keyId}`}:${slot ?? `t${Math.floor(Date.now() / 1000)}`}`;
  const shared = ctx.services.realtime.resolutions;
  // Known already (the common case: another subscriber of the key checked this event): no await.
  const known = shared.settledCheck(key);
  if (known !== undefined) return assertValid(known);
  return shared
    .once(key, async () => {
      let refusal: Refusal = null;
      try {
        await ctx.services.identity.recheck(caller, { use: false });
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        refusal = error.code === 'ORG_SUSPENDED' ? 'ORG_SUSPENDED' : 'UNAUTHENTICATED';
      }
      shared.settle(key, refusal);
      return refusal;
    })
    .then(assertValid);
}

function assertValid(refusal: Refusal): void {
  if (refusal === 'ORG_SUSPENDED') throw new AppError('ORG_SUSPENDED', 'The organization is suspended');
  if (refusal) throw new AppError('UNAUTHENTICATED', 'The API key is no longer valid');
}

/** One resolution per key (an event's row, say), shared by every subscriber of the app that needs it. */
export function resolveOnce<T>(ctx: RequestContext, key: string, resolve: () => Promise<T>): Promise<T> {
  return ctx.services.realtime.resolutions.once(key, resolve);
}
