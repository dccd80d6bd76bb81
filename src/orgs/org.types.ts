import { Authorized, Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { ROLES, type Role } from '../auth/roles';
import type { Org } from './org.entity';
import type { Specialist } from './specialist.entity';
import type { FeatureFlag } from './feature-flag.entity';
import { graphqlEnum } from '../graphql/enums';

export const RoleEnum = graphqlEnum(ROLES, 'Role', 'The role of an API key');

@ObjectType('Org')
export class OrgType {
  @Field(() => ID)
  id!: string;

  @Field()
  name!: string;

  @Field(() => Int, { description: 'Bumped on every policy change' })
  policyVersion!: number;

  @Field({ description: 'When on, policy decisions are recorded but every call is allowed' })
  policyShadowMode!: boolean;

  @Field({ description: 'When on, rules change only through publishPolicy with a replay of the draft' })
  policyReplayRequired!: boolean;

  @Field()
  createdAt!: Date;
}

@ObjectType('Viewer', { description: 'The caller, as identified by its API key' })
export class ViewerType {
  @Field(() => OrgType)
  org!: OrgType;

  @Field(() => RoleEnum)
  role!: Role;

  @Field(() => ID)
  apiKeyId!: string;
}

@ObjectType('Specialist')
export class SpecialistType {
  @Field(() => ID)
  id!: string;

  @Field()
  name!: string;

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Authorized()
  @Field(() => String, { nullable: true, description: 'The instructions the model is given; admin and expert keys only' })
  systemPrompt!: string | null;

  @Field(() => Int, {
    nullable: true,
    description: "Extended thinking's budget_tokens for runs started with this specialist; null: no thinking (the default)",
  })
  thinkingBudgetTokens!: number | null;

  @Field()
  createdAt!: Date;
}

@ObjectType('FeatureFlag')
export class FeatureFlagType {
  @Field()
  key!: string;

  @Field()
  enabled!: boolean;

  @Field()
  updatedAt!: Date;
}

@InputType()
export class CreateSpecialistInput {
  @Field()
  name!: string;

  @Field(() => String, { nullable: true })
  description?: string | null;

  @Field(() => String, { nullable: true })
  systemPrompt?: string | null;

  @Field(() => Int, {
    nullable: true,
    description: 'Extended thinking: budget_tokens from 1024 to 32000 (INVALID_THINKING_BUDGET otherwise); null or absent: no thinking',
  })
  thinkingBudgetTokens?: number | null;
}

export const toOrgType = (org: Org): OrgType => ({
  id: org.id,
  name: org.name,
  policyVersion: org.policyVersion,
  policyShadowMode: org.policyShadowMode,
  policyReplayRequired: org.policyReplayRequired,
  createdAt: org.createdAt,
});

export const toSpecialistType = (s: Specialist): SpecialistType => ({
  id: s.id,
  name: s.name,
  description: s.description,
  systemPrompt: s.systemPrompt,
  thinkingBudgetTokens: s.thinkingBudgetTokens,
  createdAt: s.createdAt,
});

export const toFeatureFlagType = (f: FeatureFlag): FeatureFlagType => ({
  key: f.key,
  enabled: f.enabled,
  updatedAt: f.updatedAt,
});
