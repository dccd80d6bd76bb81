import { Entity, Enum, Index, ManyToOne, PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import { newId, TIMESTAMPTZ } from '../db/columns';
import { Org } from '../orgs/org.entity';
import { Specialist } from '../orgs/specialist.entity';
import { RISK_LEVELS, type RiskLevel } from '../catalog/risk';
import { POLICY_OUTCOMES, type PolicyOutcome } from './policy-decision-outcome';
import type { HistoryCondition } from './policy-history';
import type { EscalationStep } from './approval-routing';

export interface PolicyCondition {
  /** JSON path into the call's params, e.g. `amount` or `customer.country`. */
  path: string;
  op: 'equals' | 'in' | 'lt' | 'gt' | 'exists';
  value?: unknown;
}

/** An ordered, org-scoped rule; the first enabled match decides. */
@Entity({ tableName: 'policy_rules' })
@Index({ properties: ['orgId', 'position'] })
export class PolicyRule {
  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @ManyToOne(() => Org, { mapToPk: true, fieldName: 'org_id' })
  orgId!: string;

  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'integer' })
  position!: number;

  /** Glob over tool names, e.g. `invoice` or `*_query`. */
  @Property({ type: 'text', default: '*' })
  toolPattern: Opt<string> = '*';

  @Property({ type: 'text', default: '*' })
  actionPattern: Opt<string> = '*';

  @Property({ type: 'json', default: '[]' })
  conditions: Opt<PolicyCondition[]> = [];

  /** Conditions over what the run, the org or a customer already did (policy-history.ts); all must hold too. */
  @Property({ type: 'json', default: '[]' })
  history: Opt<HistoryCondition[]> = [];

  /** Caller roles the rule applies to; empty means any. */
  @Property({ type: 'json', default: '[]' })
  roles: Opt<string[]> = [];

  // A rule scoped to a specialist goes with it; set-null would widen it to every specialist.
  @ManyToOne(() => Specialist, { mapToPk: true, fieldName: 'specialist_id', nullable: true, deleteRule: 'cascade' })
  specialistId: string | null = null;

  @Enum({ items: [...RISK_LEVELS], type: 'text' })
  risk!: RiskLevel;

  @Enum({ items: [...POLICY_OUTCOMES], type: 'text' })
  decision!: PolicyOutcome;

  /** An approval rule: how many distinct people (or keys) must approve (approval-routing.ts). */
  @Property({ type: 'integer', default: 1 })
  quorum: Opt<number> = 1;

  /** An approval rule: its escalation ladder, steps counted from the request. */
  @Property({ type: 'json', default: '[]' })
  escalation: Opt<EscalationStep[]> = [];

  /** An approval rule: the end of its ladder (expiry, deny); null: APPROVAL_TTL. */
  @Property({ type: 'integer', nullable: true })
  expireAfterSeconds: number | null = null;

  @Property({ type: 'boolean', default: true })
  enabled: Opt<boolean> = true;

  @Property({ ...TIMESTAMPTZ })
  createdAt: Opt<Date> = new Date();

  @Property({ ...TIMESTAMPTZ })
  updatedAt: Opt<Date> = new Date();
}
