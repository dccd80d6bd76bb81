import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from './config';
import type { Logger } from './logger';
import type { ToolExecutor } from './executor/executor.types';
import type { MasterKeyring } from './credentials/keyring';
import { ToolGateway } from './gateway/gateway.service';
import { GatewayEvents } from './gateway/gateway-events';
import { OrgConfigCache } from './gateway/org-config-cache';
import { ToolRegistry } from './gateway/tool-registry';
import { VendorExecutor } from './executor/vendor-executor';
import { createVendorRegistry } from './executor/vendor-registry';
import { VENDOR_HANDLERS } from './vendors';
import { RunEvents } from './runs/run-events';
import { AgentRuntime } from './runs/agent-runtime';
import { createModelClient } from './llm/model-client';
import type { Realtime } from './events/realtime';

/** The long-lived dependencies of a running server, passed explicitly (no container). */
export interface AppServices {
  config: Config;
  logger: Logger;
  orm: MikroORM;
  keyring: MasterKeyring;
  executor: ToolExecutor;
  gateway: ToolGateway;
  events: GatewayEvents;
  runEvents: RunEvents;
  runtime: AgentRuntime;
  /** Cross-node events for subscriptions; set by startRealtime once the bus is connected. */
  realtime: Realtime | null;
}

export interface ServiceOptions {
  /** Replace the vendor executor (tests and benchmarks at the process edge). */
  executor?: ToolExecutor;
  /** vendor → sandbox base URL when the in-process sandboxes serve the vendors. */
  sandboxUrls?: Record<string, string> | null;
  /** Base URL of the offline model, when it serves instead of Claude. */
  offlineModelUrl?: string | null;
}

export function createAppServices(
  base: { config: Config; logger: Logger; orm: MikroORM; keyring: MasterKeyring },
  options: ServiceOptions = {},
): AppServices {
  const { config, logger, orm, keyring } = base;
  const executor =
    options.executor ??
    new VendorExecutor({
      orm,
      keyring,
      registry: createVendorRegistry(VENDOR_HANDLERS),
      settings: config.vendor,
      urlOverrides: config.vendorUrls,
      sandboxUrls: options.sandboxUrls ?? null,
      logger,
    });
  const events = new GatewayEvents();
  const gateway = new ToolGateway({
    orm,
    executor,
    keyring,
    settings: { toolCallingKillSwitch: config.toolCallingKillSwitch, approvalTtlMs: config.approvalTtlMs },
    orgConfig: new OrgConfigCache(),
    tools: new ToolRegistry(),
    events,
    logger,
  });
  const runEvents = new RunEvents();
  const runtime = new AgentRuntime({
    orm,
    gateway,
    client: createModelClient(config.model, options.offlineModelUrl ?? null),
    settings: config.model,
    events: runEvents,
    logger: logger.child({ component: 'runtime' }),
  });
  return { ...base, executor, gateway, events, runEvents, runtime, realtime: null };
}
