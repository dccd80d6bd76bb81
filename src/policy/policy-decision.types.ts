import { ArgsType, Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { RiskLevelEnum } from '../catalog/catalog.types';
import { POLICY_OUTCOMES, type PolicyOutcome } from './policy-decision-outcome';
import type { RiskLevel } from '../catalog/risk';
import type { PolicyDecision } from './policy-decision.entity';
import { PageArgs, connectionType } from '../graphql/pagination';
import { graphqlEnum } from '../graphql/enums';

export const PolicyOutcomeEnum = graphqlEnum(POLICY_OUTCOMES, 'PolicyOutcome');

@ObjectType('PolicyDecision', { description: 'One policy evaluation: what was decided, by which rule, at which version' })
export class PolicyDecisionType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  runId!: string;

  @Field()
  toolName!: string;

  @Field()
  action!: string;

  @Field(() => PolicyOutcomeEnum)
  outcome!: PolicyOutcome;

  @Field(() => PolicyOutcomeEnum, { nullable: true, description: 'In shadow mode: what would have been decided' })
  shadowOutcome!: PolicyOutcome | null;

  @Field(() => RiskLevelEnum)
  risk!: RiskLevel;

  @Field(() => ID, { nullable: true, description: 'Null when the catalog default risk decided' })
  matchedRuleId!: string | null;

  @Field(() => Int)
  policyVersion!: number;

  @Field()
  callerRole!: string;

  @Field()
  reason!: string;

  @Field()
  createdAt!: Date;
}

export const PolicyDecisionConnection = connectionType(PolicyDecisionType, 'PolicyDecision');

@InputType()
export class PolicyDecisionFilter {
  @Field(() => ID, { nullable: true })
  runId?: string | null;

  @Field(() => PolicyOutcomeEnum, { nullable: true })
  outcome?: PolicyOutcome | null;
}

@ArgsType()
export class PolicyDecisionsArgs extends PageArgs {
  @Field(() => PolicyDecisionFilter, { nullable: true })
  filter?: PolicyDecisionFilter | null;
}

export const toPolicyDecisionType = (d: PolicyDecision): PolicyDecisionType => ({
  id: d.id,
  runId: d.runId,
  toolName: d.toolName,
  action: d.action,
  outcome: d.outcome,
  shadowOutcome: d.shadowOutcome,
  risk: d.risk,
  matchedRuleId: d.matchedRuleId,
  policyVersion: d.policyVersion,
  callerRole: d.callerRole,
  reason: d.reason,
  createdAt: d.createdAt,
});
