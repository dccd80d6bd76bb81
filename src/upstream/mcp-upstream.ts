import type { MikroORM } from '@mikro-orm/postgresql';
import { ToolDefinition } from '../catalog/tool-definition.entity';
import { isUpstreamToolName } from '../catalog/tool-key';
import { UpstreamMcpServer } from './upstream-server.entity';
import type { DynamicActions, RegisteredAction } from '../executor/vendor-registry';
import type { ExecutionRequest } from '../executor/executor.types';
import type { VendorHandler } from '../vendors/vendor-handler';
import type { UpstreamLimits } from '../config';
import { callUpstreamTool } from './mcp-client';
import type { Egress } from '../egress/egress';

/** The vault's integration type of an upstream server's bearer token: `mcp_<name>`. */
export const upstreamCredentialType = (server: string): string => `mcp_${server}`;

/**
 * The executor's handler of an org's imported MCP tools. Each call reads the tool's
 * definition and server (scoped to the call's org) and calls the upstream with the SDK
 * client; the executor adds what every vendor gets — the credential from the vault, the
 * timeout on its clock, retries of idempotent tools only, and a breaker per org and
 * server (the handler's vendor, `mcp.<name>`). An upstream tool has no way to be asked
 * whether a call happened, so a non-idempotent one interrupted by a crash is settled
 * VENDOR_OUTCOME_UNKNOWN for review; an idempotent one is called again.
 */
export function upstreamMcpActions(orm: MikroORM, egress: Egress, limits: Pick<UpstreamLimits, 'maxResultBytes'>): DynamicActions {
  return {
    async find(request: ExecutionRequest): Promise<RegisteredAction | undefined> {
      const { toolName, action } = request.tool;
      if (!isUpstreamToolName(toolName)) return undefined;
      const em = orm.em.fork();
      const definition = await em.findOne(ToolDefinition, { orgId: request.orgId, toolName, action, upstreamServerId: { $ne: null } });
      if (!definition?.upstreamServerId || !definition.upstreamName) return undefined;
      const server = await em.findOne(UpstreamMcpServer, { id: definition.upstreamServerId, orgId: request.orgId });
      return server ? upstreamAction(server, definition, egress, limits) : undefined;
    },
  };
}

function upstreamAction(
  server: UpstreamMcpServer,
  definition: ToolDefinition,
  egress: Egress,
  limits: Pick<UpstreamLimits, 'maxResultBytes'>,
): RegisteredAction {
  const upstreamName = definition.upstreamName!;
  const handler: VendorHandler = {
    vendor: definition.vendor,
    credentialSpec: { integrationType: upstreamCredentialType(server.name), required: ['bearerToken'], optional: true },
    endpoints: {},
    actions: [],
  };
  return {
    handler,
    action: {
      toolName: definition.toolName,
      action: definition.action,
      description: definition.description,
      inputSchema: definition.inputSchema,
      defaultRisk: definition.defaultRisk,
      costCents: definition.costCents,
      idempotent: definition.idempotent,
      timeoutMs: definition.timeoutMs ?? undefined,
      describeResult: "the upstream tool's structuredContent (else `{ content }`), at most MCP_UPSTREAM_MAX_RESULT_BYTES",
      execute: (input, ctx) => {
        const token = ctx.credentials.bearerToken;
        return callUpstreamTool(
          { url: server.url, bearerToken: typeof token === 'string' ? token : null, fetch: egress.fetch },
          { name: upstreamName, inputSchema: definition.inputSchema },
          input,
          ctx.signal,
          limits,
          ctx.idempotencyKey,
        );
      },
    },
  };
}
