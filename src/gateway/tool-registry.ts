import Ajv, { type ValidateFunction } from 'ajv';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ToolDefinition } from '../catalog/tool-definition.entity';
import { toolKey, type ToolKey } from '../catalog/tool-key';
import type { ExecutionRequest } from '../executor/executor.types';

export interface RegisteredTool {
  definition: ToolDefinition;
  validate: ValidateFunction;
}

/**
 * The catalog in memory, each input schema compiled once: the one copy the gateway (input
 * validation, default risk, cost), the reconciler and the agent runtime (the model's tool
 * list) share. The catalog is global and written only at start-up (ensureCatalog, from the
 * vendor handlers' actions), so it is loaded once per process.
 */
export class ToolRegistry {
  private tools: Map<ToolKey, RegisteredTool> | null = null;
  private loading: Promise<Map<ToolKey, RegisteredTool>> | null = null;
  private readonly ajv = new Ajv({ allErrors: true, strict: false, useDefaults: false });

  /** `em` may be a function: its EntityManager is then made only for the one load per process. */
  async find(em: EntityManager | (() => EntityManager), toolName: string, action: string): Promise<RegisteredTool | undefined> {
    return (await this.catalog(em)).get(toolKey(toolName, action));
  }

  /** Every catalog tool, ordered by tool name and action. */
  async list(em: EntityManager): Promise<RegisteredTool[]> {
    return [...(await this.catalog(em)).values()];
  }

  private async catalog(em: EntityManager | (() => EntityManager)): Promise<Map<ToolKey, RegisteredTool>> {
    if (this.tools) return this.tools;
    // Concurrent first callers share one load.
    this.loading ??= this.load(typeof em === 'function' ? em() : em);
    return this.loading;
  }

  private async load(em: EntityManager): Promise<Map<ToolKey, RegisteredTool>> {
    try {
      const definitions = await em.find(ToolDefinition, {}, { orderBy: { toolName: 'asc', action: 'asc' } });
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
