import { Arg, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { requireCaller } from '../graphql/auth-checker';
import { BindToolInput, ToolCatalogEntryType, ToolPermissionType, ToolSpecialistBindingType, toCatalogEntryType } from './catalog.types';
import { bindToolToSpecialist, listCatalog, setToolPermission } from './catalog.service';

@Resolver()
export class CatalogResolver {
  @Authorized()
  @Query(() => [ToolCatalogEntryType], { description: "Every catalog tool action, with the org's permission" })
  async toolCatalog(@Ctx() ctx: RequestContext): Promise<ToolCatalogEntryType[]> {
    const caller = requireCaller(ctx);
    return (await listCatalog(ctx.em, caller.orgId)).map(({ tool, enabled }) => toCatalogEntryType(tool, enabled));
  }

  @Authorized()
  @Mutation(() => ToolPermissionType, { description: 'Enable or disable a catalog tool action for the org' })
  async setToolPermission(
    @Arg('toolName') toolName: string,
    @Arg('action') action: string,
    @Arg('enabled') enabled: boolean,
    @Ctx() ctx: RequestContext,
  ): Promise<ToolPermissionType> {
    const { permission } = await setToolPermission(ctx.em, requireCaller(ctx), toolName, action, enabled);
    return { toolName, action, enabled: permission.enabled, updatedAt: permission.updatedAt };
  }

  @Authorized()
  @Mutation(() => ToolSpecialistBindingType, { description: 'Let a specialist use a tool action (or stop it)' })
  async bindToolToSpecialist(
    @Arg('input', () => BindToolInput) input: BindToolInput,
    @Ctx() ctx: RequestContext,
  ): Promise<ToolSpecialistBindingType> {
    const result = await bindToolToSpecialist(ctx.em, requireCaller(ctx), input.specialistId, input.toolName, input.action, input.bound);
    return { specialistId: result.specialistId, toolName: input.toolName, action: input.action, bound: result.bound };
  }
}
