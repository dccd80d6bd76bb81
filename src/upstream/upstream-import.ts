import Ajv from 'ajv';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Tool } from '@modelcontextprotocol/client';
import { AppError } from '../errors/app-error';
import type { Caller } from '../auth/caller';
import type { MasterKeyring } from '../credentials/keyring';
import { readCredential } from '../credentials/credential.service';
import { ToolDefinition } from '../catalog/tool-definition.entity';
import { ToolPermission } from '../catalog/tool-permission.entity';
import { toolKey, upstreamToolName } from '../catalog/tool-key';
import { recordConfigChange } from '../orgs/config-version';
import { canonicalJson } from '../ledger/canonical-json';
import { classifyFailure } from '../executor/failure-classifier';
import { listUpstreamTools } from '../vendors/mcp/mcp-client';
import { upstreamCredentialType } from '../vendors/mcp/mcp-upstream';
import { UpstreamMcpServer } from './upstream-server.entity';
import { findUpstreamServer } from './upstream.service';
import type { Egress } from '../egress/egress';
import { egressRefused } from '../egress/egress-refused';
import { VendorNetworkError } from '../vendors/http';

/** What an import changed, by catalog name (`mcp.<server>.<tool>`). */
export interface ImportDiff {
  server: UpstreamMcpServer;
  added: string[];
  removed: string[];
  schemaChanged: string[];
  unchanged: string[];
  /** Upstream tools not imported, and why (`invalid_name`, `duplicate_name`, `invalid_schema`). */
  skipped: { name: string; reason: string }[];
}

/** MCP's recommended tool-name characters; a dot becomes `_` in the action (a key splits at its last dot). */
const UPSTREAM_TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const MAX_DESCRIPTION = 2000;

interface Offered {
  action: string;
  upstreamName: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/**
 * Lists the upstream's tools (the SDK client, the org's bearer token from the vault) and
 * brings the org's catalog rows of that server in line, in one transaction:
 * - a new tool is added with the server's default risk and idempotency, disabled (it needs
 *   `setToolPermission` and `bindToolToSpecialist` like any tool);
 * - a tool gone upstream is marked removed (never deleted: calls and the ledger name it);
 * - a tool whose input schema changed gets the new schema;
 * and a removed or changed tool's permission is turned off, so that no manifest — a frozen
 * one included — gains what an admin has not looked at. An unreachable upstream changes nothing.
 */
export async function importUpstreamTools(
  em: EntityManager,
  keyring: MasterKeyring,
  caller: Caller,
  serverId: string,
  timeoutMs: number,
  egress: Egress,
): Promise<ImportDiff> {
  const server = await findUpstreamServer(em, caller.orgId, serverId);
  const listed = await listTools(em, keyring, server, timeoutMs, egress);
  const { offered, skipped } = sortOut(listed);

  return em.transactional(async (tx) => {
    // One import of a server at a time: the second waits and compares with the first's result.
    const locked = await tx.findOneOrFail(UpstreamMcpServer, { id: server.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    const existing = await tx.find(ToolDefinition, { orgId: caller.orgId, upstreamServerId: server.id });
    const byAction = new Map(existing.map((d) => [d.action, d]));
    const toolName = upstreamToolName(server.name);
    const diff: Omit<ImportDiff, 'server' | 'skipped'> = { added: [], removed: [], schemaChanged: [], unchanged: [] };
    const disable: ToolDefinition[] = [];

    for (const tool of offered) {
      const row = byAction.get(tool.action);
      const key = toolKey(toolName, tool.action);
      if (!row) {
        tx.create(ToolDefinition, {
          toolName,
          action: tool.action,
          vendor: toolName,
          description: tool.description,
          defaultRisk: server.defaultRisk,
          idempotent: server.defaultIdempotent,
          inputSchema: tool.inputSchema,
          costCents: server.defaultCostCents,
          timeoutMs: null,
          orgId: caller.orgId,
          upstreamServerId: server.id,
          upstreamName: tool.upstreamName,
        });
        diff.added.push(key);
        continue;
      }
      const schemaChanged = canonicalJson(row.inputSchema) !== canonicalJson(tool.inputSchema);
      if (row.removedAt) diff.added.push(key);
      else if (schemaChanged) diff.schemaChanged.push(key);
      else diff.unchanged.push(key);
      if (schemaChanged && !row.removedAt) disable.push(row);
      tx.assign(row, { description: tool.description, inputSchema: tool.inputSchema, upstreamName: tool.upstreamName, removedAt: null });
    }
    const offeredActions = new Set(offered.map((t) => t.action));
    for (const row of existing) {
      if (row.removedAt || offeredActions.has(row.action)) continue;
      row.removedAt = new Date();
      disable.push(row);
      diff.removed.push(toolKey(row.toolName, row.action));
    }

    const disabled = await disablePermissions(tx, caller.orgId, disable);
    locked.lastImportedAt = new Date();
    await recordConfigChange(tx, caller, {
      type: 'mcp_server.imported',
      resourceId: server.id,
      metadata: { name: server.name, added: diff.added, removed: diff.removed, schemaChanged: diff.schemaChanged, disabled, skipped },
    });
    for (const list of Object.values(diff)) list.sort();
    return { server: locked, ...diff, skipped };
  });
}

async function listTools(em: EntityManager, keyring: MasterKeyring, server: UpstreamMcpServer, timeoutMs: number, egress: Egress): Promise<Tool[]> {
  const credential = await readCredential(em, keyring, server.orgId, upstreamCredentialType(server.name)).catch((error) => {
    if (error instanceof AppError && error.code === 'CREDENTIALS_NOT_FOUND') return {} as Record<string, unknown>;
    throw error;
  });
  const bearerToken = typeof credential.bearerToken === 'string' ? credential.bearerToken : null;
  try {
    return await listUpstreamTools({ url: server.url, bearerToken, fetch: egress.fetch }, AbortSignal.timeout(timeoutMs));
  } catch (error) {
    // A refused address or redirect, a name that does not resolve and a closed port: one answer, as at registration.
    if (error instanceof VendorNetworkError && error.unreachable) throw egressRefused();
    const failure =
      error instanceof DOMException && error.name === 'TimeoutError' ? { reason: 'vendor_timeout', vendorStatusCode: null } : classifyFailure(error);
    // The reason and status only: no upstream text reaches the admin's answer or the log.
    throw new AppError('MCP_SERVER_UNREACHABLE', `The MCP server ${server.name} could not be asked for its tools (${failure.reason})`, {
      reason: failure.reason,
      vendorStatusCode: failure.vendorStatusCode,
    });
  }
}

/** The upstream tools that can be catalog tools, and the rest with a reason. */
function sortOut(tools: Tool[]): { offered: Offered[]; skipped: ImportDiff['skipped'] } {
  const offered: Offered[] = [];
  const skipped: ImportDiff['skipped'] = [];
  const seen = new Set<string>();
  const ajv = new Ajv({ strict: false });
  for (const tool of tools) {
    const name = String(tool.name);
    if (!UPSTREAM_TOOL_NAME.test(name)) {
      skipped.push({ name: name.slice(0, 64), reason: 'invalid_name' });
      continue;
    }
    const action = name.replace(/\./g, '_');
    if (seen.has(action)) {
      skipped.push({ name, reason: 'duplicate_name' });
      continue;
    }
    const inputSchema = { ...(tool.inputSchema as Record<string, unknown>), type: 'object' };
    try {
      ajv.compile(inputSchema);
    } catch {
      skipped.push({ name, reason: 'invalid_schema' });
      continue;
    }
    seen.add(action);
    offered.push({ action, upstreamName: name, description: (tool.description ?? name).slice(0, MAX_DESCRIPTION), inputSchema });
  }
  return { offered, skipped };
}

/** Turns the org's permission of these tools off; answers the keys that were on. */
async function disablePermissions(tx: EntityManager, orgId: string, tools: ToolDefinition[]): Promise<string[]> {
  if (tools.length === 0) return [];
  const permissions = await tx.find(ToolPermission, { orgId, enabled: true, toolId: { $in: tools.map((t) => t.id) } });
  const byId = new Map(tools.map((t) => [t.id, t]));
  for (const permission of permissions) {
    permission.enabled = false;
    permission.updatedAt = new Date();
  }
  return permissions
    .map((p) => byId.get(p.toolId)!)
    .map((t) => toolKey(t.toolName, t.action))
    .sort();
}
