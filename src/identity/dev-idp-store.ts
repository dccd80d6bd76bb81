import type { Adapter, AdapterPayload } from './oidc-provider-types';

interface Stored {
  payload: AdapterPayload;
  /** epoch ms; Infinity when the provider gave no expiry. */
  expiresAt: number;
}

/** The token models whose rows a revoked grant takes with it. */
const GRANTABLE = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);

/**
 * The development issuer's storage: in memory, one map per issuer, gone with the process.
 * oidc-provider's own memory adapter would do the same but prints a warning at every start
 * (its development interactions print theirs anyway).
 */
export function memoryStore(): (model: string) => Adapter {
  const rows = new Map<string, Stored>();
  const byUid = new Map<string, string>();
  const byUserCode = new Map<string, string>();
  const byGrant = new Map<string, Set<string>>();

  const live = (key: string): AdapterPayload | undefined => {
    const stored = rows.get(key);
    if (!stored) return undefined;
    if (stored.expiresAt > Date.now()) return stored.payload;
    rows.delete(key);
    return undefined;
  };

  return (model) => {
    const key = (id: string) => `${model}:${id}`;
    return {
      async upsert(id, payload, expiresIn) {
        rows.set(key(id), { payload, expiresAt: expiresIn === undefined ? Number.POSITIVE_INFINITY : Date.now() + expiresIn * 1000 });
        if (model === 'Session' && payload.uid) byUid.set(payload.uid, id);
        if (payload.userCode) byUserCode.set(payload.userCode, id);
        if (GRANTABLE.has(model) && payload.grantId) {
          const members = byGrant.get(payload.grantId) ?? new Set<string>();
          byGrant.set(payload.grantId, members.add(key(id)));
        }
      },
      async find(id) {
        return live(key(id));
      },
      async findByUid(uid) {
        const id = byUid.get(uid);
        return id === undefined ? undefined : live(key(id));
      },
      async findByUserCode(userCode) {
        const id = byUserCode.get(userCode);
        return id === undefined ? undefined : live(key(id));
      },
      async consume(id) {
        const payload = live(key(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id) {
        rows.delete(key(id));
      },
      async revokeByGrantId(grantId) {
        for (const member of byGrant.get(grantId) ?? []) rows.delete(member);
        byGrant.delete(grantId);
      },
    };
  };
}
