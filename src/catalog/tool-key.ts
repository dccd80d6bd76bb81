/**
 * `tool.action`, e.g. `order_lookup.lookup`: how a catalog tool action is named in run
 * manifests, ledger metadata, logs and the registries. Always built with `toolKey`.
 */
export type ToolKey = `${string}.${string}`;

export const toolKey = (toolName: string, action: string): ToolKey => `${toolName}.${action}`;
