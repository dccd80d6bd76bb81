import type { VendorAction, VendorHandler } from '../vendors/vendor-handler';

export interface RegisteredAction {
  handler: VendorHandler;
  action: VendorAction;
}

/** Handlers by vendor and actions by `tool.action`, as plain data; a duplicate fails at boot. */
export interface VendorRegistry {
  handlers: ReadonlyMap<string, VendorHandler>;
  find(toolName: string, action: string): RegisteredAction | undefined;
}

export function createVendorRegistry(handlers: readonly VendorHandler[]): VendorRegistry {
  const byVendor = new Map<string, VendorHandler>();
  const byAction = new Map<string, RegisteredAction>();
  for (const handler of handlers) {
    if (byVendor.has(handler.vendor)) throw new Error(`vendor handler ${handler.vendor} is registered twice`);
    byVendor.set(handler.vendor, handler);
    for (const action of handler.actions) {
      const key = `${action.toolName}.${action.action}`;
      if (byAction.has(key)) throw new Error(`tool action ${key} is registered twice`);
      byAction.set(key, { handler, action });
    }
  }
  return { handlers: byVendor, find: (toolName, action) => byAction.get(`${toolName}.${action}`) };
}
