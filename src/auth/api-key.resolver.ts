import { Arg, Args, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { requireCaller } from '../graphql/auth-checker';
import { PageArgs } from '../graphql/pagination';
import type { Role } from './roles';
import { RoleEnum } from '../orgs/org.types';
import { ApiKey } from './api-key.entity';
import { ApiKeyConnection, ApiKeyType, CreatedApiKeyType, toApiKeyType } from './api-key.types';
import { createApiKey, listApiKeys, revokeApiKey } from './key-lifecycle.service';
import type { KeyAccess } from './key-access';

declare module '../graphql/context' {
  interface RequestServices {
    keys: KeyAccess;
  }
}

@Resolver()
export class ApiKeyResolver {
  @Authorized()
  @Query(() => ApiKeyConnection, { description: 'The org’s API keys, newest first (revoked and expired ones included); never their secrets' })
  async apiKeys(@Args(() => PageArgs) args: PageArgs, @Ctx() ctx: RequestContext) {
    return listApiKeys(ctx.em, requireCaller(ctx).orgId, args, toApiKeyType);
  }

  @Authorized()
  @Mutation(() => CreatedApiKeyType, { description: 'Issue a key of the org; its secret is in this answer only' })
  async createApiKey(
    @Arg('role', () => RoleEnum) role: Role,
    @Arg('name', () => String, { nullable: true }) name: string | null,
    @Arg('expiresAt', () => Date, { nullable: true }) expiresAt: Date | null,
    @Ctx() ctx: RequestContext,
  ): Promise<CreatedApiKeyType> {
    const caller = requireCaller(ctx);
    const issued = await createApiKey(ctx.em, caller.orgId, { role, name, expiresAt }, { actor: caller, now: ctx.services.keys.clock.now() });
    const key = await ctx.em.findOneOrFail(ApiKey, { id: issued.id });
    return { apiKey: toApiKeyType(key), secret: issued.secret };
  }

  @Authorized()
  @Mutation(() => ApiKeyType, { description: 'Revoke a key of the org: refused from now on, its open websockets closed (4403)' })
  async revokeApiKey(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext): Promise<ApiKeyType> {
    const caller = requireCaller(ctx);
    const { key, revoked } = await revokeApiKey(ctx.em, caller.orgId, id, caller);
    if (revoked) await ctx.services.keys.withdrawn({ keyId: key.id });
    return toApiKeyType(key);
  }
}
