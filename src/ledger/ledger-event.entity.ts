import { Entity, Index, ManyToOne, PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import { TIMESTAMPTZ } from '../db/columns';
import { Org } from '../orgs/org.entity';
import { AgentRun } from '../runs/agent-run.entity';

/**
 * The append-only audit ledger. `id` is a global sequence; within an org each event's
 * `hash` covers its content and the previous event's hash, so a rewrite is detectable.
 * The database itself refuses UPDATE, DELETE and TRUNCATE (see the migration).
 */
@Entity({ tableName: 'ledger_events' })
@Index({ properties: ['orgId', 'id'] })
@Index({ properties: ['orgId', 'runId', 'id'] })
@Index({ properties: ['orgId', 'resourceId', 'id'] })
@Index({ properties: ['orgId', 'type', 'id'] })
export class LedgerEvent {
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: string;

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

  @Property({ type: 'text', nullable: true })
  prevHash: string | null = null;

  @Property({ type: 'text' })
  hash!: string;

  @Property({ ...TIMESTAMPTZ })
  createdAt: Opt<Date> = new Date();
}
