import { Entity, Enum, Index, ManyToOne, PrimaryKey, Property, Unique, type Opt } from '@mikro-orm/core';
import { newId, TIMESTAMPTZ } from '../db/columns';
import { Org } from '../orgs/org.entity';
import { UpstreamMcpServer } from '../upstream/upstream-server.entity';
import { RISK_LEVELS, type RiskLevel } from './risk';

/** The third-party text of an imported tool: what the model reads and what validates its input. */
export interface PinnedText {
  title: string | null;
  description: string;
  inputSchema: Record<string, unknown>;
}

/**
 * The tool catalog: one row per `tool.action`. The vendors' rows (`orgId` null) are global,
 * written from the vendor handlers' actions at start (ensureCatalog; edit the action, not
 * the row). An org's imported upstream MCP tools (`mcp.<server>.<tool>`) are the org's own
 * rows, written by its imports; one key per org (the global rows are one org, "none").
 */
@Entity({ tableName: 'tool_definitions' })
@Unique({
  name: 'tool_definitions_org_key_unique',
  expression:
    'create unique index "tool_definitions_org_key_unique" on "tool_definitions" (coalesce("org_id", \'00000000-0000-0000-0000-000000000000\'::uuid), "tool_name", "action")',
})
export class ToolDefinition {
  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @Property({ type: 'text' })
  toolName!: string;

  @Property({ type: 'text' })
  action!: string;

  /** Key of the vendor handler that executes it (its handler's `vendor`). */
  @Property({ type: 'text' })
  vendor!: string;

  @Property({ type: 'text' })
  description!: string;

  @Enum({ items: [...RISK_LEVELS], type: 'text' })
  defaultRisk!: RiskLevel;

  /** Safe to retry: repeating it has no further effect at the vendor. */
  @Property({ type: 'boolean' })
  idempotent!: boolean;

  @Property({ type: 'json' })
  inputSchema!: Record<string, unknown>;

  @Property({ type: 'integer', default: 0 })
  costCents: Opt<number> = 0;

  /** Vendor call timeout for this tool; null means the executor default. */
  @Property({ type: 'integer', nullable: true })
  timeoutMs: number | null = null;

  @Property({ ...TIMESTAMPTZ })
  createdAt: Opt<Date> = new Date();

  /** The org that imported it; null: a vendor tool of every org. */
  @ManyToOne(() => Org, { mapToPk: true, fieldName: 'org_id', nullable: true, deleteRule: 'no action' })
  @Index()
  orgId: string | null = null;

  /** The upstream MCP server it was imported from. */
  @ManyToOne(() => UpstreamMcpServer, { mapToPk: true, fieldName: 'upstream_server_id', nullable: true, deleteRule: 'no action' })
  upstreamServerId: string | null = null;

  /** The tool's own name on its upstream server (`action` is it made safe). */
  @Property({ type: 'text', nullable: true })
  upstreamName: string | null = null;

  /** Its title upstream (MCP `title`, else `annotations.title`): third-party text, compared at each import. */
  @Property({ type: 'text', nullable: true })
  upstreamTitle: string | null = null;

  /**
   * An imported tool's text as an admin last enabled it (src/upstream/upstream-pin.ts): what
   * runs started since are offered, whatever the upstream says now. Null: never enabled.
   */
  @Property({ type: 'json', nullable: true })
  pinned: PinnedText | null = null;

  /** sha256 of the pinned text (canonical JSON); the tool drifted when the imported text no longer hashes to it. */
  @Property({ type: 'text', nullable: true })
  pinnedHash: string | null = null;

  @Property({ ...TIMESTAMPTZ, nullable: true })
  pinnedAt: Date | null = null;

  /**
   * When a re-import no longer found it upstream. The row stays (calls and the ledger name
   * it); the gateway refuses it and its permission was turned off.
   */
  @Property({ ...TIMESTAMPTZ, nullable: true })
  removedAt: Date | null = null;
}
