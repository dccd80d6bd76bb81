import Ajv, { type ValidateFunction } from 'ajv';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ToolDefinition } from '../catalog/tool-definition.entity';
import type { ExecutionRequest } from '../executor/executor.types';

export interface RegisteredTool {
  definition: ToolDefinition;
  validate: ValidateFunction;
}

/**
 * The catalog in memory with each input schema compiled once. The catalog is global
 * and written only at start-up (ensureCatalog), so it is loaded once per process.
 */
export class ToolRegistry {
  private tools: Map<string, RegisteredTool> | null = null;
  private loading: Promise<Map<string, RegisteredTool>> | null = null;
  private readonly ajv = new Ajv({ allErrors: true, strict: false, useDefaults: false });

  async find(em: EntityManager, toolName: string, action: string): Promise<RegisteredTool | undefined> {
    const tools = this.tools ?? (await (this.loading ??= this.load(em)));
    return tools.get(`${toolName}.${action}`);
  }

  private async load(em: EntityManager): Promise<Map<string, RegisteredTool>> {
    const definitions = await em.find(ToolDefinition, {});
    const tools = new Map(
      definitions.map((definition) => [
        `${definition.toolName}.${definition.action}`,
        { definition, validate: this.ajv.compile(definition.inputSchema) },
      ]),
    );
    this.tools = tools;
    return tools;
  }
}

/** What the executor is asked to run for a call; its toolCallId is the vendor idempotency key's source. */
export function executionRequest(
  call: { id: string; orgId: string; runId: string; toolName: string; action: string },
  tool: RegisteredTool,
  params: Record<string, unknown>,
): ExecutionRequest {
  const { vendor, idempotent, timeoutMs } = tool.definition;
  return {
    orgId: call.orgId,
    runId: call.runId,
    toolCallId: call.id,
    tool: { toolName: call.toolName, action: call.action, vendor, idempotent, timeoutMs },
    params,
  };
}

/** Where the input failed, without the offending values (they may be secrets). */
export function describeInputErrors(validate: ValidateFunction): { path: string; problem: string }[] {
  return (validate.errors ?? []).slice(0, 10).map((e) => ({ path: e.instancePath || '/', problem: e.message ?? e.keyword }));
}
