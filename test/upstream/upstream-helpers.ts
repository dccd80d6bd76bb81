import { randomUUID } from 'node:crypto';
import type { TestApp } from '../support/app';
import { graphql } from '../gql';
import { SetFeatureFlagDocument } from '../../gql/graphql';
import { BIND_TOOL, EXECUTE_TOOL_CALL, SET_TOOL_PERMISSION, START_AGENT_RUN } from '../support/documents';
import { newOrg } from '../support/factories';
import { dataOf, type Tenant } from '../executor/executor-helpers';
import { MCP_SANDBOX, MCP_SANDBOX_TOOLS, type McpSandbox } from '../../src/upstream/mcp.sandbox';

/** Helpers of the upstream MCP suites: the admin API, a run and calls of `mcp.<server>.<tool>`. */
graphql(`
  fragment McpServerFields on McpServer {
    id name url transport defaultRisk defaultIdempotent defaultCostCents hasCredential tools createdAt lastImportedAt
    drift { tool fields pinnedHash pinnedAt }
  }
`);

export const REGISTER_MCP_SERVER = graphql(`
  mutation RegisterMcpServer($input: RegisterMcpServerInput!) {
    registerMcpServer(input: $input) { ...McpServerFields }
  }
`);

export const IMPORT_MCP_TOOLS = graphql(`
  mutation ImportMcpTools($id: ID!) {
    importMcpServerTools(serverId: $id) {
      server { ...McpServerFields }
      added removed schemaChanged descriptionChanged unchanged
      skipped { name reason }
      drifted { tool fields }
    }
  }
`);

export const MCP_SERVERS = graphql(`
  query McpServers {
    mcpServers { ...McpServerFields }
  }
`);

export const CATALOG = graphql(`
  query UpstreamCatalog {
    toolCatalog { name toolName action vendor defaultRisk idempotent inputSchema costCents enabled }
  }
`);

export const RUN_MANIFEST = graphql(`
  query UpstreamRunManifest($id: ID!) {
    run(id: $id) { id status allowedTools }
  }
`);

export const UPSTREAM_CALL = graphql(`
  query UpstreamToolCall($id: ID!) {
    toolCall(id: $id) {
      toolName action status errorCode errorText input output retryCount durationMs costCents vendorStatusCode
      ledgerEvents { type metadata }
    }
  }
`);

/** The sandbox's MCP server, fresh: its original tools, no messages, no bearer token. */
export function mcpSandbox(app: TestApp): McpSandbox {
  const sandbox = app.sandbox!.sandbox<McpSandbox>(MCP_SANDBOX)!;
  sandbox.tools = MCP_SANDBOX_TOOLS.map((tool) => structuredClone(tool));
  sandbox.notifications.splice(0);
  sandbox.bearerToken = null;
  sandbox.pageSize = null;
  app.sandbox!.clearFaults();
  app.sandbox!.requests.length = 0;
  return sandbox;
}

/** The `tools/call` requests the sandbox's MCP server saw. */
export const toolCallsSeen = (app: TestApp) =>
  app.sandbox!.requests.filter((r) => r.vendor === MCP_SANDBOX && JSON.stringify(r.body).includes('tools/call'));

/** A fresh org with the tool-calling flag on; nothing registered. */
export async function upstreamTenant(app: TestApp): Promise<Tenant> {
  const made = await newOrg(app.em());
  dataOf(await app.gql(SetFeatureFlagDocument, { key: made.keys.admin, variables: { key: 'tool_calling_enabled', enabled: true } }));
  return { orgId: made.org.id, specialistId: made.specialist.id, keys: made.keys };
}

export async function registerServer(
  app: TestApp,
  tenant: Tenant,
  input: {
    name: string;
    defaultRisk?: 'low' | 'medium' | 'high';
    defaultIdempotent?: boolean;
    defaultCostCents?: number;
    bearerToken?: string;
    url?: string;
  },
) {
  const variables = {
    input: {
      name: input.name,
      url: input.url ?? app.sandbox!.urlFor(MCP_SANDBOX),
      defaultRisk: input.defaultRisk ?? 'low',
      defaultIdempotent: input.defaultIdempotent ?? true,
      ...(input.defaultCostCents !== undefined ? { defaultCostCents: input.defaultCostCents } : {}),
      ...(input.bearerToken ? { bearerToken: input.bearerToken } : {}),
    },
  };
  return dataOf(await app.gql(REGISTER_MCP_SERVER, { key: tenant.keys.admin, variables })).registerMcpServer;
}

export async function importTools(app: TestApp, tenant: Tenant, serverId: string) {
  return dataOf(await app.gql(IMPORT_MCP_TOOLS, { key: tenant.keys.admin, variables: { id: serverId } })).importMcpServerTools;
}

/** Enables a catalog tool for the tenant and binds it to its specialist (or turns it off). */
export async function enableTool(app: TestApp, tenant: Tenant, name: string, enabled = true): Promise<void> {
  const { toolName, action } = splitKey(name);
  dataOf(await app.gql(SET_TOOL_PERMISSION, { key: tenant.keys.admin, variables: { tool: toolName, action, enabled } }));
  const input = { specialistId: tenant.specialistId, toolName, action, bound: true };
  if (enabled) dataOf(await app.gql(BIND_TOOL, { key: tenant.keys.admin, variables: { input } }));
}

/** An external run of the tenant's specialist: its id and frozen manifest. */
export async function startExternalRun(app: TestApp, tenant: Tenant): Promise<{ id: string; allowedTools: string[] }> {
  const variables = { input: { specialistId: tenant.specialistId, driver: 'EXTERNAL' as const } };
  return dataOf(await app.gql(START_AGENT_RUN, { key: tenant.keys.agent, variables })).startAgentRun;
}

/** executeToolCall of a catalog name (`mcp.<server>.<tool>`: the key splits at its last dot). */
export async function callUpstream(app: TestApp, tenant: Tenant, runId: string, name: string, params: Record<string, unknown>) {
  const { toolName, action } = splitKey(name);
  const variables = { input: { runId, toolName, action, params, correlationId: `test-${randomUUID()}` } };
  const response = await app.gql(EXECUTE_TOOL_CALL, { key: tenant.keys.agent, variables });
  return { answer: dataOf(response).executeToolCall, raw: JSON.stringify(response.body) };
}

export async function inspectUpstreamCall(app: TestApp, tenant: Tenant, id: string) {
  return dataOf(await app.gql(UPSTREAM_CALL, { key: tenant.keys.admin, variables: { id } })).toolCall;
}

export function splitKey(name: string): { toolName: string; action: string } {
  const at = name.lastIndexOf('.');
  return { toolName: name.slice(0, at), action: name.slice(at + 1) };
}
