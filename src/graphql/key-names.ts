import type { ApiKey } from '../auth/api-key.entity';
import { isUuid } from '../db/ids';
import type { Loaders } from './loaders';

/** A key as people know it: its name, else its role and prefix (never its secret). */
export const keyName = (key: Pick<ApiKey, 'name' | 'role' | 'prefix'>): string => key.name ?? `${key.role} key ${key.prefix}`;

/** The name of the org's key with this id, batched per request; null for no key (expiry, the runtime) or one of another org. */
export async function nameOfKey(loaders: Pick<Loaders, 'apiKeyById'>, keyId: string | null | undefined): Promise<string | null> {
  if (!keyId || !isUuid(keyId)) return null;
  const key = await loaders.apiKeyById.load(keyId);
  return key ? keyName(key) : null;
}
