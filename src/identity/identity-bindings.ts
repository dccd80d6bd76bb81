import type { EntityManager } from '@mikro-orm/postgresql';
import type { Caller } from '../auth/caller';
import type { SqlRunner } from '../db/raw-transaction';
import { AppError, badInput } from '../errors/app-error';
import { appendLedgerEvent } from '../ledger/ledger.service';
import { IdentityBinding, type RoleMap } from './identity-binding.entity';
import type { Issuers } from './issuers';
import { PERSON_ROLES, tenantMatches } from './role-mapping';

/** What an admin (GraphQL) or an operator (`toolgate identity bind`) sets. */
export interface IdentityBindingInput {
  issuerName: string;
  tenantClaim?: string | null;
  tenantValue?: string | null;
  roleClaim?: string | null;
  roleMap: RoleMap;
  agentScope?: string | null;
  recordNames?: boolean | null;
}

const CLAIM = /^[A-Za-z][A-Za-z0-9_:./-]{0,63}$/;
const MAX_VALUES_PER_ROLE = 50;
const MAX_VALUE_LENGTH = 256;

function checkValue(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '' || value.length > MAX_VALUE_LENGTH || value.includes('\u0000')) {
    throw badInput(`${field} must be a non-empty string of at most ${MAX_VALUE_LENGTH} characters`, { field });
  }
  return value;
}

/** The input checked and normalised; throws BAD_USER_INPUT naming the field, before anything is written. */
function checked(issuers: Issuers, input: IdentityBindingInput): Omit<IdentityBinding, 'orgId' | 'createdAt' | 'updatedAt'> {
  if (!issuers.byName(input.issuerName)) {
    const known = issuers.list.map((i) => i.name).join(', ') || 'none';
    throw badInput(`No issuer named "${input.issuerName}" in OIDC_ISSUERS (configured: ${known})`, { field: 'issuerName' });
  }
  const tenantClaim = input.tenantClaim ?? null;
  const tenantValue = input.tenantValue ?? null;
  if ((tenantClaim === null) !== (tenantValue === null)) {
    throw badInput('tenantClaim and tenantValue go together', { field: tenantClaim === null ? 'tenantClaim' : 'tenantValue' });
  }
  if (tenantClaim !== null && !CLAIM.test(tenantClaim)) throw badInput('tenantClaim is not a claim name', { field: 'tenantClaim' });
  if (tenantValue !== null) checkValue(tenantValue, 'tenantValue');
  const roleClaim = input.roleClaim ?? 'groups';
  if (!CLAIM.test(roleClaim)) throw badInput('roleClaim is not a claim name', { field: 'roleClaim' });
  const roleMap: RoleMap = {};
  for (const [role, values] of Object.entries(input.roleMap ?? {})) {
    if (!(PERSON_ROLES as readonly string[]).includes(role)) {
      throw badInput(`People get the roles ${PERSON_ROLES.join(', ')}, not ${role}`, { field: 'roleMap' });
    }
    if (!Array.isArray(values) || values.length > MAX_VALUES_PER_ROLE) {
      throw badInput(`roleMap.${role} is a list of at most ${MAX_VALUES_PER_ROLE} claim values`, { field: `roleMap.${role}` });
    }
    const list = [...new Set(values.map((v) => checkValue(v, `roleMap.${role}`)))];
    if (list.length > 0) roleMap[role as keyof RoleMap] = list;
  }
  const agentScope = input.agentScope ?? null;
  if (agentScope !== null && !/^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/.test(agentScope)) {
    throw badInput('agentScope is not an OAuth scope token', { field: 'agentScope' });
  }
  return { issuerName: input.issuerName, tenantClaim, tenantValue, roleClaim, roleMap, agentScope, recordNames: input.recordNames ?? true };
}

/**
 * Binds the org to an issuer (replacing its binding), recorded in the ledger as
 * `identity.changed`. Another org bound to the same issuer and tenant is a CONFLICT, as is
 * one of them naming no tenant: a person must never have two orgs to land in.
 */
export async function setIdentityBinding(
  em: EntityManager,
  issuers: Issuers,
  orgId: string,
  actor: Caller | null,
  input: IdentityBindingInput,
): Promise<IdentityBinding> {
  const fields = checked(issuers, input);
  return em.transactional(async (tx) => {
    // Serialises binding changes per issuer: the overlap check below sees every committed one.
    await tx.execute('select pg_advisory_xact_lock(hashtext(?))', [`identity_binding:${fields.issuerName}`]);
    const others = await tx.find(IdentityBinding, { issuerName: fields.issuerName, orgId: { $ne: orgId } });
    // Orgs on one issuer are told apart by one claim: two claims (say `tenant` and `email`) could
    // both match one person, who would then land in no org — one tenant admin locking out another's people.
    const overlapping = others.find(
      (other) =>
        other.tenantClaim === null ||
        fields.tenantClaim === null ||
        other.tenantClaim !== fields.tenantClaim ||
        other.tenantValue === fields.tenantValue,
    );
    if (overlapping) {
      const why =
        overlapping.tenantClaim === null || fields.tenantClaim === null
          ? 'without a tenant claim'
          : overlapping.tenantClaim !== fields.tenantClaim
            ? `by another tenant claim (${overlapping.tenantClaim})`
            : 'with the same tenant';
      throw new AppError(
        'CONFLICT',
        `Another organization is bound to the issuer ${fields.issuerName} ${why}: orgs on one issuer are told apart by one tenantClaim, each with its own tenantValue`,
      );
    }
    let binding = await tx.findOne(IdentityBinding, { orgId });
    const replaced = binding !== null;
    if (!binding) binding = tx.create(IdentityBinding, { orgId, ...fields });
    else Object.assign(binding, fields, { updatedAt: new Date() });
    await tx.flush();
    await appendLedgerEvent(tx, {
      orgId,
      type: 'identity.changed',
      resourceId: orgId,
      actor,
      metadata: { change: replaced ? 'replaced' : 'bound', ...fields },
    });
    return binding;
  });
}

/** Unbinds the org: its people can no longer sign in (their open sessions end when they expire or sign out). */
export async function removeIdentityBinding(em: EntityManager, orgId: string, actor: Caller | null): Promise<boolean> {
  return em.transactional(async (tx) => {
    const binding = await tx.findOne(IdentityBinding, { orgId });
    if (!binding) return false;
    tx.remove(binding);
    await tx.flush();
    await appendLedgerEvent(tx, {
      orgId,
      type: 'identity.changed',
      resourceId: orgId,
      actor,
      metadata: { change: 'removed', issuerName: binding.issuerName },
    });
    return true;
  });
}

interface BindingRow {
  org_id: string;
  issuer_name: string;
  tenant_claim: string | null;
  tenant_value: string | null;
  role_claim: string;
  role_map: RoleMap;
  agent_scope: string | null;
  record_names: boolean;
}

export type BindingOfOrg = Pick<
  IdentityBinding,
  'orgId' | 'issuerName' | 'tenantClaim' | 'tenantValue' | 'roleClaim' | 'roleMap' | 'agentScope' | 'recordNames'
>;

const toBinding = (row: BindingRow): BindingOfOrg => ({
  orgId: row.org_id,
  issuerName: row.issuer_name,
  tenantClaim: row.tenant_claim,
  tenantValue: row.tenant_value,
  roleClaim: row.role_claim,
  roleMap: row.role_map,
  agentScope: row.agent_scope,
  recordNames: row.record_names,
});

const BINDING_COLUMNS = 'org_id, issuer_name, tenant_claim, tenant_value, role_claim, role_map, agent_scope, record_names';

export async function bindingOfOrg(em: SqlRunner, orgId: string): Promise<BindingOfOrg | null> {
  const [row] = await em.execute<BindingRow[]>(`select ${BINDING_COLUMNS} from identity_bindings where org_id = ?`, [orgId]);
  return row ? toBinding(row) : null;
}

/** The org an identity of this issuer belongs to: the one binding whose tenant its claims match, else null. */
export async function bindingForIdentity(em: SqlRunner, issuerName: string, claims: Record<string, unknown>): Promise<BindingOfOrg | null> {
  const rows = await em.execute<BindingRow[]>(`select ${BINDING_COLUMNS} from identity_bindings where issuer_name = ?`, [issuerName]);
  const matching = rows.map(toBinding).filter((binding) => tenantMatches(binding, claims));
  // Bindings never overlap (setIdentityBinding); two matches would be a broken invariant, and nobody gets in.
  return matching.length === 1 ? matching[0] : null;
}
