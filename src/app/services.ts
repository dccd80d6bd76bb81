import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config';
import { systemClock, type Clock } from '../support/clock';
import type { Logger } from '../support/logger';
import type { ToolExecutor } from '../executor/executor.types';
import type { MasterKeyring } from '../credentials/keyring';
import { ToolGateway } from '../gateway/gateway.service';
import { OrgConfigCache } from '../gateway/org-config-cache';
import { ToolRegistry } from '../gateway/tool-registry';
import { VendorExecutor } from '../executor/vendor-executor';
import { createVendorRegistry } from '../executor/vendor-registry';
import { VENDORS, handlersOf, type VendorRegistration } from '../vendors';
import { upstreamMcpActions } from '../upstream/mcp-upstream';
import type { RunEvents } from '../runs/run-events';
import { AgentRuntime } from '../runtime/agent-runtime';
import { LocalSteps } from '../runtime/local-steps';
import { HeldJobs } from '../jobs/held-jobs';
import { createModelClient } from '../llm/model-client';
import type { Realtime } from '../realtime/realtime';
import { InFlightCalls } from '../recovery/in-flight';
import { Failpoints } from '../recovery/failpoints';
import { Reconciler } from '../recovery/reconciler';
import { KeyAccess } from '../auth/key-access';
import { Identity } from '../identity/identity';
import { WebhookDeliverer } from '../webhooks/webhook-deliverer';
import type { ToolgateMetrics } from '../telemetry/metrics';
import { Egress, type EgressResolver } from '../egress/egress';

/** The long-lived dependencies of a running server, passed explicitly (no container). */
export interface AppServices {
  config: Config;
  logger: Logger;
  orm: MikroORM;
  keyring: MasterKeyring;
  executor: ToolExecutor;
  gateway: ToolGateway;
  /** The catalog in memory (input schemas compiled once), shared by the gateway, runtime and MCP. */
  tools: ToolRegistry;
  /** An org's flags and policy rules in memory: the gateway's, and approval edits' re-evaluation. */
  orgConfig: OrgConfigCache;
  runEvents: RunEvents;
  runtime: AgentRuntime;
  /** Run steps this node starts itself when its request committed them (attached to the worker's lock owner). */
  localSteps: LocalSteps;
  /** The jobs this process runs or is still completing, worker and in-process steps alike (node liveness reaps any other lock of its own). */
  heldJobs: HeldJobs;
  /** This process's id in toolgate_nodes: it owns the tool calls it runs until they settle. */
  nodeId: string;
  /** Tool calls this node is executing now (shutdown waits for them; the rest of its `running` calls are abandoned). */
  inFlight: InFlightCalls;
  failpoints: Failpoints;
  /** Settles calls interrupted by a dead node, a shutdown or a lost outcome write (src/recovery). */
  reconciler: Reconciler;
  /** Cross-node events for subscriptions. */
  realtime: Realtime;
  /** API-key checks (expiry, suspension), `lastUsedAt`, and revocations reaching open websockets. */
  keys: KeyAccess;
  /** People: the OpenID Connect issuers, console sessions, OAuth access tokens (src/identity/). */
  identity: Identity;
  /** Sends approval and run webhooks (the worker's `webhook_deliver` jobs). */
  webhooks: WebhookDeliverer;
  /** The egress policy of tenant URLs: checked at registration, pinned on every connection (src/egress/). */
  egress: Egress;
  /** This app's Prometheus registry and the families its code reports to. */
  metrics: ToolgateMetrics;
}

export interface ServiceOptions {
  /** Replace the vendor executor (tests and benchmarks at the process edge). */
  executor?: ToolExecutor;
  /** vendor → sandbox base URL when the in-process sandboxes serve the vendors. */
  sandboxUrls?: Record<string, string> | null;
  /** Base URL of the offline model, when it serves instead of Claude. */
  offlineModelUrl?: string | null;
  nodeId: string;
  /** Time for token caches and the breaker (default: the system clock; tests move a manual one). */
  clock?: Clock;
  /** Time for API-key expiry and the `lastUsedAt` flush (default: the system clock). */
  accessClock?: Clock;
  /** Time for the model stream's idle timeout and the wait before a turn is retried (default: the system clock). */
  modelClock?: Clock;
  /** The vendors (default: VENDORS of src/vendors/index.ts; a test may add its own). */
  vendors?: readonly VendorRegistration[];
  /** How tenant hosts resolve (default: the system's; a test makes a name resolve to loopback). */
  resolver?: EgressResolver;
  /** In-process run signals (tokens, status), shared with the realtime relay. */
  runEvents: RunEvents;
  realtime: Realtime;
  metrics: ToolgateMetrics;
}

export function createAppServices(
  base: { config: Config; logger: Logger; orm: MikroORM; keyring: MasterKeyring },
  options: ServiceOptions,
): AppServices {
  const { config, logger, orm, keyring } = base;
  const egress = new Egress(config.egress.allowCidrs, options.resolver);
  const executor =
    options.executor ??
    new VendorExecutor({
      orm,
      keyring,
      registry: createVendorRegistry(handlersOf(options.vendors ?? VENDORS)),
      dynamic: upstreamMcpActions(orm, egress, config.upstream),
      clock: options.clock,
      settings: config.vendor,
      urlOverrides: config.vendorUrls,
      sandboxUrls: options.sandboxUrls ?? null,
      logger,
      metrics: options.metrics,
    });
  const { nodeId, runEvents, realtime, metrics } = options;
  const inFlight = new InFlightCalls();
  const failpoints = new Failpoints(config);
  const tools = new ToolRegistry();
  const orgConfig = new OrgConfigCache();
  const gateway = new ToolGateway({
    nodeId,
    inFlight,
    failpoints,
    orm,
    executor,
    keyring,
    settings: { toolCallingKillSwitch: config.toolCallingKillSwitch, approvalTtlMs: config.approvalTtlMs },
    orgConfig,
    tools,
    logger,
    clock: options.clock ?? systemClock,
    metrics,
  });
  const runtime = new AgentRuntime({
    orm,
    gateway,
    client: createModelClient(config.model, options.offlineModelUrl ?? null),
    settings: config.model,
    events: runEvents,
    logger: logger.child({ component: 'runtime' }),
    failpoints,
    tools,
    metrics,
    clock: options.modelClock ?? systemClock,
    toolConcurrency: { perRun: config.node.runToolConcurrency, perNode: config.node.nodeToolConcurrency },
  });
  const heldJobs = new HeldJobs();
  const localSteps = new LocalSteps({
    orm,
    runtime,
    logger: logger.child({ component: 'local-steps' }),
    limit: config.node.localStepConcurrency,
    heldJobs,
  });
  const reconciler = new Reconciler({ orm, executor, keyring, tools, nodeId, inFlight, logger: logger.child({ component: 'reconciler' }), metrics });
  const keys = new KeyAccess(orm, options.accessClock ?? systemClock, realtime.bus, logger.child({ component: 'keys' }));
  const identity = new Identity(config.identity, config.nodeEnv === 'production', orm, keys);
  const webhooks = new WebhookDeliverer({
    orm,
    keyring,
    settings: config.webhooks,
    logger: logger.child({ component: 'webhooks' }),
    clock: options.clock ?? systemClock,
    fetch: egress.fetch,
  });
  return {
    ...base,
    executor,
    gateway,
    tools,
    orgConfig,
    runEvents,
    runtime,
    localSteps,
    heldJobs,
    nodeId,
    inFlight,
    failpoints,
    reconciler,
    realtime,
    keys,
    identity,
    webhooks,
    egress,
    metrics,
  };
}
