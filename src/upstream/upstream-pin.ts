import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { type PinnedText, ToolDefinition } from '../catalog/tool-definition.entity';
import { isUpstreamToolName, toolKey } from '../catalog/tool-key';
import { canonicalJson } from '../ledger/canonical-json';

/**
 * Pins of imported upstream tools. An upstream server's description, title and input schema
 * are third-party text: they instruct the model and bound what it may send. An admin who
 * enables an imported tool pins the text as it is then (its hash too); a run's manifest
 * carries the pinned text, and a re-import that finds other text upstream turns the tool off
 * until an admin enables it again. Until then the tool has drifted (mcpServers, a metric and
 * the `mcp_tool.drifted` webhook say so).
 */

/** sha256 of the canonical JSON of the text: equal text, equal hash, whatever the key order. */
export const pinHash = (text: PinnedText): string =>
  createHash('sha256')
    .update(canonicalJson({ title: text.title, description: text.description, inputSchema: text.inputSchema }))
    .digest('hex');

/** The tool's text as its last import brought it. */
export const importedText = (tool: Pick<ToolDefinition, 'upstreamTitle' | 'description' | 'inputSchema'>): PinnedText => ({
  title: tool.upstreamTitle,
  description: tool.description,
  inputSchema: tool.inputSchema,
});

/** Pins what was imported: called when an admin enables the tool. */
export function pinTool(tool: ToolDefinition, now: Date): void {
  const text = importedText(tool);
  tool.pinned = structuredClone(text);
  tool.pinnedHash = pinHash(text);
  tool.pinnedAt = now;
}

/** What of the imported text differs from the pinned (`title`, `description`, `inputSchema`); empty when none or never pinned. */
export function driftOf(tool: ToolDefinition): (keyof PinnedText)[] {
  if (!tool.pinned || !tool.pinnedHash || pinHash(importedText(tool)) === tool.pinnedHash) return [];
  const now = importedText(tool);
  return (['title', 'description', 'inputSchema'] as const).filter((field) => canonicalJson(now[field]) !== canonicalJson(tool.pinned![field]));
}

/** What a run's manifest keeps of an imported tool: its pinned text and the pin's hash. */
export interface ManifestPin {
  description: string;
  inputSchema: Record<string, unknown>;
  hash: string;
}

/**
 * The pinned text of the manifest's imported tools, by key, for the run's manifest: the model
 * of that run is offered this text, whatever later imports bring.
 */
export async function manifestPins(em: EntityManager, orgId: string, allowedTools: readonly string[]): Promise<Record<string, ManifestPin>> {
  const upstream = allowedTools.filter((key) => isUpstreamToolName(key));
  if (upstream.length === 0) return {};
  const rows = await em.find(ToolDefinition, { orgId, upstreamServerId: { $ne: null }, removedAt: null });
  const pins: Record<string, ManifestPin> = {};
  for (const row of rows) {
    const key = toolKey(row.toolName, row.action);
    if (!upstream.includes(key)) continue;
    const text = row.pinned ?? importedText(row);
    pins[key] = { description: text.description, inputSchema: text.inputSchema, hash: row.pinnedHash ?? pinHash(text) };
  }
  return pins;
}
