import type DataLoader from 'dataloader';
import { isUuid } from '../db/ids';

/** What a key's name is drawn from (an ApiKey row). */
interface NamedKey {
  name?: string | null;
  role: string;
  prefix: string;
}

/** A key as people know it: its name, else its role and prefix (never its secret). */
export const keyName = (key: NamedKey): string => key.name ?? `${key.role} key ${key.prefix}`;

/** The name of the org's key with this id, batched per request; null for no key (expiry, the runtime) or one of another org. */
export async function nameOfKey(
  loaders: { apiKeyById: DataLoader<string, NamedKey | null> },
  keyId: string | null | undefined,
): Promise<string | null> {
  if (!keyId || !isUuid(keyId)) return null;
  const key = await loaders.apiKeyById.load(keyId);
  return key ? keyName(key) : null;
}
