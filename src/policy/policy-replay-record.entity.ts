import { Entity, Index, ManyToOne, PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import { newId, TIMESTAMPTZ } from '../db/columns';
import { Org } from '../orgs/org.entity';

/**
 * That a replay ran (simulatePolicy): which draft (its hash), against which policy version,
 * over which range, and what it found. `publishPolicy` names one to publish that same draft
 * (policy-publish.service.ts). The replay itself reads only; this row is all it writes.
 */
@Entity({ tableName: 'policy_replays' })
@Index({ properties: ['orgId', 'createdAt'] })
export class PolicyReplayRecord {
  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @ManyToOne(() => Org, { mapToPk: true, fieldName: 'org_id', deleteRule: 'cascade' })
  orgId!: string;

  /** sha256 of the draft's canonical JSON (policy-draft.ts). */
  @Property({ type: 'text' })
  draftHash!: string;

  /** The org's policy version the replay read the calls under. */
  @Property({ type: 'integer' })
  policyVersion!: number;

  @Property({ ...TIMESTAMPTZ })
  rangeFrom!: Date;

  @Property({ ...TIMESTAMPTZ })
  rangeTo!: Date;

  @Property({ type: 'integer' })
  callsRead!: number;

  @Property({ type: 'integer' })
  changedCount!: number;

  @Property({ type: 'integer' })
  undecidableCount!: number;

  /** The key (or person's principal) that ran it; null from the command line. */
  @Property({ type: 'uuid', nullable: true })
  actorKeyId: string | null = null;

  @Property({ ...TIMESTAMPTZ, defaultRaw: 'now()' })
  createdAt: Opt<Date> = new Date();
}
