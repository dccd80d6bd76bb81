import type { RiskLevel } from './risk';
import { isUpstreamToolName, toolKey } from './tool-key';
import type { VendorHandler } from '../vendors/vendor-handler';
import { VENDOR_HANDLERS } from '../vendors';

/**
 * The tool catalog, as plain data, derived from the registered vendor handlers: each
 * action declares itself (description, input schema, risk, cost, idempotency, timeout) and
 * its vendor is its handler's. `ensureCatalog` writes it to tool_definitions on every start,
 * so the database always matches the code.
 */
export interface CatalogEntry {
  toolName: string;
  action: string;
  vendor: string;
  description: string;
  defaultRisk: RiskLevel;
  idempotent: boolean;
  costCents: number;
  inputSchema: Record<string, unknown>;
  /** null: the executor default. */
  timeoutMs: number | null;
}

/** The catalog of these handlers, in their order; a tool action registered twice fails at boot. */
export function catalogOf(handlers: readonly VendorHandler[]): CatalogEntry[] {
  const seen = new Set<string>();
  return handlers.flatMap((handler) =>
    handler.actions.map((a) => {
      const key = toolKey(a.toolName, a.action);
      if (seen.has(key)) throw new Error(`tool action ${key} is registered twice`);
      // `mcp.<server>` names are an org's imported upstream tools (src/upstream).
      if (isUpstreamToolName(a.toolName)) throw new Error(`tool action ${key}: tool names starting mcp. are reserved`);
      seen.add(key);
      return {
        toolName: a.toolName,
        action: a.action,
        vendor: handler.vendor,
        description: a.description,
        defaultRisk: a.defaultRisk,
        idempotent: a.idempotent,
        costCents: a.costCents,
        inputSchema: a.inputSchema,
        timeoutMs: a.timeoutMs ?? null,
      };
    }),
  );
}

export const TOOL_CATALOG: readonly CatalogEntry[] = catalogOf(VENDOR_HANDLERS);
