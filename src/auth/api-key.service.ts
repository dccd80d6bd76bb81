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
  name: string | null;
  expiresAt: Date | null;
  createdAt: Date;
}

const SECRET_PREFIX = 'tg_';

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Keys are 192 random bits, so a fast hash is enough; no password stretching needed. */
export async function issueApiKey(
  em: EntityManager,
  orgId: string,
  role: Role,
  options: { name?: string | null; expiresAt?: Date | null; seeded?: boolean } = {},
): Promise<IssuedKey> {
  const secret = `${SECRET_PREFIX}${role}_${randomBytes(24).toString('base64url')}`;
  const key = em.create(ApiKey, {
    orgId,
    role,
    name: options.name ?? null,
    prefix: secret.slice(0, SECRET_PREFIX.length + role.length + 7),
    secretHash: hashSecret(secret),
    expiresAt: options.expiresAt ?? null,
    seeded: options.seeded ?? false,
  });
  em.persist(key);
  await em.flush();
  return { id: key.id, role, secret, name: key.name, expiresAt: key.expiresAt, createdAt: key.createdAt };
}

/**
 * The key of `Bearer <key>` (the scheme case-insensitive, RFC 6750). Anything else — no
 * header, another scheme, a bare key — is null: no key was sent in the documented form, and
 * the caller is refused UNAUTHENTICATED with a message naming it.
 */
export function parseAuthorization(header: unknown): string | null {
  if (typeof header !== 'string') return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header.trim());
  return match ? match[1] : null;
}

/** A key that is valid now: its caller, and when it stops being valid (null: never). */
export interface ValidKey {
  caller: Caller;
  expiresAt: number | null;
}

interface KeyRow {
  id: string;
  org_id: string;
  role: Role;
  revoked: boolean;
  expires_at: Date | null;
  suspended: boolean;
}

const KEY_LOOKUP = `select k.id, k.org_id, k.role, k.revoked_at is not null as revoked, k.expires_at, o.suspended_at is not null as suspended
  from api_keys k join orgs o on o.id = k.org_id`;

/**
 * Resolves a secret to its caller: an unknown, revoked or expired key is UNAUTHENTICATED, a
 * valid key of a suspended org ORG_SUSPENDED. Once per HTTP request and per websocket
 * connection: a plain query, no entity to build. `now` is the expiry clock's.
 */
export async function authenticate(em: SqlRunner, secret: string, now: number): Promise<ValidKey> {
  const [row] = await em.execute<KeyRow[]>(`${KEY_LOOKUP} where k.secret_hash = ?`, [hashSecret(secret)]);
  return validKey(row, now);
}

/** The same checks for a key already identified (each websocket operation, each subscription event). */
export async function checkKey(em: SqlRunner, keyId: string, now: number): Promise<ValidKey> {
  const [row] = await em.execute<KeyRow[]>(`${KEY_LOOKUP} where k.id = ?`, [keyId]);
  return validKey(row, now);
}

function validKey(row: KeyRow | undefined, now: number): ValidKey {
  if (!row || row.revoked) throw new AppError('UNAUTHENTICATED', 'The API key is not valid');
  const expiresAt = row.expires_at ? new Date(row.expires_at).getTime() : null;
  if (expiresAt !== null && expiresAt <= now) throw new AppError('UNAUTHENTICATED', 'The API key has expired');
  if (row.suspended) throw new AppError('ORG_SUSPENDED', 'The organization is suspended');
  return { caller: { orgId: row.org_id, role: row.role, keyId: row.id }, expiresAt };
}
