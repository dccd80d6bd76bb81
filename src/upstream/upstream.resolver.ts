import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { requireCaller } from '../graphql/auth-checker';
import { McpImportResultType, McpServerType, RegisterMcpServerInput, toImportResultType, toMcpServerType } from './upstream.types';
import { listUpstreamServers, registerUpstreamServer } from './upstream.service';
import { importUpstreamTools } from './upstream-import';
import type { MasterKeyring } from '../credentials/keyring';
import type { Egress } from '../egress/egress';
import type { Config } from '../config';
import type { ToolgateMetrics } from '../telemetry/metrics';

declare module '../graphql/context' {
  interface RequestServices {
    keyring: MasterKeyring;
    egress: Egress;
    config: Config;
    metrics: ToolgateMetrics;
  }
}

@Resolver()
export class UpstreamResolver {
  @Authorized()
  @Query(() => [McpServerType], { description: "The org's upstream MCP servers, by name" })
  async mcpServers(@Ctx() ctx: RequestContext): Promise<McpServerType[]> {
    return (await listUpstreamServers(ctx.em, requireCaller(ctx).orgId)).map(toMcpServerType);
  }

  @Authorized()
  @Mutation(() => McpServerType, { description: 'Register an upstream MCP server for the org (import its tools with importMcpServerTools)' })
  async registerMcpServer(
    @Arg('input', () => RegisterMcpServerInput) input: RegisterMcpServerInput,
    @Ctx() ctx: RequestContext,
  ): Promise<McpServerType> {
    const caller = requireCaller(ctx);
    const server = await registerUpstreamServer(ctx.em, ctx.services.keyring, ctx.services.egress, caller, input);
    const [listing] = await listUpstreamServers(ctx.em, caller.orgId, [server]);
    return toMcpServerType(listing);
  }

  @Authorized()
  @Mutation(() => McpImportResultType, {
    description: "Import (or re-import) an upstream server's tools into the catalog as `mcp.<server>.<tool>`; answers what changed",
  })
  async importMcpServerTools(@Arg('serverId', () => ID) serverId: string, @Ctx() ctx: RequestContext): Promise<McpImportResultType> {
    const caller = requireCaller(ctx);
    const { config, metrics } = ctx.services;
    const diff = await importUpstreamTools(ctx.em, ctx.services.keyring, caller, serverId, {
      timeoutMs: config.vendor.timeoutMs,
      limits: config.upstream,
      egress: ctx.services.egress,
    });
    metrics.upstreamDrifted(diff.drifted.length);
    const [listing] = await listUpstreamServers(ctx.em, caller.orgId, [diff.server]);
    return toImportResultType(diff, listing);
  }
}
