import { Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { GraphQLJSON } from 'graphql-scalars';
import { PolicyOutcomeEnum } from './policy-decision.types';
import { RiskLevelEnum } from '../catalog/catalog.types';
import { RoleEnum } from '../orgs/org.types';
import type { PolicyOutcome } from './policy-decision-outcome';
import type { RiskLevel } from '../catalog/risk';
import type { Role } from '../auth/roles';
import type { PolicyCondition, PolicyRule } from './policy-rule.entity';
import type { HistoryCondition } from './policy-history';

export const ConditionOpEnum = { equals: 'equals', in: 'in', lt: 'lt', gt: 'gt', exists: 'exists' } as const;
registerEnumType(ConditionOpEnum, {
  name: 'PolicyConditionOp',
  description: 'equals, in (value is a list), lt / gt (numbers, "amount > 1000" is gt 1000), exists (value true or false)',
});

@ObjectType('PolicyCondition')
export class PolicyConditionType {
  @Field({ description: 'JSON path into the call params, e.g. amount or customer.country' })
  path!: string;

  @Field(() => ConditionOpEnum)
  op!: PolicyCondition['op'];

  @Field(() => GraphQLJSON, { nullable: true })
  value?: unknown;
}

@InputType()
export class PolicyConditionInput {
  @Field()
  path!: string;

  @Field(() => ConditionOpEnum)
  op!: PolicyCondition['op'];

  @Field(() => GraphQLJSON, { nullable: true })
  value?: unknown;
}

export const HistoryKindEnum = { count: 'count', sum: 'sum', not_after: 'not_after' } as const;
registerEnumType(HistoryKindEnum, {
  name: 'PolicyHistoryKind',
  description:
    'count: calls of the tool (this one included) above limit; sum: paramPath summed (this call included) above limit; ' +
    'not_after: no succeeded call of the tool with the same paramPath value before this one',
});

export const HistoryScopeEnum = { run: 'run', org: 'org', customer: 'customer' } as const;
registerEnumType(HistoryScopeEnum, {
  name: 'PolicyHistoryScope',
  description: 'run: calls of this run; org: of the whole org; customer: of the org with the same customerPath value',
});

@ObjectType('PolicyHistoryCondition', { description: 'A condition over earlier calls (docs/policy.md)' })
export class PolicyHistoryConditionType {
  @Field(() => HistoryKindEnum)
  kind!: HistoryCondition['kind'];

  @Field({ description: 'The tool whose calls count (exact name)' })
  tool!: string;

  @Field(() => String, { nullable: true, description: 'Its exact action; null: any' })
  action!: string | null;

  @Field(() => HistoryScopeEnum)
  scope!: HistoryCondition['scope'];

  @Field(() => String, { nullable: true, description: 'customer scope: the param naming the customer, e.g. customerId' })
  customerPath!: string | null;

  @Field(() => String, { nullable: true, description: 'sum: the param summed (amount); not_after: the param that must match (orderId)' })
  paramPath!: string | null;

  @Field(() => Int, { nullable: true, description: 'Sliding window in seconds (1 to 31 days); null: the whole run (run scope only)' })
  windowSeconds!: number | null;

  @Field(() => Float, { nullable: true, description: 'count and sum: the rule matches when the aggregate with this call is above it' })
  limit!: number | null;
}

@InputType()
export class PolicyHistoryConditionInput {
  @Field(() => HistoryKindEnum)
  kind!: HistoryCondition['kind'];

  @Field()
  tool!: string;

  @Field(() => String, { nullable: true })
  action?: string | null;

  @Field(() => HistoryScopeEnum)
  scope!: HistoryCondition['scope'];

  @Field(() => String, { nullable: true })
  customerPath?: string | null;

  @Field(() => String, { nullable: true })
  paramPath?: string | null;

  @Field(() => Int, { nullable: true })
  windowSeconds?: number | null;

  @Field(() => Float, { nullable: true })
  limit?: number | null;
}

@ObjectType('EscalationStep', { description: "A step of an approval rule's escalation ladder (docs/policy.md)" })
export class EscalationStepType {
  @Field(() => Int, { description: 'Seconds after the request at which this step begins (60 s to 7 days, increasing)' })
  afterSeconds!: number;

  @Field(() => RoleEnum, { description: "Who may resolve from this step on: the approval kind's role" })
  role!: Role;

  @Field(() => String, { nullable: true, description: 'The approver group paged at this step (named in approval.escalated); null: the whole role' })
  group!: string | null;
}

@InputType()
export class EscalationStepInput {
  @Field(() => Int)
  afterSeconds!: number;

  @Field(() => RoleEnum)
  role!: Role;

  @Field(() => String, { nullable: true })
  group?: string | null;
}

@ObjectType('PolicyRule', { description: 'An ordered org rule; the first enabled rule that matches decides' })
export class PolicyRuleType {
  @Field(() => ID)
  id!: string;

  @Field()
  name!: string;

  @Field(() => Int)
  position!: number;

  @Field()
  toolPattern!: string;

  @Field()
  actionPattern!: string;

  @Field(() => [PolicyConditionType])
  conditions!: PolicyConditionType[];

  @Field(() => [PolicyHistoryConditionType], { description: 'Conditions over earlier calls; every one must hold too' })
  history!: PolicyHistoryConditionType[];

  @Field(() => [RoleEnum], { description: 'Caller roles it applies to; empty means any' })
  roles!: Role[];

  @Field(() => ID, { nullable: true })
  specialistId!: string | null;

  @Field(() => RiskLevelEnum)
  risk!: RiskLevel;

  @Field(() => PolicyOutcomeEnum)
  decision!: PolicyOutcome;

  @Field()
  enabled!: boolean;

  @Field(() => Int, { description: 'Approval rules: how many distinct people (or keys) must approve' })
  quorum!: number;

  @Field(() => [EscalationStepType], { description: 'Approval rules: the escalation ladder' })
  escalation!: EscalationStepType[];

  @Field(() => Int, { nullable: true, description: 'Approval rules: seconds after the request at which it expires (deny); null: APPROVAL_TTL' })
  expireAfterSeconds!: number | null;

  @Field()
  updatedAt!: Date;
}

@InputType('PolicyRuleInput')
export class PolicyRuleInputType {
  @Field(() => ID, { nullable: true, description: 'Set to replace an existing rule' })
  id?: string | null;

  @Field()
  name!: string;

  @Field(() => Int, { description: 'Lower positions are evaluated first' })
  position!: number;

  @Field({ defaultValue: '*', description: 'Glob over tool names: * any run, ? one character' })
  toolPattern: string = '*';

  @Field({ defaultValue: '*' })
  actionPattern: string = '*';

  @Field(() => [PolicyConditionInput], { defaultValue: [] })
  conditions!: PolicyConditionInput[];

  @Field(() => [PolicyHistoryConditionInput], { defaultValue: [] })
  history!: PolicyHistoryConditionInput[];

  @Field(() => [RoleEnum], { defaultValue: [] })
  roles!: Role[];

  @Field(() => ID, { nullable: true })
  specialistId?: string | null;

  @Field(() => RiskLevelEnum)
  risk!: RiskLevel;

  @Field(() => PolicyOutcomeEnum)
  decision!: PolicyOutcome;

  @Field({ defaultValue: true })
  enabled: boolean = true;

  @Field(() => Int, { defaultValue: 1, description: 'Approval rules: distinct approvers required, 1 to 5 (2: the two-person rule)' })
  quorum: number = 1;

  @Field(() => [EscalationStepInput], { defaultValue: [], description: 'Approval rules: at most 5 steps' })
  escalation!: EscalationStepInput[];

  @Field(() => Int, { nullable: true, description: 'Approval rules: the end of the ladder (required with one)' })
  expireAfterSeconds?: number | null;
}

export const toPolicyRuleType = (r: PolicyRule): PolicyRuleType => ({
  id: r.id,
  name: r.name,
  position: r.position,
  toolPattern: r.toolPattern,
  actionPattern: r.actionPattern,
  conditions: r.conditions.map((c) => ({ path: c.path, op: c.op, value: c.value })),
  history: r.history.map((h) => ({ ...h })),
  roles: r.roles as Role[],
  specialistId: r.specialistId,
  risk: r.risk,
  decision: r.decision,
  enabled: r.enabled,
  quorum: r.quorum,
  escalation: r.escalation.map((s) => ({ afterSeconds: s.afterSeconds, role: s.role as Role, group: s.group })),
  expireAfterSeconds: r.expireAfterSeconds,
  updatedAt: r.updatedAt,
});
