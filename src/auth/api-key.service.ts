import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { SqlRunner } from '../db/raw-transaction';
import { ApiKey } from './api-key.entity';
import type { Caller } from './caller';
import type { Role } from './roles';
import { AppError } from '../errors/app-error';

export interface IssuedKey {
  id: string;
  role: Role;
  /** The only time the secret exists outside the caller's hands. */
  secret: string;
}

const SECRET_PREFIX = 'tg_';

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Keys are 192 random bits, so a fast hash is enough; no password stretching needed. */
export async function issueApiKey(em: EntityManager, orgId: string, role: Role, name?: string): Promise<IssuedKey> {
  const secret = `${SECRET_PREFIX}${role}_${randomBytes(24).toString('base64url')}`;
  const key = em.create(ApiKey, {
    orgId,
    role,
    name: name ?? null,
    prefix: secret.slice(0, SECRET_PREFIX.length + role.length + 7),
    secretHash: hashSecret(secret),
  });
  em.persist(key);
  await em.flush();
  return { id: key.id, role, secret };
}

/** Accepts `Bearer <key>` or the bare key. Returns null when no key was sent. */
export function parseAuthorization(header: unknown): string | null {
  if (typeof header !== 'string' || header.trim() === '') return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header.trim());
  return match ? match[1] : header.trim();
}

/** Resolves a secret to its caller; an unknown or revoked key is UNAUTHENTICATED. */
/** Once per HTTP request and per websocket connection: a plain query, no entity to build. */
export async function authenticate(em: SqlRunner, secret: string): Promise<Caller> {
  const [key] = await em.execute<{ id: string; org_id: string; role: Role }[]>(
    'select id, org_id, role from api_keys where secret_hash = ? and revoked_at is null',
    [hashSecret(secret)],
  );
  if (!key) throw new AppError('UNAUTHENTICATED', 'The API key is not valid');
  return { orgId: key.org_id, role: key.role, keyId: key.id };
}
