import { Entity, Enum, PrimaryKey, Property, Unique, type Opt } from '@mikro-orm/core';
import { newId, TIMESTAMPTZ } from '../db/columns';
import { RISK_LEVELS, type RiskLevel } from './risk';

/**
 * The global tool catalog: one row per `tool.action`. Not tenant data. Written from the
 * vendor handlers' actions at start (ensureCatalog); edit the action, not the row.
 */
@Entity({ tableName: 'tool_definitions' })
@Unique({ properties: ['toolName', 'action'] })
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
}
