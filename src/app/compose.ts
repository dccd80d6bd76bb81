import os from 'node:os';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { GraphQLSchema } from 'graphql';
import type { Config } from '../config';
import { systemClock, type Clock } from '../support/clock';
import type { Logger } from '../support/logger';
import type { MasterKeyring } from '../credentials/keyring';
import type { ToolExecutor } from '../executor/executor.types';
import type { EventBus } from '../realtime/event-bus';
import { createEventBus, startRealtime, type Realtime } from '../realtime/realtime';
import { createAppServices, type AppServices } from './services';
import { buildToolgateSchema } from '../api/schema';
import type { PersistedDocuments } from '../api/persisted-documents';
import { startHttpServer, type ToolgateServer } from './server';
import { SubscriptionFanout } from '../realtime/subscription-fanout';
import { installWorkerSchema, startWorker, type Worker } from '../jobs/worker';
import { startNodeLiveness, type NodeLiveness } from '../recovery/node-liveness';
import { newId } from '../db/columns';
import { RunEvents } from '../runs/run-events';
import { SandboxServer } from '../vendors/sandbox/sandbox-server';
import { VENDORS, createSandboxes, type VendorRegistration } from '../vendors';
import { OfflineModelServer } from '../llm/dev-double/offline-model.server';
import { needsOfflineModel } from '../llm/model-client';
import { ToolgateMetrics } from '../telemetry/metrics';
import { addDatabaseMetrics } from '../telemetry/metrics-database';
import { startMetricsServer } from '../telemetry/metrics-endpoint';
import type { EgressResolver } from '../egress/egress';

/** What the process edge may replace; each default is what `toolgate start` runs. */
export interface ComposeOverrides {
  /** The vendor executor (default: the real one, sending to the vendors or sandboxes). */
  executor?: ToolExecutor;
  /** The realtime bus (default: from the configuration). */
  bus?: EventBus;
  /** Serve the vendor sandboxes in-process (default: TOOLGATE_VENDOR_SANDBOXES, unless VENDOR_SANDBOX_URL). */
  sandboxes?: boolean;
  /** Serve the offline model in-process (default: when neither ANTHROPIC_API_KEY nor ANTHROPIC_BASE_URL is set). */
  offlineModel?: boolean;
  /** An offline model served elsewhere (the bench's): the runtime streams from it. */
  offlineModelUrl?: string;
  /** Run the job worker (default true). */
  worker?: boolean;
  /** Register as a node: heartbeat, reap dead nodes, reconcile (default true). */
  liveness?: boolean;
  /** Time for token caches and the breaker (default: the system clock). */
  clock?: Clock;
  /** Time for API-key expiry and the `lastUsedAt` flush (default: the system clock). */
  accessClock?: Clock;
  /** Time for the model stream's idle timeout and turn retries (default: the system clock). */
  modelClock?: Clock;
  /** Time for the presence heartbeat and the expiry of other nodes' viewers (default: the system clock). */
  presenceClock?: Clock;
  /** The vendors (default: VENDORS): handlers, their catalog entries and sandboxes. */
  vendors?: readonly VendorRegistration[];
  /** How tenant URLs' hosts resolve for the egress policy (default: the system resolver). */
  resolver?: EgressResolver;
  /** Default: TOOLGATE_NODE_NAME, else host:port. */
  nodeName?: string;
  /** Told when another node declared this one dead (default: exit 70). */
  onFenced?: () => void;
  persistedDocuments?: PersistedDocuments;
}

export interface ComposedToolgate {
  services: AppServices;
  schema: GraphQLSchema;
  server: ToolgateServer;
  /** The app's subscription groups, shared results and their counts. */
  fanout: SubscriptionFanout;
  sandboxes: SandboxServer | null;
  offlineModel: OfflineModelServer | null;
  liveness: NodeLiveness | null;
  /** Where `/metrics` is served: METRICS_PORT's listener, else the API port (README, "Metrics"). */
  metricsUrl: string;
  /** Stops everything in one order within SHUTDOWN_TIMEOUT_MS; does not close the ORM. */
  stop(): Promise<ShutdownReport>;
}

export interface ShutdownReport {
  /** Tool calls still at the vendor when the budget ran out (reconciled). */
  handedOver: string[];
  /** False when the budget ran out before every request, job step and call finished. */
  drained: boolean;
}

/**
 * The one composition root: process-edge servers (sandboxes, offline model) → realtime →
 * services → node liveness → job worker → HTTP, and `stop()` in the reverse order. Used by
 * `toolgate start`, the tests and the bench alike; the ORM is the caller's (it may be an
 * embedded cluster, or a test's counting one).
 */
export async function composeToolgate(
  base: { config: Config; logger: Logger; orm: MikroORM; keyring: MasterKeyring; databaseUrl: string },
  overrides: ComposeOverrides = {},
): Promise<ComposedToolgate> {
  const { config, logger, orm } = base;
  const started: { stop(): Promise<unknown> }[] = [];
  const undo = async () => {
    for (const part of started.reverse()) await part.stop().catch(() => undefined);
  };
  try {
    const vendors = overrides.vendors ?? VENDORS;
    const sandboxes = await startSandboxes(config, logger, overrides.sandboxes, vendors, overrides.clock);
    if (sandboxes.server) started.push(sandboxes.server);
    const inProcessModel = overrides.offlineModelUrl === undefined && (overrides.offlineModel ?? needsOfflineModel(config.model));
    const offlineModel = inProcessModel ? new OfflineModelServer() : null;
    const offlineModelUrl = offlineModel ? await offlineModel.start() : (overrides.offlineModelUrl ?? null);
    if (offlineModel) {
      started.push(offlineModel);
      logger.info({ url: offlineModelUrl }, 'offline model serving (set ANTHROPIC_API_KEY for Claude)');
    }

    // One registry per app: tests compose several apps in one process.
    const metrics = new ToolgateMetrics();
    addDatabaseMetrics(metrics, orm, logger.child({ component: 'metrics' }));
    const runEvents = new RunEvents();
    const realtime: Realtime = await startRealtime(
      orm,
      overrides.bus ?? (await createEventBus(config, base.databaseUrl, logger)),
      runEvents,
      logger,
      metrics,
      { clock: overrides.presenceClock ?? systemClock, heartbeatMs: config.presenceHeartbeatMs },
    );
    started.push(realtime);
    logger.info({ bus: realtime.bus.kind }, 'realtime event bus connected');
    // Its subscription groups and shared results too.
    const fanout = new SubscriptionFanout();

    const nodeId = newId();
    const services = createAppServices(base, {
      executor: overrides.executor,
      clock: overrides.clock,
      accessClock: overrides.accessClock,
      modelClock: overrides.modelClock,
      vendors,
      resolver: overrides.resolver,
      sandboxUrls: sandboxes.urls,
      offlineModelUrl,
      nodeId,
      runEvents,
      realtime,
      metrics,
    });
    await services.keys.start();
    started.push(services.keys);
    services.identity.start();
    // Registered before the worker takes a job (it records the worker's lock owner); the
    // first sweep recovers a previous incarnation's work at once.
    if (overrides.liveness !== false && overrides.worker !== false) await installWorkerSchema(base.databaseUrl);
    const liveness =
      overrides.liveness === false
        ? null
        : await startNodeLiveness({
            orm,
            nodeId,
            settings: config.node,
            defaultName: overrides.nodeName ?? `${os.hostname()}:${config.port}`,
            vendorTimeoutMs: config.vendor.timeoutMs,
            inFlight: services.inFlight,
            reconciler: services.reconciler,
            heldJobs: services.heldJobs,
            logger,
            onFenced: overrides.onFenced ?? stopFenced,
          });
    if (liveness) started.push({ stop: () => liveness.stop(true) });
    const worker: Worker | null =
      overrides.worker === false
        ? null
        : await startWorker({
            connectionString: base.databaseUrl,
            orm,
            runtime: services.runtime,
            webhooks: services.webhooks,
            logger,
            concurrency: config.node.workerConcurrency,
            webhookConcurrency: config.webhooks.concurrency,
            metrics,
            heldJobs: services.heldJobs,
            // A pool that ended on its own (an outcome it could not write) is replaced; its leftover locks are released.
            onLockOwnerRetired: (lockOwner) => liveness?.retireLockOwner(lockOwner),
            onLockOwner: (lockOwner) => {
              liveness?.addLockOwner(lockOwner);
              // Steps started here lock their jobs as this worker would: released with its locks if this node dies.
              services.localSteps.attach(lockOwner);
            },
            onWebhookLockOwner: (lockOwner) => liveness?.addLockOwner(lockOwner),
          });
    if (worker) started.push(worker);
    const schema = await buildToolgateSchema();
    const server = await startHttpServer(
      services,
      schema,
      { host: config.host, port: config.port },
      {
        persistedDocuments: overrides.persistedDocuments,
        fanout,
      },
    );
    // Last, and stopped last: the final scrape of a draining node still answers.
    const metricsServer =
      config.metrics.port === undefined ? null : await startMetricsServer(metrics, { ...config.metrics, port: config.metrics.port }, logger);
    if (metricsServer) started.push(metricsServer);
    const metricsUrl = metricsServer?.url ?? server.url.replace(/\/graphql$/, '/metrics');
    // On the API port /metrics always needs METRICS_TOKEN (unset: 401 to everyone); on a port of its own only when one is set.
    const metricsProtected = metricsServer === null || config.metrics.token !== undefined;
    const openTo = config.metrics.token !== undefined ? 'METRICS_TOKEN' : metricsProtected ? 'nobody (METRICS_TOKEN unset)' : 'anyone who reaches it';
    logger.info({ url: metricsUrl, protected: metricsProtected, openTo }, 'Prometheus metrics served');

    let stopping: Promise<ShutdownReport> | null = null;
    return {
      services,
      schema,
      server,
      fanout,
      sandboxes: sandboxes.server,
      offlineModel,
      liveness,
      metricsUrl,
      stop: () =>
        (stopping ??= shutdown({
          config,
          logger,
          services,
          server,
          worker,
          liveness,
          realtime,
          edges: [sandboxes.server, offlineModel, metricsServer],
        })),
    };
  } catch (error) {
    await undo();
    throw error;
  }
}

/**
 * A node declared dead while it still ran (it missed heartbeats): its jobs and calls now
 * belong to another node, so it stops at once — no drain, no outcome writes — rather than
 * compete for them. Exit 70 (EX_SOFTWARE) tells the supervisor to restart it as a new node.
 */
const FENCED_EXIT_CODE = 70;
function stopFenced(): never {
  process.exit(FENCED_EXIT_CODE);
}

/** Where vendor calls go: sandboxes of another process, in-process ones, or the real vendors. */
async function startSandboxes(
  config: Config,
  logger: Logger,
  inProcess: boolean | undefined,
  registrations: readonly VendorRegistration[],
  clock: Clock | undefined,
): Promise<{ server: SandboxServer | null; urls: Record<string, string> | null }> {
  const vendors = createSandboxes(registrations);
  if (config.vendorSandboxUrl && inProcess === undefined) {
    // Sandboxes in their own process (`toolgate sandboxes`): vendor state outlives this one.
    const base = config.vendorSandboxUrl;
    const urls = Object.fromEntries(vendors.map((s) => [s.vendor, `${base}/${s.vendor}`]));
    logger.info({ sandboxUrls: urls }, 'vendor sandboxes of another process serving the vendors');
    return { server: null, urls };
  }
  if (!(inProcess ?? config.vendorSandboxes)) return { server: null, urls: null };
  const server = new SandboxServer(vendors, { clock });
  await server.start();
  const urls = Object.fromEntries(vendors.map((s) => [s.vendor, server.urlFor(s.vendor)]));
  logger.info({ sandboxUrls: urls }, 'vendor sandboxes serving the vendors');
  return { server, urls };
}

/**
 * Shutdown within SHUTDOWN_TIMEOUT_MS: new calls are refused at once; 60 % of the budget
 * for in-flight requests, job steps and vendor calls; what still runs is reconciled here
 * in the next 25 %; then the node records how it ended and the rest closes.
 */
async function shutdown(parts: {
  config: Config;
  logger: Logger;
  services: AppServices;
  server: ToolgateServer;
  worker: Worker | null;
  liveness: NodeLiveness | null;
  realtime: Realtime;
  edges: ({ stop(): Promise<void> } | null)[];
}): Promise<ShutdownReport> {
  const { config, logger, services } = parts;
  const begun = Date.now();
  const budget = config.shutdownTimeoutMs;
  const waitUntil = begun + Math.round(budget * 0.6);
  const reconcileUntil = begun + Math.round(budget * 0.85);
  services.gateway.drain();
  // The listener stays open until the end, answering new requests 503 (src/api/http/drain.ts).
  const drained = await withDeadline(Promise.all([parts.server.drain(), parts.worker?.stop(), services.localSteps.stop()]), waitUntil);
  const idle = await services.inFlight.idle(waitUntil - Date.now());
  const handedOver = idle ? [] : services.inFlight.list();
  for (const toolCallId of handedOver) {
    logger.warn({ toolCallId }, 'vendor call still in flight at the end of the shutdown budget: handed to reconciliation');
  }
  await Promise.all(
    handedOver.map((toolCallId) =>
      services.reconciler
        .reconcile(toolCallId, services.nodeId, 'shutdown', { deadline: reconcileUntil, inFlight: true })
        .catch((error: unknown) =>
          logger.warn({ err: error, toolCallId }, 'could not settle the call at shutdown; a live node or the next start will'),
        ),
    ),
  );
  // No request is left to note a key's use: the last notes are written.
  services.identity.stop();
  await services.keys.stop().catch((error: unknown) => logger.warn({ err: error }, 'could not write the last API key uses'));
  await parts.liveness?.stop(drained && idle);
  if (!drained) logger.warn('run steps still running at the end of the shutdown budget: their jobs are released to live nodes');
  await withDeadline(parts.realtime.stop(), begun + budget);
  for (const edge of parts.edges) await edge?.stop();
  // Nothing sends to tenant URLs any more: their pooled connections are closed.
  await services.egress.close();
  // Last: requests still running are answered (503 with their calls, each settled or handed over by now), then the listener closes.
  await parts.server.stop();
  return { handedOver, drained: drained && idle };
}

/** Whether `work` finished before the deadline (it keeps running either way). */
async function withDeadline(work: Promise<unknown>, deadline: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([work.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}
