import type { EntityManager } from '@mikro-orm/postgresql';
import { Org } from '../orgs/org.entity';
import { Specialist } from '../orgs/specialist.entity';
import { FeatureFlag, TOOL_CALLING_FLAG } from '../orgs/feature-flag.entity';
import { ToolDefinition } from '../catalog/tool-definition.entity';
import { ToolPermission } from '../catalog/tool-permission.entity';
import { ToolSpecialistBinding } from '../catalog/tool-specialist-binding.entity';
import { IntegrationCredential } from '../credentials/integration-credential.entity';
import { ensureCatalog } from '../catalog/catalog.service';
import { putIntegrationCredential } from '../credentials/credential.service';
import { createOrg, createKey } from '../orgs/org.service';
import { ROLES, type Role } from '../auth/roles';
import { revokeApiKey, seededKeys } from '../auth/key-lifecycle.service';
import { appendLedgerEvent } from '../ledger/ledger.service';
import { SANDBOX_CREDENTIALS } from '../vendors';
import type { MasterKeyring } from '../credentials/keyring';

export const DEMO_ORG_SLUG = 'demo';
const DEMO_SPECIALIST = 'Support Specialist';

export interface SeedResult {
  orgId: string;
  specialistId: string;
  created: boolean;
  keys: Record<Role, string>;
  /** The demo keys an earlier seed issued, revoked by this one (announce them: open sockets close). */
  revokedKeyIds: string[];
}

export interface DemoIds {
  orgId: string;
  specialistId: string;
}

/** The demo org and its specialist, if a seed made them. */
export async function findDemo(em: EntityManager): Promise<DemoIds | null> {
  const org = await em.findOne(Org, { slug: DEMO_ORG_SLUG });
  const specialist = org && (await em.findOne(Specialist, { orgId: org.id, name: DEMO_SPECIALIST }));
  return org && specialist ? { orgId: org.id, specialistId: specialist.id } : null;
}

/**
 * Idempotently creates the demo org (specialist, catalog permissions and bindings, the
 * tool-calling flag, sandbox credentials) and issues a fresh key per role, revoking the demo
 * keys earlier seeds issued (keys made otherwise, e.g. `keys create`, stay).
 */
export async function seedDemo(em: EntityManager, keyring: MasterKeyring): Promise<SeedResult> {
  await ensureCatalog(em);
  let org = await em.findOne(Org, { slug: DEMO_ORG_SLUG });
  const created = !org;
  const keys = {} as Record<Role, string>;
  if (!org) {
    const result = await createOrg(em, { name: 'Demo Org', slug: DEMO_ORG_SLUG, seeded: true });
    org = result.org;
    keys.admin = result.adminKey.secret;
  }
  const orgId = org.id;

  const specialistId = await em.transactional(async (tx) => {
    let specialist = await tx.findOne(Specialist, { orgId, name: DEMO_SPECIALIST });
    if (!specialist) {
      specialist = tx.create(Specialist, {
        orgId,
        name: DEMO_SPECIALIST,
        description: 'Answers customers about orders, products, balances and identity checks',
        systemPrompt:
          'You are a helpful customer support specialist. Use the tools you are given to look up facts; ' +
          'never invent order, product or account data.',
      });
      await tx.flush();
      await appendLedgerEvent(tx, { orgId, type: 'specialist.created', resourceId: specialist.id, metadata: { name: DEMO_SPECIALIST } });
    }
    const tools = await tx.find(ToolDefinition, {});
    for (const tool of tools) {
      const permission = await tx.findOne(ToolPermission, { orgId, toolId: tool.id });
      if (!permission) tx.create(ToolPermission, { orgId, toolId: tool.id, enabled: true });
      const binding = await tx.findOne(ToolSpecialistBinding, { specialistId: specialist.id, toolId: tool.id });
      if (!binding) tx.create(ToolSpecialistBinding, { orgId, specialistId: specialist.id, toolId: tool.id });
    }
    const flag = await tx.findOne(FeatureFlag, { orgId, key: TOOL_CALLING_FLAG });
    if (!flag) tx.create(FeatureFlag, { orgId, key: TOOL_CALLING_FLAG, enabled: true });
    await tx.flush();
    return specialist.id;
  });

  // The credentials the in-process vendor sandboxes accept: the demo works out of the box.
  for (const [integrationType, config] of Object.entries(SANDBOX_CREDENTIALS)) {
    const existing = await em.findOne(IntegrationCredential, { orgId, integrationType });
    if (!existing) await putIntegrationCredential(em, keyring, { orgId }, integrationType, config);
  }

  const revokedKeyIds: string[] = [];
  if (!created) {
    for (const key of await seededKeys(em, orgId)) {
      if ((await revokeApiKey(em, orgId, key.id, null, 'seed_reissued')).revoked) revokedKeyIds.push(key.id);
    }
  }
  for (const role of ROLES) {
    keys[role] ??= (await createKey(em, orgId, role, undefined, { seeded: true })).secret;
  }
  return { orgId, specialistId, created, keys, revokedKeyIds };
}
