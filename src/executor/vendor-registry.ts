import type { VendorAction, VendorHandler } from '../vendors/vendor-handler';
import { toolKey, type ToolKey } from '../catalog/tool-key';
import type { ExecutionRequest } from './executor.types';

export interface RegisteredAction {
  handler: VendorHandler;
  action: VendorAction;
}

/** Handlers by vendor and actions by `tool.action`, as plain data; a duplicate fails at boot. */
export interface VendorRegistry {
  handlers: ReadonlyMap<string, VendorHandler>;
  find(key: ToolKey): RegisteredAction | undefined;
}

/**
 * Actions that are data, not code: an org's imported upstream MCP tools, whose handler
 * (URL, credential, idempotency) is read from the database for each call.
 */
export interface DynamicActions {
  find(request: ExecutionRequest): Promise<RegisteredAction | undefined>;
}

/** An endpoint variable is read by config.ts as a URL: it must look like one and belong to one endpoint. */
const ENDPOINT_VARIABLE = /^[A-Z][A-Z0-9_]*_URL$/;

export function createVendorRegistry(handlers: readonly VendorHandler[]): VendorRegistry {
  const byVendor = new Map<string, VendorHandler>();
  const byAction = new Map<ToolKey, RegisteredAction>();
  const variables = new Set<string>();
  for (const handler of handlers) {
    if (byVendor.has(handler.vendor)) throw new Error(`vendor handler ${handler.vendor} is registered twice`);
    byVendor.set(handler.vendor, handler);
    for (const endpoint of Object.values(handler.endpoints)) {
      if (!ENDPOINT_VARIABLE.test(endpoint.env) || variables.has(endpoint.env)) {
        throw new Error(`vendor ${handler.vendor}: endpoint variable ${endpoint.env} is not a unique NAME_URL`);
      }
      variables.add(endpoint.env);
    }
    for (const action of handler.actions) {
      const key = toolKey(action.toolName, action.action);
      if (byAction.has(key)) throw new Error(`tool action ${key} is registered twice`);
      byAction.set(key, { handler, action });
    }
  }
  return { handlers: byVendor, find: (key) => byAction.get(key) };
}
