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
import { UpstreamListTooLongError, listUpstreamTools } from './mcp-client';
import { untrustedSchemaAjv } from '../vendors/input-schema';
import { MODEL_TOOL_NAME_MAX, modelToolName } from '../llm/tool-definitions';
import type { UpstreamLimits } from '../config';
import { appendLedgerEvent } from '../ledger/ledger.service';
import { driftOf, importedText, pinHash } from './upstream-pin';
import { upstreamCredentialType } from './mcp-upstream';
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
  /** Their description or title changed upstream: third-party text that instructs the model, so a change as well. */
  descriptionChanged: string[];
  unchanged: string[];
  /** Upstream tools not imported, and why (`invalid_name`, `name_too_long`, `duplicate_name`, `invalid_schema`). */
  skipped: { name: string; reason: string }[];
  /** Tools this import found changed against the text an admin enabled (pinned), and which fields. */
  drifted: { tool: string; fields: string[] }[];
}

/** MCP's recommended tool-name characters; a dot becomes `_` in the action (a key splits at its last dot). */
const UPSTREAM_TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const MAX_DESCRIPTION = 2000;
const MAX_TITLE = 200;

interface Offered {
  action: string;
  upstreamName: string;
  title: string | null;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface ImportOptions {
  timeoutMs: number;
  limits: Omit<UpstreamLimits, 'maxResultBytes'>;
  /** The egress policy's fetch and checks: the server's URL is a tenant's. */
  egress: Egress;
}

/**
 * Lists the upstream's tools (the SDK client, the org's bearer token from the vault) and
 * brings the org's catalog rows of that server in line, in one transaction:
 * - a new tool is added with the server's default risk and idempotency, disabled (it needs
 *   `setToolPermission` and `bindToolToSpecialist` like any tool);
 * - a tool gone upstream is marked removed (never deleted: calls and the ledger name it);
 * - a tool whose input schema, description or title changed gets the new text;
 * and a removed or changed tool's permission is turned off, so that no manifest — a frozen
 * one included — gains what an admin has not looked at; a changed tool enabled before has
 * drifted from its pinned text (`mcp_tool.drifted`). An unreachable upstream, or one past a
 * cap (tools, pages, schema size or depth), changes nothing.
 */
export async function importUpstreamTools(
  em: EntityManager,
  keyring: MasterKeyring,
  caller: Caller,
  serverId: string,
  options: ImportOptions,
): Promise<ImportDiff> {
  const server = await findUpstreamServer(em, caller.orgId, serverId);
  const listed = await listTools(em, keyring, server, options);
  const { offered, skipped } = sortOut(listed, upstreamToolName(server.name), options.limits);

  return em.transactional(async (tx) => {
    // One import of a server at a time: the second waits and compares with the first's result.
    const locked = await tx.findOneOrFail(UpstreamMcpServer, { id: server.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    const existing = await tx.find(ToolDefinition, { orgId: caller.orgId, upstreamServerId: server.id });
    const byAction = new Map(existing.map((d) => [d.action, d]));
    const toolName = upstreamToolName(server.name);
    const diff: Omit<ImportDiff, 'server' | 'skipped' | 'drifted'> = {
      added: [],
      removed: [],
      schemaChanged: [],
      descriptionChanged: [],
      unchanged: [],
    };
    const disable: ToolDefinition[] = [];
    const drifted: ImportDiff['drifted'] = [];

    for (const tool of offered) {
      const row = byAction.get(tool.action);
      const key = toolKey(toolName, tool.action);
      if (!row) {
        tx.create(ToolDefinition, {
          toolName,
          action: tool.action,
          vendor: toolName,
          upstreamTitle: tool.title,
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
      const textChanged = row.description !== tool.description || row.upstreamTitle !== tool.title;
      const wasHash = pinHash(importedText(row));
      if (row.removedAt) diff.added.push(key);
      else {
        if (schemaChanged) diff.schemaChanged.push(key);
        if (textChanged) diff.descriptionChanged.push(key);
        if (!schemaChanged && !textChanged) diff.unchanged.push(key);
      }
      if ((schemaChanged || textChanged) && !row.removedAt) disable.push(row);
      tx.assign(row, {
        upstreamTitle: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        upstreamName: tool.upstreamName,
        removedAt: null,
      });
      // Drift is told once: when this import brought text other than the pinned, not at every import after.
      const fields = driftOf(row);
      if (fields.length > 0 && wasHash !== pinHash(importedText(row))) drifted.push({ tool: key, fields });
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
      metadata: {
        name: server.name,
        added: diff.added,
        removed: diff.removed,
        schemaChanged: diff.schemaChanged,
        descriptionChanged: diff.descriptionChanged,
        disabled,
        skipped,
      },
    });
    drifted.sort((a, b) => (a.tool < b.tool ? -1 : 1));
    if (drifted.length > 0) {
      // Its own event (and webhook): an admin may want to know before the next look at the catalog.
      await appendLedgerEvent(tx, {
        orgId: caller.orgId,
        type: 'mcp_tool.drifted',
        resourceId: server.id,
        actor: caller,
        metadata: { server: server.name, tools: drifted },
      });
    }
    for (const list of Object.values(diff)) list.sort();
    return { server: locked, ...diff, skipped, drifted };
  });
}

async function listTools(em: EntityManager, keyring: MasterKeyring, server: UpstreamMcpServer, options: ImportOptions): Promise<Tool[]> {
  const { timeoutMs, limits, egress } = options;
  const credential = await readCredential(em, keyring, server.orgId, upstreamCredentialType(server.name)).catch((error) => {
    if (error instanceof AppError && error.code === 'CREDENTIALS_NOT_FOUND') return {} as Record<string, unknown>;
    throw error;
  });
  const bearerToken = typeof credential.bearerToken === 'string' ? credential.bearerToken : null;
  let tools: Tool[];
  try {
    tools = await listUpstreamTools({ url: server.url, bearerToken, fetch: egress.fetch }, AbortSignal.timeout(timeoutMs), limits.maxListPages);
  } catch (error) {
    // A refused address or redirect, a name that does not resolve and a closed port: one answer, as at registration.
    if (error instanceof VendorNetworkError && error.unreachable) throw egressRefused();
    if (error instanceof UpstreamListTooLongError) {
      throw new AppError('MCP_SERVER_TOO_MANY_PAGES', `The MCP server ${server.name} lists its tools in more than ${limits.maxListPages} pages`, {
        limit: limits.maxListPages,
      });
    }
    const failure =
      error instanceof DOMException && error.name === 'TimeoutError' ? { reason: 'vendor_timeout', vendorStatusCode: null } : classifyFailure(error);
    // The reason and status only: no upstream text reaches the admin's answer or the log.
    throw new AppError('MCP_SERVER_UNREACHABLE', `The MCP server ${server.name} could not be asked for its tools (${failure.reason})`, {
      reason: failure.reason,
      vendorStatusCode: failure.vendorStatusCode,
    });
  }
  if (tools.length > limits.maxTools) {
    throw new AppError(
      'MCP_SERVER_TOO_MANY_TOOLS',
      `The MCP server ${server.name} lists ${tools.length} tools; at most ${limits.maxTools} are imported`,
      {
        limit: limits.maxTools,
        listed: tools.length,
      },
    );
  }
  return tools;
}

/**
 * The upstream tools that can be catalog tools, and the rest with a reason. A schema past
 * the caps refuses the whole import: a server that sends one is not trusted with the rest.
 */
function sortOut(tools: Tool[], toolName: string, limits: ImportOptions['limits']): { offered: Offered[]; skipped: ImportDiff['skipped'] } {
  const offered: Offered[] = [];
  const skipped: ImportDiff['skipped'] = [];
  const seen = new Set<string>();
  const ajv = untrustedSchemaAjv();
  for (const tool of tools) {
    const name = String(tool.name);
    if (!UPSTREAM_TOOL_NAME.test(name)) {
      skipped.push({ name: name.slice(0, 64), reason: 'invalid_name' });
      continue;
    }
    const action = name.replace(/\./g, '_');
    // The Messages API takes tool names of at most 64 characters: refused, not shortened, so the name maps back.
    if (modelToolName(toolName, action).length > MODEL_TOOL_NAME_MAX) {
      skipped.push({ name, reason: 'name_too_long' });
      continue;
    }
    if (seen.has(action)) {
      skipped.push({ name, reason: 'duplicate_name' });
      continue;
    }
    const inputSchema = { ...(tool.inputSchema as Record<string, unknown>), type: 'object' };
    checkSchemaSize(name, inputSchema, limits);
    try {
      ajv.compile(inputSchema);
    } catch {
      skipped.push({ name, reason: 'invalid_schema' });
      continue;
    }
    seen.add(action);
    offered.push({
      action,
      upstreamName: name,
      title: titleOf(tool),
      description: (tool.description ?? name).slice(0, MAX_DESCRIPTION),
      inputSchema,
    });
  }
  return { offered, skipped };
}

/** MCP's `title`, else the older `annotations.title`: display text, compared and pinned like the description. */
function titleOf(tool: Tool): string | null {
  const title = tool.title ?? tool.annotations?.title;
  return typeof title === 'string' && title !== '' ? title.slice(0, MAX_TITLE) : null;
}

function checkSchemaSize(name: string, schema: Record<string, unknown>, limits: ImportOptions['limits']): void {
  // Depth first: JSON.stringify of a very deep value would overflow the stack.
  const depth = depthOf(schema);
  if (depth > limits.maxSchemaDepth) {
    throw new AppError(
      'MCP_TOOL_SCHEMA_TOO_DEEP',
      `The input schema of ${name} nests ${depth} levels; at most ${limits.maxSchemaDepth} are imported`,
      {
        tool: name,
        limit: limits.maxSchemaDepth,
      },
    );
  }
  const bytes = Buffer.byteLength(JSON.stringify(schema));
  if (bytes > limits.maxSchemaBytes) {
    throw new AppError('MCP_TOOL_SCHEMA_TOO_LARGE', `The input schema of ${name} has ${bytes} bytes; at most ${limits.maxSchemaBytes} are imported`, {
      tool: name,
      limit: limits.maxSchemaBytes,
    });
  }
}

/** How deep objects and arrays nest (a flat object is 1); iterative, so a deep one cannot overflow the stack. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    deepest = Math.max(deepest, depth);
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
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
