import type { EntityManager } from '@mikro-orm/postgresql';
import type { Tool } from '@modelcontextprotocol/server';
import { isUpstreamToolName, toolKey } from '../catalog/tool-key';
import { upstreamText } from '../llm/tool-definitions';
import type { ToolRegistry } from '../gateway/tool-registry';

/**
 * An MCP tool is named by its catalog key, `tool.action` (`invoice.send`,
 * `order_lookup.lookup`): the name manifests, policy and the ledger already use, and one
 * MCP allows (A-Z a-z 0-9 _ - .). Actions never contain a dot, so the last dot splits it.
 */
export function parseMcpToolName(name: string): { toolName: string; action: string } {
  const at = name.lastIndexOf('.');
  // A name without a dot still goes to the gateway, which records it NOT_IN_MANIFEST.
  return at < 0 ? { toolName: name, action: '' } : { toolName: name.slice(0, at), action: name.slice(at + 1) };
}

/** The run's frozen manifest as MCP tools, ordered by name: nothing else is listed. */
export async function manifestTools(em: EntityManager, registry: ToolRegistry, orgId: string, allowedTools: readonly string[]): Promise<Tool[]> {
  const allowed = new Set(allowedTools);
  const tools = (await registry.list(em, orgId))
    .map(({ definition }) => ({ name: toolKey(definition.toolName, definition.action), definition }))
    .filter(({ name }) => allowed.has(name));
  tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return tools.map(({ name, definition }) => ({
    name,
    // An imported tool's text is its upstream server's: marked so, as for the runtime's model.
    description: isUpstreamToolName(definition.toolName) ? upstreamText(definition.toolName, definition.description) : definition.description,
    inputSchema: { ...definition.inputSchema, type: 'object' } as Tool['inputSchema'],
    annotations: { idempotentHint: definition.idempotent },
  }));
}
