import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { AppError, errorFields } from '../errors/app-error';
import { MCP_CLIENT_APPROVALS_FLAG } from '../orgs/feature-flag.entity';
import type { ToolRegistry } from '../gateway/tool-registry';
import type { McpBinding } from './mcp-binding';
import { type McpCallDeps, callTool } from './mcp-call';
import { inputRequiredChannel, sessionChannel } from './mcp-approval';
import { manifestTools } from './mcp-tools';

export interface McpServerDeps extends McpCallDeps {
  tools: ToolRegistry;
}

/** The era an instance serves: 2025 (sessions, server→client requests) or 2026-07-28 (stateless). */
export interface McpServing {
  era: 'legacy' | 'modern';
  correlationId: string;
}

/** A Toolgate error as a JSON-RPC error: the stable code in `data.code`, like GraphQL's `extensions.code`. */
export const APP_ERROR_RPC_CODE = -32000;

/** One MCP server instance for one bound run: tools/list and tools/call, nothing else. */
export function createMcpServer(deps: McpServerDeps, binding: McpBinding, serving: McpServing): Server {
  const server = new Server({ name: 'toolgate', version: '0.1.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', () =>
    guarded(deps, async () => {
      if (!(await deps.gateway.toolCallingEnabled(binding.caller.orgId))) {
        throw new AppError('FEATURE_DISABLED', 'Tool execution is not enabled for this organization');
      }
      return { tools: await manifestTools(deps.orm.em.fork(), deps.tools, binding.caller.orgId, binding.allowedTools) };
    }),
  );
  server.setRequestHandler('tools/call', (request, ctx) =>
    guarded(deps, async () => {
      const progressToken = ctx.mcpReq._meta?.progressToken;
      const capabilities =
        serving.era === 'legacy'
          ? server.getClientCapabilities()
          : ((ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined);
      // The agent's own client answers client approvals only where the org opted in: otherwise the
      // governed party could approve its own call. Without it the call waits for a client key.
      const askClient = capabilities?.elicitation !== undefined && (await deps.gateway.flagOn(binding.caller.orgId, MCP_CLIENT_APPROVALS_FLAG));
      return callTool(deps, {
        binding,
        name: request.params.name,
        args: request.params.arguments,
        meta: ctx.mcpReq._meta,
        correlationId: serving.correlationId,
        progress: (progress, message) =>
          progressToken === undefined
            ? Promise.resolve()
            : ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, message } }),
        clientApproval: askClient ? channelFor(serving, ctx) : null,
      });
    }),
  );
  return server;
}

function channelFor(serving: McpServing, ctx: ServerContext) {
  return serving.era === 'legacy'
    ? // On the tools/call's own stream: the session's GET stream may not be open yet (a client
      // opens it when it likes), and what the server sends there meanwhile is dropped.
      sessionChannel((params) => ctx.mcpReq.elicitInput(params, { relatedRequestId: ctx.mcpReq.id }))
    : inputRequiredChannel(ctx.mcpReq.inputResponses, ctx.mcpReq.requestState());
}

/** Toolgate errors keep their code; anything else is logged and masked, as on GraphQL. */
async function guarded<T>(deps: McpCallDeps, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    if (error instanceof AppError) {
      const rpc = error.code === 'BAD_USER_INPUT' ? ProtocolErrorCode.InvalidParams : APP_ERROR_RPC_CODE;
      throw new ProtocolError(rpc, error.message, errorFields(error));
    }
    deps.logger.error({ err: error }, 'MCP request failed');
    throw new ProtocolError(ProtocolErrorCode.InternalError, 'Internal server error', { code: 'INTERNAL_SERVER_ERROR' });
  }
}
