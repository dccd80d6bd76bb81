import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import type { CedarPolicy } from './cedar-policy.entity';

@ObjectType('CedarPolicy', { description: 'A Cedar policy of the org, evaluated beside the rules (docs/policy.md, "Cedar")' })
export class CedarPolicyType {
  @Field(() => ID)
  id!: string;

  @Field({ description: 'Its Cedar policy id, named in the decisions it makes' })
  name!: string;

  @Field(() => Int, { description: 'Among permits that match, the lowest position decides' })
  position!: number;

  @Field({ description: 'The policy in Cedar syntax' })
  text!: string;

  @Field()
  enabled!: boolean;

  @Field()
  updatedAt!: Date;
}

@InputType('CedarPolicyInput')
export class CedarPolicyInputType {
  @Field(() => ID, { nullable: true, description: 'Set to replace an existing Cedar policy' })
  id?: string | null;

  @Field()
  name!: string;

  @Field(() => Int)
  position!: number;

  @Field({
    description:
      'One Cedar policy, validated against `cedarSchema`: a forbid blocks; a permit needs @outcome("allow" | "observe" | ' +
      '"require_expert_approval" | "require_client_approval"); @risk("low" | "medium" | "high") is optional',
  })
  text!: string;

  @Field({ defaultValue: true })
  enabled: boolean = true;
}

export const toCedarPolicyType = (p: CedarPolicy): CedarPolicyType => ({
  id: p.id,
  name: p.name,
  position: p.position,
  text: p.text,
  enabled: p.enabled,
  updatedAt: p.updatedAt,
});
