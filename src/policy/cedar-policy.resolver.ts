import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { requireCaller } from '../graphql/auth-checker';
import { CedarPolicyInputType, CedarPolicyType, toCedarPolicyType } from './cedar-policy.types';
import { cedarSchemaText, deleteCedarPolicy, listCedarPolicies, orgCedarSchema, upsertCedarPolicy } from './cedar-policy.service';

@Resolver()
export class CedarPolicyResolver {
  @Authorized()
  @Query(() => String, { description: "The Cedar schema Cedar policies are validated against: the org's tools, callers and params" })
  async cedarSchema(@Ctx() ctx: RequestContext): Promise<string> {
    return cedarSchemaText(await orgCedarSchema(ctx.em, requireCaller(ctx).orgId));
  }

  @Authorized()
  @Query(() => [CedarPolicyType], { description: "The org's Cedar policies by position" })
  async cedarPolicies(@Ctx() ctx: RequestContext): Promise<CedarPolicyType[]> {
    return (await listCedarPolicies(ctx.em, requireCaller(ctx).orgId)).map(toCedarPolicyType);
  }

  @Authorized()
  @Mutation(() => CedarPolicyType, { description: 'Create a Cedar policy, or replace the one with `id`, once validated; appends policy.changed' })
  async upsertCedarPolicy(
    @Arg('input', () => CedarPolicyInputType) input: CedarPolicyInputType,
    @Ctx() ctx: RequestContext,
  ): Promise<CedarPolicyType> {
    return toCedarPolicyType(await upsertCedarPolicy(ctx.em, requireCaller(ctx), input));
  }

  @Authorized()
  @Mutation(() => Boolean, { description: 'Delete a Cedar policy; appends policy.changed' })
  async deleteCedarPolicy(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext): Promise<boolean> {
    await deleteCedarPolicy(ctx.em, requireCaller(ctx), id);
    return true;
  }
}
