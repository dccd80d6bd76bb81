import { Arg, Authorized, Ctx, Extensions, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { requireCaller } from '../graphql/auth-checker';
import { PolicyRuleInputType, PolicyRuleType, toPolicyRuleType } from './policy-rule.types';
import { deletePolicyRule, listPolicyRules, type PolicyRuleInput, setPolicyShadowMode, upsertPolicyRule } from './policy-rule.service';
import { PolicyPublicationType, PolicySimulationType } from './policy-simulation.types';
import { publishPolicy, setPolicyReplayRequired } from './policy-publish.service';
import { SIMULATE_POLICY_COST, simulatePolicy } from './policy-simulation.service';

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
    return toPolicyRuleType(await upsertPolicyRule(ctx.em, requireCaller(ctx), ruleInput(input)));
  }

  @Authorized()
  @Extensions({ cost: SIMULATE_POLICY_COST })
  @Query(() => PolicySimulationType, {
    description: "Replay the org's recorded calls created in [from, to) (at most 92 days) against a draft rule set; reads only, writes nothing",
  })
  async simulatePolicy(
    @Arg('from', () => Date) from: Date,
    @Arg('to', () => Date) to: Date,
    @Arg('rules', () => [PolicyRuleInputType], { description: 'The draft: the whole rule set, as upsertPolicyRule takes each rule' })
    rules: PolicyRuleInputType[],
    @Arg('first', () => Int, { nullable: true, description: 'Examples to return (default 20, at most 100)' }) first: number | null,
    @Ctx() ctx: RequestContext,
  ): Promise<PolicySimulationType> {
    const caller = requireCaller(ctx);
    return simulatePolicy(ctx.em, caller.orgId, { from, to, rules: rules.map(ruleInput), first, actorKeyId: caller.keyId });
  }

  @Authorized()
  @Mutation(() => PolicyPublicationType, {
    description:
      "Replace the org's rules with a draft in one transaction (ids kept, new rules created, the others deleted); one policy version, one policy.changed. " +
      'With `replay` (required when the org requires replays): a replay of this exact draft against the current policy version within 24 h, else POLICY_REPLAY_REQUIRED',
  })
  async publishPolicy(
    @Arg('rules', () => [PolicyRuleInputType], { description: 'The whole rule set, positions distinct' }) rules: PolicyRuleInputType[],
    @Arg('replay', () => ID, { nullable: true, description: 'The replayId simulatePolicy answered for this draft' }) replay: string | null,
    @Ctx() ctx: RequestContext,
  ): Promise<PolicyPublicationType> {
    const caller = requireCaller(ctx);
    const published = await publishPolicy(ctx.em, caller.orgId, caller, rules.map(ruleInput), replay ?? null);
    return { policyVersion: published.policyVersion, rules: published.rules.map(toPolicyRuleType) };
  }

  @Authorized()
  @Mutation(() => Boolean, {
    description:
      'When required, rules change only through publishPolicy with a replay of the draft (upsertPolicyRule and deletePolicyRule are refused)',
  })
  async setPolicyReplayRequired(@Arg('required') required: boolean, @Ctx() ctx: RequestContext): Promise<boolean> {
    return setPolicyReplayRequired(ctx.em, requireCaller(ctx), required);
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

/** A rule as the API sent it: a condition without a value keeps none. */
function ruleInput(input: PolicyRuleInputType): PolicyRuleInput {
  const conditions = input.conditions.map((c) => ({ path: c.path, op: c.op, ...(c.value !== undefined ? { value: c.value } : {}) }));
  return { ...input, conditions };
}
