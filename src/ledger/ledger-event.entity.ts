import { Entity, Index, ManyToOne, PrimaryKey, Property, Unique, type Opt } from '@mikro-orm/core';
import { TIMESTAMPTZ } from '../db/columns';
import { Org } from '../orgs/org.entity';
import { AgentRun } from '../runs/agent-run.entity';

/**
 * The append-only audit ledger. Each org's events are numbered 1, 2, 3, … (`sequence`)
 * and each event's `hash` covers every other column and the previous event's hash (see
 * ledger-hash.ts), so an edit, deletion, swap or insertion is detectable; the org's head
 * (LedgerHead) catches deletions at the end. The database itself refuses UPDATE, DELETE
 * and TRUNCATE (see the migrations).
 */
@Entity({ tableName: 'ledger_events' })
@Unique({ properties: ['orgId', 'sequence'] })
@Index({ properties: ['orgId', 'runId', 'sequence'] })
@Index({ properties: ['orgId', 'resourceId', 'sequence'] })
@Index({ properties: ['orgId', 'type', 'sequence'] })
export class LedgerEvent {
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: string;

  /** Position in the org's chain, from 1, without gaps. */
  @Property({ type: 'bigint' })
  sequence!: string;

  @ManyToOne(() => Org, { mapToPk: true, fieldName: 'org_id' })
  orgId!: string;

  @ManyToOne(() => AgentRun, { mapToPk: true, fieldName: 'run_id', nullable: true })
  runId: string | null = null;

  @Property({ type: 'text', nullable: true })
  resourceId: string | null = null;

  @Property({ type: 'text' })
  type!: string;

  @Property({ type: 'text', nullable: true })
  actorRole: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  actorKeyId: string | null = null;

  @Property({ type: 'json' })
  metadata: Opt<Record<string, unknown>> = {};

  /** Which canonical form `hash` covers (ledger-hash.ts): 1 for events from before the heads, 2 since. */
  @Property({ type: 'smallint' })
  hashVersion!: number;

  @Property({ type: 'text', nullable: true })
  prevHash: string | null = null;

  @Property({ type: 'text' })
  hash!: string;

  @Property({ ...TIMESTAMPTZ })
  createdAt: Opt<Date> = new Date();
}
