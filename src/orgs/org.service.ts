import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import { newId } from '../db/columns';
import { Org } from './org.entity';
import { Specialist } from './specialist.entity';
import { FeatureFlag } from './feature-flag.entity';
import { issueApiKey, type IssuedKey } from '../auth/api-key.service';
import type { Caller } from '../auth/caller';
import type { Role } from '../auth/roles';
import { appendLedgerEvent } from '../ledger/ledger.service';
import { AppError, badInput, notFound } from '../errors/app-error';
import { isUuid } from '../db/ids';
import { recordConfigChange } from './config-version';
import { checkThinkingBudget } from '../llm/thinking';

const FLAG_KEY = /^[a-z][a-z0-9_.]{0,63}$/;

export async function findOrg(em: EntityManager, orgId: string): Promise<Org> {
  const org = isUuid(orgId) ? await em.findOne(Org, { id: orgId }) : null;
  if (!org) throw notFound('Org');
  return org;
}

/** A new tenant and its first admin key. */
export async function createOrg(
  em: EntityManager,
  input: { name: string; slug?: string; seeded?: boolean },
): Promise<{ org: Org; adminKey: IssuedKey }> {
  const name = cleanName(input.name, 'name');
  return em.transactional(async (tx) => {
    const org = tx.create(Org, { name, slug: input.slug ?? null });
    await tx.flush();
    const adminKey = await issueApiKey(tx, org.id, 'admin', { name: 'first admin key', seeded: input.seeded });
    await appendLedgerEvent(tx, { orgId: org.id, type: 'org.created', resourceId: org.id, metadata: { name } });
    await appendLedgerEvent(tx, {
      orgId: org.id,
      type: 'api_key.created',
      resourceId: adminKey.id,
      metadata: { role: 'admin' },
    });
    return { org, adminKey };
  });
}

/** A key without a name or expiry (the seed, tests); `createApiKey` takes those too. */
export async function createKey(
  em: EntityManager,
  orgId: string,
  role: Role,
  actor?: Caller,
  options: { seeded?: boolean } = {},
): Promise<IssuedKey> {
  return em.transactional(async (tx) => {
    await findOrg(tx, orgId);
    const key = await issueApiKey(tx, orgId, role, { seeded: options.seeded });
    await appendLedgerEvent(tx, { orgId, type: 'api_key.created', resourceId: key.id, actor, metadata: { role } });
    return key;
  });
}

export async function findSpecialist(em: EntityManager, orgId: string, specialistId: string): Promise<Specialist> {
  const specialist = isUuid(specialistId) ? await em.findOne(Specialist, { id: specialistId, orgId }) : null;
  if (!specialist) throw notFound('Specialist');
  return specialist;
}

export async function listSpecialists(em: EntityManager, orgId: string): Promise<Specialist[]> {
  return em.find(Specialist, { orgId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

export async function createSpecialist(
  em: EntityManager,
  caller: Caller,
  input: { name: string; description?: string | null; systemPrompt?: string | null; thinkingBudgetTokens?: number | null },
): Promise<Specialist> {
  const name = cleanName(input.name, 'name');
  const description = optionalText(input.description, 'description', 2_000);
  const systemPrompt = optionalText(input.systemPrompt, 'systemPrompt', 20_000);
  const thinkingBudgetTokens = checkThinkingBudget(input.thinkingBudgetTokens);
  return em.transactional(async (tx) => {
    const specialist = tx.create(Specialist, {
      orgId: caller.orgId,
      name,
      description,
      systemPrompt,
      thinkingBudgetTokens,
    });
    await tx.flush();
    await appendLedgerEvent(tx, {
      orgId: caller.orgId,
      type: 'specialist.created',
      resourceId: specialist.id,
      actor: caller,
      metadata: { name, thinkingBudgetTokens },
    });
    return specialist;
  });
}

/**
 * Turns a specialist's extended thinking on (a budget) or off (null), for runs started from
 * now on (a run keeps the budget it started with); recorded in the ledger.
 */
export async function setSpecialistThinking(
  em: EntityManager,
  caller: Caller,
  specialistId: string,
  budgetTokens: number | null,
): Promise<Specialist> {
  const budget = checkThinkingBudget(budgetTokens);
  return em.transactional(async (tx) => {
    const specialist = await findSpecialist(tx, caller.orgId, specialistId);
    const previous = specialist.thinkingBudgetTokens;
    specialist.thinkingBudgetTokens = budget;
    await tx.flush();
    await appendLedgerEvent(tx, {
      orgId: caller.orgId,
      type: 'specialist.thinking_changed',
      resourceId: specialist.id,
      actor: caller,
      metadata: { thinkingBudgetTokens: budget, previous },
    });
    return specialist;
  });
}

export async function listFeatureFlags(em: EntityManager, orgId: string): Promise<FeatureFlag[]> {
  return em.find(FeatureFlag, { orgId }, { orderBy: { key: 'asc' } });
}

export async function setFeatureFlag(em: EntityManager, caller: Caller, key: string, enabled: boolean): Promise<FeatureFlag> {
  if (!FLAG_KEY.test(key)) {
    throw badInput('key must be lowercase letters, digits, "_" or "." (at most 64)', { field: 'key' });
  }
  return em.transactional(async (tx) => {
    // An upsert: concurrent first writes of one flag each find the row (one inserts it, off —
    // what no row means — the others wait on the unique index), then change it in turn.
    await tx
      .createQueryBuilder(FeatureFlag)
      .insert({ id: newId(), orgId: caller.orgId, key, enabled: false, updatedAt: new Date() })
      .onConflict(['orgId', 'key'])
      .ignore()
      .execute();
    const flag = await tx.findOneOrFail(FeatureFlag, { orgId: caller.orgId, key }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const previous = flag.enabled;
    flag.enabled = enabled;
    flag.updatedAt = new Date();
    await recordConfigChange(tx, caller, { type: 'feature_flag.changed', resourceId: flag.id, metadata: { key, enabled, previous } });
    return flag;
  });
}

function cleanName(value: string, field: string): string {
  const name = value.trim();
  if (name.length < 1 || name.length > 200 || name.includes('\u0000')) {
    throw new AppError('BAD_USER_INPUT', `${field} must be 1 to 200 characters, without NUL`, { field });
  }
  return name;
}

/** PostgreSQL text cannot hold NUL; say so instead of failing in the database. */
function optionalText(value: string | null | undefined, field: string, max: number): string | null {
  if (value === null || value === undefined) return null;
  if (value.length > max || value.includes('\u0000')) {
    throw badInput(`${field} must be at most ${max} characters, without NUL`, { field });
  }
  return value;
}
