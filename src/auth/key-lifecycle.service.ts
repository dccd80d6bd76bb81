import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKey } from './api-key.entity';
import { issueApiKey, type IssuedKey } from './api-key.service';
import type { Caller } from './caller';
import { isRole, ROLES, type Role } from './roles';
import { appendLedgerEvent } from '../ledger/ledger.service';
import { badInput, notFound } from '../errors/app-error';
import { isUuid } from '../db/ids';
import { findOrg } from '../orgs/org.service';
import { paginate, type Connection, type PageRequest } from '../graphql/paging';

export const MAX_KEY_NAME_LENGTH = 200;
// The latest instant PostgreSQL and the ORM both take.
const LATEST_EXPIRY = Date.parse('9999-12-31T23:59:59.999Z');

export interface NewKey {
  role: string;
  name?: string | null;
  expiresAt?: Date | null;
}

/**
 * Issues a key of the org: the secret is in the answer and nowhere else. Checked before
 * anything is written: a known role, a name of 1–200 characters without NUL, an expiry
 * in the future (`now`, the access clock's). `actor` is null for the `toolgate` command.
 */
export async function createApiKey(
  em: EntityManager,
  orgId: string,
  input: NewKey,
  options: { actor: Caller | null; now: number; seeded?: boolean },
): Promise<IssuedKey> {
  if (!isRole(input.role)) throw badInput(`role must be one of ${ROLES.join(', ')}`, { field: 'role' });
  const role: Role = input.role;
  const name = keyName(input.name);
  const expiresAt = input.expiresAt ?? null;
  if (expiresAt !== null) {
    const at = expiresAt.getTime();
    if (Number.isNaN(at) || at <= options.now || at > LATEST_EXPIRY) {
      throw badInput('expiresAt must be a time in the future (before the year 10000)', { field: 'expiresAt' });
    }
  }
  return em.transactional(async (tx) => {
    await findOrg(tx, orgId);
    const key = await issueApiKey(tx, orgId, role, { name, expiresAt, seeded: options.seeded });
    await appendLedgerEvent(tx, {
      orgId,
      type: 'api_key.created',
      resourceId: key.id,
      actor: options.actor,
      metadata: { role, name, expiresAt: expiresAt?.toISOString() ?? null },
    });
    return key;
  });
}

/**
 * Revokes a key of the org (another org's key, like none, is NOT_FOUND). Revoking a revoked
 * key changes nothing and answers it as it is. `revoked` tells whether this call revoked it:
 * only then must its open connections be closed (KeyAccess.withdrawn, after this commits).
 */
export async function revokeApiKey(
  em: EntityManager,
  orgId: string,
  keyId: string,
  actor: Caller | null,
  reason: 'revoked' | 'seed_reissued' = 'revoked',
): Promise<{ key: ApiKey; revoked: boolean }> {
  if (!isUuid(keyId)) throw notFound('API key');
  return em.transactional(async (tx) => {
    const [row] = await tx.execute<{ role: Role }[]>(
      'update api_keys set revoked_at = now() where id = ? and org_id = ? and revoked_at is null returning role',
      [keyId, orgId],
    );
    if (row) {
      await appendLedgerEvent(tx, { orgId, type: 'api_key.revoked', resourceId: keyId, actor, metadata: { role: row.role, reason } });
    }
    const key = await tx.findOne(ApiKey, { id: keyId, orgId }, { refresh: true });
    if (!key) throw notFound('API key');
    return { key, revoked: Boolean(row) };
  });
}

/** The org's keys, newest first (a cursor connection). */
export function listApiKeys<N>(em: EntityManager, orgId: string, args: PageRequest, toNode: (key: ApiKey) => N): Promise<Connection<N>> {
  return paginate(em, ApiKey, { orgId }, args, 'newest_first', toNode);
}

/** The demo keys a previous `seed` issued and nobody revoked yet. */
export async function seededKeys(em: EntityManager, orgId: string): Promise<ApiKey[]> {
  return em.find(ApiKey, { orgId, seeded: true, revokedAt: null }, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

function keyName(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const name = value.trim();
  if (name.length < 1 || name.length > MAX_KEY_NAME_LENGTH || name.includes('\u0000')) {
    throw badInput(`name must be 1 to ${MAX_KEY_NAME_LENGTH} characters, without NUL`, { field: 'name' });
  }
  return name;
}
