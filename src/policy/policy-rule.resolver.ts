import { Arg, Authorized, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { requireCaller } from '../graphql/auth-checker';
import { PolicyRuleInputType, PolicyRuleType, toPolicyRuleType } from './policy-rule.types';
import { deletePolicyRule, listPolicyRules, setPolicyShadowMode, upsertPolicyRule } from './policy-rule.service';

@Resolver()
export class PolicyRuleResolver {
  @Authorized()
  @Query(() => [PolicyRuleType], { description: "The org's policy rules in evaluation order" })
  async policyRules(@Ctx() ctx: RequestContext): Promise<PolicyRuleType[]> {
    return (await listPolicyRules(ctx.em, requireCaller(ctx).orgId)).map(toPolicyRuleType);
  }

  @Authorized()
  @Mutation(() => PolicyRuleType, { description: 'Create a rule, or replace the one with `id`; appends policy.changed' })
  async upsertPolicyRule(@Arg('input', () => PolicyRuleInputType) input: PolicyRuleInputType, @Ctx() ctx: RequestContext): Promise<PolicyRuleType> {
    const conditions = input.conditions.map((c) => ({ path: c.path, op: c.op, ...(c.value !== undefined ? { value: c.value } : {}) }));
    return toPolicyRuleType(await upsertPolicyRule(ctx.em, requireCaller(ctx), { ...input, conditions }));
  }

  @Authorized()
  @Mutation(() => Boolean, { description: 'Delete a rule; appends policy.changed' })
  async deletePolicyRule(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext): Promise<boolean> {
    await deletePolicyRule(ctx.em, requireCaller(ctx), id);
    return true;
  }

  @Authorized()
  @Mutation(() => Int, {
    description: 'Shadow mode records what the rules would decide but allows every call; returns the new policy version',
  })
  async setPolicyShadowMode(@Arg('enabled') enabled: boolean, @Ctx() ctx: RequestContext): Promise<number> {
    return setPolicyShadowMode(ctx.em, requireCaller(ctx), enabled);
  }
}
