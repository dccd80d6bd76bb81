import { Arg, Authorized, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { requireCaller } from '../graphql/auth-checker';
import {
  CreateSpecialistInput,
  FeatureFlagType,
  OrgType,
  SpecialistType,
  ViewerType,
  toFeatureFlagType,
  toOrgType,
  toSpecialistType,
} from './org.types';
import { createSpecialist, findOrg, listFeatureFlags, listSpecialists, setFeatureFlag, setSpecialistThinking } from './org.service';
import { IntegrationCredentialType, toCredentialType } from '../credentials/credential.types';
import { listCredentials } from '../credentials/credential.service';

@Resolver(() => ViewerType)
export class ViewerResolver {
  @Authorized()
  @Query(() => ViewerType, { description: 'The caller: its org and role' })
  async viewer(@Ctx() ctx: RequestContext): Promise<ViewerType> {
    const caller = requireCaller(ctx);
    const org = await findOrg(ctx.em, caller.orgId);
    return { org: toOrgType(org), role: caller.role, apiKeyId: caller.keyId ?? '' };
  }
}

@Resolver(() => OrgType)
export class OrgResolver {
  @Authorized()
  @FieldResolver(() => [SpecialistType])
  async specialists(@Ctx() ctx: RequestContext): Promise<SpecialistType[]> {
    const caller = requireCaller(ctx);
    return (await listSpecialists(ctx.em, caller.orgId)).map(toSpecialistType);
  }

  @Authorized()
  @FieldResolver(() => [FeatureFlagType])
  async featureFlags(@Ctx() ctx: RequestContext): Promise<FeatureFlagType[]> {
    const caller = requireCaller(ctx);
    return (await listFeatureFlags(ctx.em, caller.orgId)).map(toFeatureFlagType);
  }

  @Authorized()
  @FieldResolver(() => [IntegrationCredentialType], { description: 'Configured integrations; configs are write-only' })
  async integrations(@Ctx() ctx: RequestContext): Promise<IntegrationCredentialType[]> {
    const caller = requireCaller(ctx);
    return (await listCredentials(ctx.em, caller.orgId)).map(toCredentialType);
  }
}

@Resolver()
export class OrgAdminResolver {
  @Authorized()
  @Mutation(() => SpecialistType)
  async createSpecialist(
    @Arg('input', () => CreateSpecialistInput) input: CreateSpecialistInput,
    @Ctx() ctx: RequestContext,
  ): Promise<SpecialistType> {
    return toSpecialistType(await createSpecialist(ctx.em, requireCaller(ctx), input));
  }

  @Authorized()
  @Mutation(() => SpecialistType, {
    description:
      "Turn a specialist's extended thinking on (budgetTokens from 1024 to 32000) or off (null) for runs started from now on; a run keeps the budget it started with",
  })
  async setSpecialistThinking(
    @Arg('specialistId', () => ID) specialistId: string,
    @Arg('budgetTokens', () => Int, { nullable: true }) budgetTokens: number | null,
    @Ctx() ctx: RequestContext,
  ): Promise<SpecialistType> {
    return toSpecialistType(await setSpecialistThinking(ctx.em, requireCaller(ctx), specialistId, budgetTokens ?? null));
  }

  @Authorized()
  @Mutation(() => FeatureFlagType, { description: 'Turn an org feature flag (e.g. tool_calling_enabled) on or off' })
  async setFeatureFlag(@Arg('key') key: string, @Arg('enabled') enabled: boolean, @Ctx() ctx: RequestContext): Promise<FeatureFlagType> {
    return toFeatureFlagType(await setFeatureFlag(ctx.em, requireCaller(ctx), key, enabled));
  }
}
