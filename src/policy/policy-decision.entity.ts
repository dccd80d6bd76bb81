import { Entity, Enum, Index, ManyToOne, PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import { newId, TIMESTAMPTZ } from '../db/columns';
import { Org } from '../orgs/org.entity';
import { AgentRun } from '../runs/agent-run.entity';
import { RISK_LEVELS, type RiskLevel } from '../catalog/risk';
import { POLICY_OUTCOMES, type PolicyOutcome } from './policy-decision-outcome';
import { PolicyRule } from './policy-rule.entity';

/** One policy evaluation, explainable: which rule, which version, which risk. */
@Entity({ tableName: 'policy_decisions' })
@Index({ properties: ['orgId', 'createdAt', 'id'] })
@Index({ properties: ['orgId', 'runId', 'createdAt'] })
export class PolicyDecision {
  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @ManyToOne(() => Org, { mapToPk: true, fieldName: 'org_id' })
  orgId!: string;

  @ManyToOne(() => AgentRun, { mapToPk: true, fieldName: 'run_id' })
  runId!: string;

  @Property({ type: 'text' })
  toolName!: string;

  @Property({ type: 'text' })
  action!: string;

  @Enum({ items: [...POLICY_OUTCOMES], type: 'text' })
  outcome!: PolicyOutcome;

  /** In shadow mode: what the rules would have decided (the call was allowed). */
  @Enum({ items: [...POLICY_OUTCOMES], type: 'text', nullable: true })
  shadowOutcome: PolicyOutcome | null = null;

  @Enum({ items: [...RISK_LEVELS], type: 'text' })
  risk!: RiskLevel;

  @ManyToOne(() => PolicyRule, { mapToPk: true, fieldName: 'matched_rule_id', nullable: true })
  matchedRuleId: string | null = null;

  @Property({ type: 'integer' })
  policyVersion!: number;

  @Property({ type: 'text' })
  callerRole!: string;

  @Property({ type: 'uuid', nullable: true })
  callerKeyId: string | null = null;

  @Property({ type: 'text' })
  reason!: string;

  @Property({ ...TIMESTAMPTZ })
  createdAt: Opt<Date> = new Date();
}
