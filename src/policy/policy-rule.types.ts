import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { GraphQLJSON } from 'graphql-scalars';
import { PolicyOutcomeEnum } from './policy-decision.types';
import { RiskLevelEnum } from '../catalog/catalog.types';
import { RoleEnum } from '../orgs/org.types';
import type { PolicyOutcome } from './policy-decision-outcome';
import type { RiskLevel } from '../catalog/risk';
import type { Role } from '../auth/roles';
import type { PolicyCondition, PolicyRule } from './policy-rule.entity';

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
}

export const toPolicyRuleType = (r: PolicyRule): PolicyRuleType => ({
  id: r.id,
  name: r.name,
  position: r.position,
  toolPattern: r.toolPattern,
  actionPattern: r.actionPattern,
  conditions: r.conditions.map((c) => ({ path: c.path, op: c.op, value: c.value })),
  roles: r.roles as Role[],
  specialistId: r.specialistId,
  risk: r.risk,
  decision: r.decision,
  enabled: r.enabled,
  updatedAt: r.updatedAt,
});
