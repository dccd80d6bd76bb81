import { GraphQLError } from 'graphql';
import type { Caller } from '../auth/caller';

/**
 * The running graphql-ws subscriptions of this node, counted per key and per org, each
 * under a cap (WS_MAX_SUBSCRIPTIONS_PER_KEY, WS_MAX_SUBSCRIPTIONS_PER_ORG). A slot is taken
 * when a subscription is admitted and given back when it completes (graphql-ws calls
 * onComplete for every end, a client's complete and a closed socket included) or, as a
 * backstop, when its socket closes.
 */
export class SubscriptionCaps {
  private readonly byKey = new Map<string, number>();
  private readonly byOrg = new Map<string, number>();
  /** The slots held, by graphql-ws connection context and operation id. */
  private readonly held = new WeakMap<object, Map<string, Caller>>();

  constructor(private readonly caps: { perKey: number; perOrg: number }) {}

  /** Takes a slot for operation `id` of connection `connection`; the refusal (SUBSCRIPTION_LIMIT) when none is free. */
  take(connection: object, id: string, caller: Caller): GraphQLError | null {
    const key = caller.keyId ?? '';
    if ((this.byKey.get(key) ?? 0) >= this.caps.perKey) return refusal('API key', this.caps.perKey);
    if ((this.byOrg.get(caller.orgId) ?? 0) >= this.caps.perOrg) return refusal('organization', this.caps.perOrg);
    let slots = this.held.get(connection);
    if (!slots) {
      slots = new Map();
      this.held.set(connection, slots);
    }
    slots.set(id, caller);
    bump(this.byKey, key, 1);
    bump(this.byOrg, caller.orgId, 1);
    return null;
  }

  /** Gives back operation `id`'s slot, if it holds one (queries and mutations do not). */
  release(connection: object, id: string): void {
    const slots = this.held.get(connection);
    const caller = slots?.get(id);
    if (!slots || !caller) return;
    slots.delete(id);
    bump(this.byKey, caller.keyId ?? '', -1);
    bump(this.byOrg, caller.orgId, -1);
  }

  /** Gives back every slot of a closed connection. */
  releaseAll(connection: object): void {
    for (const id of [...(this.held.get(connection)?.keys() ?? [])]) this.release(connection, id);
  }
}

function bump(counts: Map<string, number>, id: string, by: number): void {
  const next = (counts.get(id) ?? 0) + by;
  if (next > 0) counts.set(id, next);
  else counts.delete(id);
}

function refusal(whose: string, limit: number): GraphQLError {
  return new GraphQLError(`This ${whose} already holds ${limit} subscriptions on this node; complete one first`, {
    extensions: { code: 'SUBSCRIPTION_LIMIT', limit },
  });
}
