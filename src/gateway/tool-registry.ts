import Ajv, { type ValidateFunction } from 'ajv';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ToolDefinition } from '../catalog/tool-definition.entity';
import { ToolPermission } from '../catalog/tool-permission.entity';
import { isUpstreamToolName, toolKey, type ToolKey } from '../catalog/tool-key';
import type { ExecutionRequest } from '../executor/executor.types';
import { untrustedSchemaAjv } from '../vendors/input-schema';

export interface RegisteredTool {
  definition: ToolDefinition;
  validate: ValidateFunction;
}

/** An org's imported tools whose compiled schema is kept: a bound on memory, not on correctness. */
const MAX_COMPILED_UPSTREAM = 1000;

/**
 * The catalog in memory, each input schema compiled once: the one copy the gateway (input
 * validation, default risk, cost), the reconciler and the agent runtime (the model's tool
 * list) share. The vendors' catalog is global and written only at start-up (ensureCatalog,
 * from the vendor handlers' actions), so it is loaded once per process. An org's imported
 * upstream MCP tools (`mcp.…`) change with its imports, on any node, so they are read at
 * each use — and only while usable: not removed upstream, and enabled for the org (a re-import
 * that removed or changed a tool turned its permission off: until an admin enables it again,
 * every run is refused it, frozen manifest or not).
 */
export class ToolRegistry {
  private tools: Map<ToolKey, RegisteredTool> | null = null;
  private loading: Promise<Map<ToolKey, RegisteredTool>> | null = null;
  private readonly ajv = new Ajv({ allErrors: true, strict: false, useDefaults: false });
  /** Imported tools' validators by definition id, with the schema they were compiled from. */
  private readonly upstreamValidators = new Map<string, { schema: string; validate: ValidateFunction }>();

  /** `em` may be a function: its EntityManager is then made only for the one load per process. */
  async find(em: EntityManager | (() => EntityManager), orgId: string, toolName: string, action: string): Promise<RegisteredTool | undefined> {
    if (isUpstreamToolName(toolName)) return (await this.upstreamTools(typeof em === 'function' ? em() : em, orgId, { toolName, action }))[0];
    return (await this.catalog(em)).get(toolKey(toolName, action));
  }

  /** Every catalog tool the org may use, ordered by tool name and action. */
  async list(em: EntityManager, orgId: string): Promise<RegisteredTool[]> {
    const tools = [...(await this.catalog(em)).values(), ...(await this.upstreamTools(em, orgId, {}))];
    return tools.sort((a, b) => compareKeys(a.definition, b.definition));
  }

  private async upstreamTools(em: EntityManager, orgId: string, where: { toolName?: string; action?: string }): Promise<RegisteredTool[]> {
    const definitions = await em.find(ToolDefinition, { orgId, removedAt: null, upstreamServerId: { $ne: null }, ...where });
    if (definitions.length === 0) return [];
    const enabled = await em.find(ToolPermission, { orgId, enabled: true, toolId: { $in: definitions.map((d) => d.id) } });
    const usable = new Set(enabled.map((p) => p.toolId));
    return definitions.filter((d) => usable.has(d.id)).map((definition) => ({ definition, validate: this.upstreamValidator(definition) }));
  }

  private upstreamValidator(definition: ToolDefinition): ValidateFunction {
    const schema = JSON.stringify(definition.inputSchema);
    const cached = this.upstreamValidators.get(definition.id);
    if (cached?.schema === schema) return cached.validate;
    if (this.upstreamValidators.size >= MAX_COMPILED_UPSTREAM) this.upstreamValidators.clear();
    // A fresh Ajv each time: schemas of one id change, and Ajv keeps every schema it compiled.
    // Linear-time patterns: the schema is the upstream's, the input the model's.
    const validate = untrustedSchemaAjv({ allErrors: true, useDefaults: false }).compile(definition.inputSchema);
    this.upstreamValidators.set(definition.id, { schema, validate });
    return validate;
  }

  private async catalog(em: EntityManager | (() => EntityManager)): Promise<Map<ToolKey, RegisteredTool>> {
    if (this.tools) return this.tools;
    // Concurrent first callers share one load.
    this.loading ??= this.load(typeof em === 'function' ? em() : em);
    return this.loading;
  }

  private async load(em: EntityManager): Promise<Map<ToolKey, RegisteredTool>> {
    try {
      const definitions = await em.find(ToolDefinition, { orgId: null }, { orderBy: { toolName: 'asc', action: 'asc' } });
      const tools = new Map(
        definitions.map((definition) => [
          toolKey(definition.toolName, definition.action),
          { definition, validate: this.ajv.compile(definition.inputSchema) },
        ]),
      );
      this.tools = tools;
      return tools;
    } finally {
      // A failed load (e.g. the database was unreachable) is tried again by the next caller.
      this.loading = null;
    }
  }
}

function compareKeys(a: ToolDefinition, b: ToolDefinition): number {
  const [x, y] = [toolKey(a.toolName, a.action), toolKey(b.toolName, b.action)];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** What the executor is asked to run for a call; its toolCallId is the vendor idempotency key's source. */
export function executionRequest(
  call: { id: string; orgId: string; runId: string; toolName: string; action: string },
  tool: RegisteredTool,
  params: Record<string, unknown>,
): ExecutionRequest {
  return {
    orgId: call.orgId,
    runId: call.runId,
    toolCallId: call.id,
    tool: { toolName: call.toolName, action: call.action, timeoutMs: tool.definition.timeoutMs },
    params,
  };
}

/** Where the input failed, without the offending values (they may be secrets). */
export function describeInputErrors(validate: ValidateFunction): { path: string; problem: string }[] {
  return (validate.errors ?? []).slice(0, 10).map((e) => ({ path: e.instancePath || '/', problem: e.message ?? e.keyword }));
}
