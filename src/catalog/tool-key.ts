/**
 * `tool.action`, e.g. `order_lookup.lookup`: how a catalog tool action is named in run
 * manifests, ledger metadata, logs and the registries. Always built with `toolKey`.
 */
export type ToolKey = `${string}.${string}`;

export const toolKey = (toolName: string, action: string): ToolKey => `${toolName}.${action}`;

/** The tool names of imported upstream MCP tools: `mcp.<server>` (their key: `mcp.<server>.<tool>`). */
export const UPSTREAM_TOOL_PREFIX = 'mcp.';

export const isUpstreamToolName = (toolName: string): boolean => toolName.startsWith(UPSTREAM_TOOL_PREFIX);

export const upstreamToolName = (server: string): string => `${UPSTREAM_TOOL_PREFIX}${server}`;
