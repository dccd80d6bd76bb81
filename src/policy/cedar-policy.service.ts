import type { EntityManager } from '@mikro-orm/postgresql';
import { schemaToText, type SchemaJson, validate, policySetTextToParts } from '@cedar-policy/cedar-wasm/nodejs';
import { CedarPolicy } from './cedar-policy.entity';
import { ToolDefinition } from '../catalog/tool-definition.entity';
import type { Caller } from '../auth/caller';
import { badInput, notFound } from '../errors/app-error';
import { isUuid } from '../db/ids';
import { cedarSchema } from './cedar-schema';
import { readCedarPolicy } from './cedar-engine';
import { refuseUnreplayedChange } from './policy-lock';
import { recordPolicyChange } from './policy-rule.service';

export interface CedarPolicyInput {
  id?: string | null;
  name: string;
  position: number;
  text: string;
  enabled: boolean;
}

const MAX_TEXT = 20_000;

export async function listCedarPolicies(em: EntityManager, orgId: string): Promise<CedarPolicy[]> {
  return em.find(CedarPolicy, { orgId }, { orderBy: { position: 'asc', name: 'asc' } });
}

/** The org's Cedar schema (cedar-schema.ts): the catalog's tools and the org's imported ones. */
export async function orgCedarSchema(em: EntityManager, orgId: string): Promise<SchemaJson<string>> {
  const tools = await em.find(
    ToolDefinition,
    { $or: [{ orgId: null }, { orgId, removedAt: null }] },
    { orderBy: { toolName: 'asc', action: 'asc' }, fields: ['toolName', 'action', 'inputSchema'] },
  );
  return cedarSchema(tools);
}

/** The schema in Cedar's own syntax (the CLI and the `cedarSchema` query print it). */
export function cedarSchemaText(schema: SchemaJson<string>): string {
  const text = schemaToText(schema);
  if (text.type === 'failure') throw new Error(`generated Cedar schema does not print: ${text.errors.map((e) => e.message).join('; ')}`);
  return text.text;
}

/** Creates a Cedar policy, or replaces the one named by `id`, once validated; bumps the policy version. */
export async function upsertCedarPolicy(em: EntityManager, caller: Caller, input: CedarPolicyInput): Promise<CedarPolicy> {
  const name = input.name.trim();
  checkFields({ ...input, name });
  validateCedarText(input.text, await orgCedarSchema(em, caller.orgId));
  return em.transactional(async (tx) => {
    // A replay does not evaluate Cedar policies, so an org that requires one before a change cannot change them.
    await refuseUnreplayedChange(tx, caller.orgId);
    let policy: CedarPolicy | null = null;
    if (input.id) {
      policy = isUuid(input.id) ? await tx.findOne(CedarPolicy, { id: input.id, orgId: caller.orgId }) : null;
      if (!policy) throw notFound('Cedar policy');
    }
    const namesake = await tx.findOne(CedarPolicy, { orgId: caller.orgId, name });
    if (namesake && namesake.id !== policy?.id) throw badInput(`a Cedar policy named "${name}" exists already`, { field: 'name' });
    const fields = { name, position: input.position, text: input.text, enabled: input.enabled };
    const created = !policy;
    if (!policy) policy = tx.create(CedarPolicy, { orgId: caller.orgId, ...fields });
    else tx.assign(policy, { ...fields, updatedAt: new Date() });
    await recordPolicyChange(tx, caller.orgId, caller, policy.id, {
      change: created ? 'cedar_policy_created' : 'cedar_policy_updated',
      cedarPolicy: fields,
    });
    return policy;
  });
}

export async function deleteCedarPolicy(em: EntityManager, caller: Caller, id: string): Promise<void> {
  await em.transactional(async (tx) => {
    await refuseUnreplayedChange(tx, caller.orgId);
    const policy = isUuid(id) ? await tx.findOne(CedarPolicy, { id, orgId: caller.orgId }) : null;
    if (!policy) throw notFound('Cedar policy');
    tx.remove(policy);
    await recordPolicyChange(tx, caller.orgId, caller, policy.id, { change: 'cedar_policy_deleted', name: policy.name });
  });
}

function checkFields(input: CedarPolicyInput): void {
  if (input.name.length < 1 || input.name.length > 200 || input.name.includes('\u0000')) {
    throw badInput('name must be 1 to 200 characters', { field: 'name' });
  }
  if (!Number.isInteger(input.position) || input.position < 0 || input.position > 1_000_000) {
    throw badInput('position must be an integer from 0 to 1000000', { field: 'position' });
  }
  if (input.text.length > MAX_TEXT || input.text.includes('\u0000')) throw badInput(`text must be at most ${MAX_TEXT} characters`, { field: 'text' });
}

/**
 * One Cedar policy (not a template), that reads, validates against the org's schema (strict
 * mode) and carries the annotations Toolgate maps to an outcome; else BAD_USER_INPUT naming
 * `text` with Cedar's message.
 */
export function validateCedarText(text: string, schema: SchemaJson<string>): void {
  const refused = (message: string) => badInput(`Cedar policy refused: ${message}`, { field: 'text' });
  const parts = policySetTextToParts(text);
  if (parts.type === 'failure') throw refused(parts.errors.map((e) => e.message).join('; '));
  if (parts.policy_templates.length > 0 || parts.policies.length !== 1) throw refused('text must hold exactly one policy (no template)');
  const read = readCedarPolicy(text);
  if ('error' in read) throw refused(read.error);
  const answer = validate({ schema, policies: { staticPolicies: { policy: text } }, validationSettings: { mode: 'strict' } });
  if (answer.type === 'failure') throw refused(answer.errors.map((e) => e.message).join('; '));
  const problems = answer.validationErrors.map((e) => [e.error.message, e.error.help].filter(Boolean).join(' — '));
  if (problems.length > 0) throw refused(problems.join('; '));
}
