import type { EntityManager } from '@mikro-orm/postgresql';
import { ToolDefinition } from './tool-definition.entity';
import { ToolPermission } from './tool-permission.entity';
import { ToolSpecialistBinding } from './tool-specialist-binding.entity';
import { TOOL_CATALOG, type CatalogEntry } from './tool-catalog';
import { toolKey, type ToolKey } from './tool-key';
import { AppError } from '../errors/app-error';
import type { Caller } from '../auth/caller';
import { findSpecialist } from '../orgs/org.service';
import { recordConfigChange } from '../orgs/config-version';
import { pinTool } from '../upstream/upstream-pin';

/**
 * Writes the catalog (by default the registered vendors', src/vendors/index.ts) into
 * tool_definitions: insert or update by tool.action.
 */
export async function ensureCatalog(em: EntityManager, catalog: readonly CatalogEntry[] = TOOL_CATALOG): Promise<void> {
  await em.transactional(async (tx) => {
    const existing = await tx.find(ToolDefinition, { orgId: null });
    const byKey = new Map(existing.map((d) => [toolKey(d.toolName, d.action), d]));
    for (const entry of catalog) {
      const row = byKey.get(toolKey(entry.toolName, entry.action)) ?? tx.create(ToolDefinition, { ...entry });
      tx.assign(row, { ...entry });
    }
  });
}

/** A tool the org can see: a vendor tool, or one of its own imports still offered upstream. */
export async function findTool(em: EntityManager, orgId: string, toolName: string, action: string): Promise<ToolDefinition> {
  const tool = await em.findOne(ToolDefinition, { toolName, action, removedAt: null, $or: [{ orgId: null }, { orgId }] });
  if (!tool) throw new AppError('NOT_FOUND', `Tool ${toolKey(toolName, action)} is not in the catalog`);
  return tool;
}

export interface CatalogListing {
  tool: ToolDefinition;
  enabled: boolean;
}

export async function listCatalog(em: EntityManager, orgId: string): Promise<CatalogListing[]> {
  const [tools, permissions] = await Promise.all([
    em.find(ToolDefinition, { removedAt: null, $or: [{ orgId: null }, { orgId }] }, { orderBy: { toolName: 'asc', action: 'asc' } }),
    em.find(ToolPermission, { orgId }),
  ]);
  const enabled = new Map(permissions.map((p) => [p.toolId, p.enabled]));
  return tools.map((tool) => ({ tool, enabled: enabled.get(tool.id) ?? false }));
}

export async function setToolPermission(
  em: EntityManager,
  caller: Caller,
  toolName: string,
  action: string,
  enabled: boolean,
): Promise<{ permission: ToolPermission; tool: ToolDefinition }> {
  return em.transactional(async (tx) => {
    const tool = await findTool(tx, caller.orgId, toolName, action);
    let permission = await tx.findOne(ToolPermission, { orgId: caller.orgId, toolId: tool.id });
    // A tool with no permission row is disabled.
    const previous = permission?.enabled ?? false;
    if (!permission) {
      permission = tx.create(ToolPermission, { orgId: caller.orgId, toolId: tool.id, enabled });
    }
    permission.enabled = enabled;
    permission.updatedAt = new Date();
    // Enabling an imported tool pins its upstream text as the admin let it through.
    if (enabled && tool.upstreamServerId) pinTool(tool, permission.updatedAt);
    await recordConfigChange(tx, caller, {
      type: 'permission.changed',
      resourceId: permission.id,
      metadata: {
        scope: 'org',
        tool: toolKey(toolName, action),
        enabled,
        previous,
        ...(enabled && tool.pinnedHash ? { pinnedHash: tool.pinnedHash } : {}),
      },
    });
    return { permission, tool };
  });
}

export async function bindToolToSpecialist(
  em: EntityManager,
  caller: Caller,
  specialistId: string,
  toolName: string,
  action: string,
  bound: boolean,
): Promise<{ specialistId: string; tool: ToolDefinition; bound: boolean }> {
  return em.transactional(async (tx) => {
    await findSpecialist(tx, caller.orgId, specialistId);
    const tool = await findTool(tx, caller.orgId, toolName, action);
    const existing = await tx.findOne(ToolSpecialistBinding, { orgId: caller.orgId, specialistId, toolId: tool.id });
    if (bound && !existing) {
      tx.create(ToolSpecialistBinding, { orgId: caller.orgId, specialistId, toolId: tool.id });
    } else if (!bound && existing) {
      tx.remove(existing);
    }
    if (bound !== Boolean(existing)) {
      await recordConfigChange(tx, caller, {
        type: 'permission.changed',
        resourceId: specialistId,
        metadata: { scope: 'specialist', specialistId, tool: toolKey(toolName, action), bound },
      });
    }
    return { specialistId, tool, bound };
  });
}

/**
 * The rows of allowedToolsFor (`tool_name`, `action`, in order); its parameters: the org's id,
 * then the specialist's. Also a subquery of the read a new run starts from (src/runs/run-start-reads.ts).
 */
export const ALLOWED_TOOLS_SQL = `select d.tool_name, d.action
       from tool_permissions p
       join tool_specialist_bindings b on b.tool_id = p.tool_id and b.org_id = p.org_id
       join tool_definitions d on d.id = p.tool_id
      where p.org_id = ? and b.specialist_id = ? and p.enabled
        and d.removed_at is null and (d.org_id is null or d.org_id = p.org_id)
      order by d.tool_name, d.action`;

/** `tool.action` names a specialist may use in a new run: enabled permissions ∩ bindings. */
export async function allowedToolsFor(em: EntityManager, orgId: string, specialistId: string): Promise<ToolKey[]> {
  const rows = await em.execute<{ tool_name: string; action: string }[]>(ALLOWED_TOOLS_SQL, [orgId, specialistId]);
  return rows.map((r) => toolKey(r.tool_name, r.action));
}
