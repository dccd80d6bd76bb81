import type Anthropic from '@anthropic-ai/sdk';
import type { CatalogEntry } from '../catalog/tool-catalog';
import { UPSTREAM_TOOL_PREFIX, isUpstreamToolName, toolKey } from '../catalog/tool-key';

/**
 * Anthropic tool names allow no dots, so `order_lookup.lookup` is offered to the model
 * as `order_lookup__lookup` and mapped back when it calls it. An imported upstream tool's
 * name has a dot of its own (`mcp.weather`): it is offered as `mcp-weather__lookup`. Tool
 * names hold neither `-` nor `__` (vendor tools are snake_case, server names refuse both),
 * so the first `__` splits and a `-` before it was a dot.
 */
const SEPARATOR = '__';

/** A tool as the Messages API takes it. */
export type ModelTool = Anthropic.Tool;

/** The Messages API's limit on a tool's name (an import refuses an upstream tool whose name would pass it). */
export const MODEL_TOOL_NAME_MAX = 64;

export const modelToolName = (toolName: string, action: string) => `${toolName.replaceAll('.', '-')}${SEPARATOR}${action}`;

export function parseModelToolName(name: string): { toolName: string; action: string } | null {
  const at = name.indexOf(SEPARATOR);
  if (at <= 0 || at + SEPARATOR.length >= name.length) return null;
  return { toolName: name.slice(0, at).replaceAll('-', '.'), action: name.slice(at + SEPARATOR.length) };
}

/** What the model is told about a catalog tool (a ToolDefinition row or a CatalogEntry). */
export type CatalogTool = Pick<CatalogEntry, 'toolName' | 'action' | 'description' | 'inputSchema'>;

/** An imported tool's text as pinned in the run's manifest (src/upstream/upstream-pin.ts). */
export type PinnedTools = Readonly<Record<string, { description: string; inputSchema: Record<string, unknown> }>>;

/**
 * One model tool per `tool.action` of the run's frozen manifest, with its catalog schema; an
 * imported upstream tool with the text pinned in the manifest, marked as the upstream's.
 */
export function toolsForManifest(allowedTools: readonly string[], catalog: readonly CatalogTool[], pinned: PinnedTools = {}): ModelTool[] {
  const allowed = new Set(allowedTools);
  return catalog
    .filter((tool) => allowed.has(toolKey(tool.toolName, tool.action)))
    .map((tool) => {
      const upstream = isUpstreamToolName(tool.toolName) ? (pinned[toolKey(tool.toolName, tool.action)] ?? tool) : null;
      return {
        name: modelToolName(tool.toolName, tool.action),
        description: upstream ? upstreamText(tool.toolName, upstream.description) : tool.description,
        input_schema: { type: 'object', ...(upstream ?? tool).inputSchema } as ModelTool['input_schema'],
      };
    });
}

/** Third-party text as the model reads it: said to be the upstream server's, not Toolgate's nor the operator's. */
export const upstreamText = (toolName: string, text: string): string =>
  `[From upstream MCP server ${toolName.slice(UPSTREAM_TOOL_PREFIX.length)}; not written by Toolgate or your operator] ${text}`;
