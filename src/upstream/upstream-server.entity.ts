import { Entity, Enum, ManyToOne, PrimaryKey, Property, Unique, type Opt } from '@mikro-orm/core';
import { newId, TIMESTAMPTZ } from '../db/columns';
import { Org } from '../orgs/org.entity';
import { RISK_LEVELS, type RiskLevel } from '../catalog/risk';

/** How Toolgate reaches an upstream MCP server. Only Streamable HTTP is built. */
export const UPSTREAM_TRANSPORTS = ['streamable_http'] as const;
export type UpstreamTransport = (typeof UPSTREAM_TRANSPORTS)[number];

/**
 * An MCP server an org's admin registered: its tools are imported into the catalog as
 * `mcp.<name>.<tool>` (tool definitions owned by the org) and run by the executor with the
 * SDK client. Its bearer token, if any, is the org's credential `mcp_<name>` in the vault.
 */
@Entity({ tableName: 'upstream_mcp_servers' })
@Unique({ properties: ['orgId', 'name'] })
export class UpstreamMcpServer {
  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @ManyToOne(() => Org, { mapToPk: true, fieldName: 'org_id' })
  orgId!: string;

  /** A safe identifier, the middle of its tools' names (`mcp.<name>.<tool>`). */
  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text' })
  url!: string;

  @Enum({ items: [...UPSTREAM_TRANSPORTS], type: 'text' })
  transport!: UpstreamTransport;

  /** The risk its imported tools get (what policy decides when no rule matches). */
  @Enum({ items: [...RISK_LEVELS], type: 'text' })
  defaultRisk!: RiskLevel;

  /** Whether its imported tools may be retried and re-run by reconciliation. */
  @Property({ type: 'boolean' })
  defaultIdempotent!: boolean;

  /** What each imported tool's call costs, in cents (the catalog's costCents for vendor tools). */
  @Property({ type: 'integer', default: 0 })
  defaultCostCents: Opt<number> = 0;

  @Property({ ...TIMESTAMPTZ })
  createdAt: Opt<Date> = new Date();

  @Property({ ...TIMESTAMPTZ, nullable: true })
  lastImportedAt: Date | null = null;
}
