import type { EntityManager } from '@mikro-orm/postgresql';
import { PolicyRule } from './policy-rule.entity';
import { CONDITION_PATH, type CompiledRule } from './policy-evaluator';
import { ROLES } from '../auth/roles';
import type { Caller } from '../auth/caller';
import { appendLedgerEvent } from '../ledger/ledger.service';
import { bumpConfigVersion } from '../orgs/config-version';
import { findOrg, findSpecialist } from '../orgs/org.service';
import { badInput, notFound } from '../errors/app-error';
import { isUuid } from '../db/ids';
import { HISTORY_KINDS, HISTORY_SCOPES, type HistoryCondition, MAX_HISTORY_WINDOW_SECONDS } from './policy-history';

/** A rule as an admin writes it: the evaluator's fields, optionally an id to replace, and whether it is on. */
export interface PolicyRuleInput extends Omit<CompiledRule, 'id' | 'specialistId' | 'history'> {
  id?: string | null;
  /** Absent fields are null (checked by validateRule). */
  history?: readonly Partial<HistoryCondition>[];
  specialistId?: string | null;
  enabled: boolean;
}

/** A rule's fields as stored and evaluated: the name trimmed, roles once each, no specialist as null. */
export function ruleFields(input: PolicyRuleInput): Omit<CompiledRule, 'id' | 'history'> & { history: HistoryCondition[] } {
  return {
    name: input.name.trim(),
    position: input.position,
    toolPattern: input.toolPattern,
    actionPattern: input.actionPattern,
    conditions: input.conditions,
    history: (input.history ?? []).map(historyFields),
    roles: [...new Set(input.roles)],
    specialistId: input.specialistId ?? null,
    risk: input.risk,
    decision: input.decision,
  };
}

const PATTERN = /^[A-Za-z0-9_*?.-]{1,100}$/;
/** A history condition names one tool and action exactly (the index is by tool name). */
const NAME = /^[A-Za-z0-9_.-]{1,200}$/;

/** A history condition as stored: every field present, absent ones null. */
function historyFields(h: Partial<HistoryCondition>): HistoryCondition {
  return {
    kind: h.kind!,
    tool: h.tool!,
    action: h.action ?? null,
    scope: h.scope!,
    customerPath: h.customerPath ?? null,
    paramPath: h.paramPath ?? null,
    windowSeconds: h.windowSeconds ?? null,
    limit: h.limit ?? null,
  };
}

export async function listPolicyRules(em: EntityManager, orgId: string): Promise<PolicyRule[]> {
  return em.find(PolicyRule, { orgId }, { orderBy: { position: 'asc', createdAt: 'asc', id: 'asc' } });
}

/** Creates a rule, or replaces the one named by `id`; bumps the policy version. */
export async function upsertPolicyRule(em: EntityManager, caller: Caller, input: PolicyRuleInput): Promise<PolicyRule> {
  validateRule(input);
  return em.transactional(async (tx) => {
    if (input.specialistId) await findSpecialist(tx, caller.orgId, input.specialistId);
    let rule: PolicyRule | null = null;
    if (input.id) {
      rule = isUuid(input.id) ? await tx.findOne(PolicyRule, { id: input.id, orgId: caller.orgId }) : null;
      if (!rule) throw notFound('Policy rule');
    }
    const fields = { ...ruleFields(input), enabled: input.enabled };
    const created = !rule;
    if (!rule) rule = tx.create(PolicyRule, { orgId: caller.orgId, ...fields });
    else tx.assign(rule, { ...fields, updatedAt: new Date() });
    await recordPolicyChange(tx, caller, rule.id, { change: created ? 'rule_created' : 'rule_updated', rule: fields });
    return rule;
  });
}

export async function deletePolicyRule(em: EntityManager, caller: Caller, ruleId: string): Promise<void> {
  await em.transactional(async (tx) => {
    const rule = isUuid(ruleId) ? await tx.findOne(PolicyRule, { id: ruleId, orgId: caller.orgId }) : null;
    if (!rule) throw notFound('Policy rule');
    // Past decisions lose the link (on delete set null) but keep the rule's name in their reason.
    tx.remove(rule);
    await recordPolicyChange(tx, caller, rule.id, { change: 'rule_deleted', name: rule.name });
  });
}

export async function setPolicyShadowMode(em: EntityManager, caller: Caller, enabled: boolean): Promise<number> {
  return em.transactional(async (tx) => {
    const org = await findOrg(tx, caller.orgId);
    const previous = org.policyShadowMode;
    org.policyShadowMode = enabled;
    return recordPolicyChange(tx, caller, caller.orgId, { change: 'shadow_mode', enabled, previous });
  });
}

/**
 * The end of every policy change: the change written, the org's policy version bumped
 * (nodes reload their rules) and `policy.changed` appended with the new version. Returns it.
 */
export async function recordPolicyChange(tx: EntityManager, caller: Caller, resourceId: string, metadata: Record<string, unknown>): Promise<number> {
  await tx.flush();
  const { policyVersion } = await bumpConfigVersion(tx, caller.orgId, { policy: true });
  await appendLedgerEvent(tx, { orgId: caller.orgId, type: 'policy.changed', resourceId, actor: caller, metadata: { ...metadata, policyVersion } });
  return policyVersion;
}

/** Refuses a rule an admin may not save (BAD_USER_INPUT naming the field); a draft replayed is checked the same way. */
export function validateRule(input: PolicyRuleInput): void {
  const name = input.name.trim();
  if (name.length < 1 || name.length > 200 || name.includes('\u0000')) throw badInput('name must be 1 to 200 characters', { field: 'name' });
  if (!Number.isInteger(input.position) || input.position < 0 || input.position > 1_000_000) {
    throw badInput('position must be an integer from 0 to 1000000', { field: 'position' });
  }
  for (const field of ['toolPattern', 'actionPattern'] as const) {
    if (!PATTERN.test(input[field])) throw badInput(`${field} must be a glob of letters, digits, _ . - * ?`, { field });
  }
  for (const role of input.roles) {
    if (!(ROLES as readonly string[]).includes(role)) throw badInput(`unknown role ${role}`, { field: 'roles' });
  }
  if (input.conditions.length > 20) throw badInput('at most 20 conditions', { field: 'conditions' });
  input.conditions.forEach((c, i) => {
    const field = `conditions[${i}]`;
    if (!CONDITION_PATH.test(c.path) || c.path.length > 200)
      throw badInput(`${field}.path must be a JSON path like amount or customer.country`, { field });
    if (c.op === 'in' && !Array.isArray(c.value)) throw badInput(`${field}.value must be a list for "in"`, { field });
    if ((c.op === 'lt' || c.op === 'gt') && (typeof c.value !== 'number' || !Number.isFinite(c.value))) {
      throw badInput(`${field}.value must be a number for "${c.op}"`, { field });
    }
    if (c.op === 'equals' && c.value === undefined) throw badInput(`${field}.value is required for "equals"`, { field });
    if (c.op === 'exists' && c.value !== undefined && c.value !== null && typeof c.value !== 'boolean') {
      throw badInput(`${field}.value must be true or false for "exists"`, { field });
    }
  });
  const history: unknown = input.history ?? [];
  if (!Array.isArray(history)) throw badInput('history must be a list of history conditions', { field: 'history' });
  if (history.length > 10) throw badInput('at most 10 history conditions', { field: 'history' });
  for (const [i, h] of history.entries()) validateHistory(h, `history[${i}]`);
}

/** One history condition (policy-history.ts): every field the kind and scope need, and nothing that means nothing. */
function validateHistory(raw: unknown, at: string): void {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw badInput(`${at} must be an object`, { field: at });
  const h = raw as Record<string, unknown>;
  const refuse = (name: string, message: string): never => {
    throw badInput(`${at}.${name} ${message}`, { field: `${at}.${name}` });
  };
  const given = (name: string) => h[name] !== undefined && h[name] !== null;
  if (!(HISTORY_KINDS as readonly unknown[]).includes(h.kind)) refuse('kind', `must be one of ${HISTORY_KINDS.join(', ')}`);
  if (!(HISTORY_SCOPES as readonly unknown[]).includes(h.scope)) refuse('scope', `must be one of ${HISTORY_SCOPES.join(', ')}`);
  if (typeof h.tool !== 'string' || !NAME.test(h.tool)) refuse('tool', 'must be a tool name (letters, digits, _ . -)');
  if (given('action') && (typeof h.action !== 'string' || !NAME.test(h.action))) refuse('action', 'must be an action name, or null for any');
  const isPath = (v: unknown) => typeof v === 'string' && v.length <= 200 && CONDITION_PATH.test(v);
  const path = (name: string, needed: boolean, why: string) => {
    if (needed && !isPath(h[name])) refuse(name, `must be a param path like amount or customer.id (${why})`);
    if (!needed && given(name)) refuse(name, `must be absent (${why})`);
  };
  path('customerPath', h.scope === 'customer', 'the customer scope reads it');
  path('paramPath', h.kind !== 'count', h.kind === 'count' ? 'a count reads no param' : `${h.kind} reads it`);
  if (given('windowSeconds')) {
    const w = h.windowSeconds;
    if (typeof w !== 'number' || !Number.isInteger(w) || w < 1 || w > MAX_HISTORY_WINDOW_SECONDS) {
      refuse('windowSeconds', `must be an integer from 1 to ${MAX_HISTORY_WINDOW_SECONDS} (31 days)`);
    }
  } else if (h.scope !== 'run') {
    refuse('windowSeconds', `is required for the ${h.scope} scope (at most 31 days): only a run's history is read whole`);
  }
  if (h.kind === 'not_after') {
    if (given('limit')) refuse('limit', 'must be absent for not_after');
  } else {
    const limit = h.limit;
    if (typeof limit !== 'number' || !Number.isFinite(limit) || limit < 0 || limit > 1e12) refuse('limit', 'must be a number from 0 to 1e12');
    if (h.kind === 'count' && !Number.isInteger(limit)) refuse('limit', 'must be an integer for count');
  }
}
