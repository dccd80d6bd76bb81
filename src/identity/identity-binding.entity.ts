import { Check, Entity, OneToOne, Property, Unique, type Opt } from '@mikro-orm/core';
import { TIMESTAMPTZ } from '../db/columns';
import { Org } from '../orgs/org.entity';

/** Which roles a person gets: role → the claim values (groups) that give it. */
export type RoleMap = Partial<Record<'admin' | 'expert' | 'client', string[]>>;

/**
 * An org's single sign-on: the issuer (a name in OIDC_ISSUERS) its people come from, the
 * tenant claim that tells this org's people from other orgs' on a shared issuer, and the
 * claim values that give each role. A person none of them match gets no role.
 */
@Entity({ tableName: 'identity_bindings' })
@Unique({
  name: 'identity_bindings_issuer_tenant',
  expression:
    'create unique index "identity_bindings_issuer_tenant" on "identity_bindings" ("issuer_name", coalesce("tenant_claim", \'\'), coalesce("tenant_value", \'\'))',
})
@Check({ name: 'identity_bindings_tenant_pair', expression: '(tenant_claim is null) = (tenant_value is null)' })
export class IdentityBinding {
  @OneToOne(() => Org, { primary: true, mapToPk: true, fieldName: 'org_id', deleteRule: 'cascade' })
  orgId!: string;

  @Property({ type: 'text' })
  issuerName!: string;

  @Property({ type: 'text', nullable: true })
  tenantClaim: string | null = null;

  @Property({ type: 'text', nullable: true })
  tenantValue: string | null = null;

  @Property({ type: 'text', default: 'groups' })
  roleClaim: Opt<string> = 'groups';

  @Property({ type: 'jsonb', default: '{}' })
  roleMap: Opt<RoleMap> = {};

  /** An OAuth access token with this scope acts as an agent of the org at /mcp (null: none does). */
  @Property({ type: 'text', nullable: true })
  agentScope: string | null = null;

  /** False: the ledger records a person's issuer and subject, not their name. */
  @Property({ type: 'boolean', default: true })
  recordNames: Opt<boolean> = true;

  @Property({ ...TIMESTAMPTZ, defaultRaw: 'now()' })
  createdAt: Opt<Date> = new Date();

  @Property({ ...TIMESTAMPTZ, defaultRaw: 'now()' })
  updatedAt: Opt<Date> = new Date();
}
