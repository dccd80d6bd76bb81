import { Args, Authorized, Ctx, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { requireCaller } from '../graphql/auth-checker';
import { PolicyDecisionConnection, PolicyDecisionsArgs } from './policy-decision.types';
import { listPolicyDecisions } from './policy-decision-query.service';

@Resolver()
export class PolicyDecisionResolver {
  @Authorized()
  @Query(() => PolicyDecisionConnection, { description: 'Policy evaluations of the org, newest first' })
  async policyDecisions(@Args(() => PolicyDecisionsArgs) args: PolicyDecisionsArgs, @Ctx() ctx: RequestContext) {
    return listPolicyDecisions(ctx.em, requireCaller(ctx), args);
  }
}
