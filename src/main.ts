import 'reflect-metadata';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from './config';
import type { Logger } from './logger';
import { initOrm, migrateUp } from './db/orm';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded-postgres';
import { resolveKeyring } from './credentials/master-key';
import type { MasterKeyring } from './credentials/keyring';
import { ensureCatalog } from './catalog/catalog.service';
import { buildToolgateSchema } from './graphql/schema';
import { startHttpServer, type ToolgateServer } from './server';
import { DEMO_ORG_SLUG, seedDemo, type SeedResult } from './seed/demo-seed';
import { Org } from './orgs/org.entity';
import os from 'node:os';
import { createAppServices, type AppServices } from './app-services';
import { startNodeLiveness, type NodeLiveness } from './recovery/node-liveness';
import { SandboxServer } from './vendors/sandbox/sandbox-server';
import { createVendorSandboxes } from './vendors';
import { startWorker } from './jobs/worker';
import { OfflineModelServer } from './llm/offline-model/offline-model.server';
import { needsOfflineModel } from './llm/model-client';
import { createEventBus, startRealtime, type Realtime } from './events/realtime';

/** A database connection plus what it took to get one (possibly an embedded cluster). */
export interface Runtime {
  orm: MikroORM;
  databaseUrl: string;
  keyring: MasterKeyring;
  embedded: EmbeddedDatabase | null;
  close(): Promise<void>;
}

/** Connects to DATABASE_URL, or starts the embedded PostgreSQL; migrates when asked. */
export async function openRuntime(config: Config, logger: Logger, options: { migrate: boolean }): Promise<Runtime> {
  const embedded = config.databaseUrl ? null : await startEmbeddedPostgres(config.dataDir, logger);
  const databaseUrl = config.databaseUrl ?? embedded!.url;
  const orm = await initOrm({ clientUrl: databaseUrl, poolMax: config.dbPoolMax });
  try {
    if (options.migrate) {
      const applied = await migrateUp(orm);
      if (applied.length > 0) logger.info({ applied }, 'migrations applied');
      await ensureCatalog(orm.em.fork());
    }
    const keyring = await resolveKeyring(config, logger);
    return {
      orm,
      databaseUrl,
      keyring,
      embedded,
      close: async () => {
        await orm.close(true);
        await embedded?.stop();
      },
    };
  } catch (error) {
    await orm.close(true);
    await embedded?.stop();
    throw error;
  }
}

export interface Toolgate {
  server: ToolgateServer;
  /** The vendor sandboxes, when they serve the vendors (embedded default). */
  sandboxes: SandboxServer | null;
  /** The offline model, when no ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL is configured. */
  offlineModel: OfflineModelServer | null;
  runtime: Runtime;
  /** Set when this start seeded the demo org. */
  seeded: SeedResult | null;
  services: AppServices;
  /** Drains within SHUTDOWN_TIMEOUT_MS; what is still running is handed to reconciliation. */
  shutdown(): Promise<ShutdownReport>;
}

export interface ShutdownReport {
  /** Tool calls still at the vendor when the budget ran out (settled by reconciliation). */
  handedOver: string[];
  /** False when the budget ran out before every request, job step and call finished. */
  drained: boolean;
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

/** The composition root: config → database → services → schema → server. */
export async function startToolgate(config: Config, logger: Logger): Promise<Toolgate> {
  const runtime = await openRuntime(config, logger, { migrate: true });
  let seeded: SeedResult | null = null;
  let sandboxes: SandboxServer | null = null;
  let worker: Awaited<ReturnType<typeof startWorker>> | null = null;
  let offlineModel: OfflineModelServer | null = null;
  let realtime: Realtime | null = null;
  let liveness: NodeLiveness | null = null;
  try {
    if (config.seedOnStart) {
      const em = runtime.orm.em.fork();
      const demo = await em.findOne(Org, { slug: DEMO_ORG_SLUG });
      if (!demo) seeded = await seedDemo(em, runtime.keyring);
    }
    let sandboxUrls: Record<string, string> | null = null;
    if (config.vendorSandboxUrl) {
      // Sandboxes in their own process (`toolgate sandboxes`): vendor state outlives this one.
      const base = config.vendorSandboxUrl;
      sandboxUrls = Object.fromEntries(createVendorSandboxes().map((s) => [s.vendor, `${base}/${s.vendor}`]));
      logger.info({ sandboxUrls }, 'vendor sandboxes of another process serving the vendors');
    } else if (config.vendorSandboxes) {
      const vendorSandboxes = createVendorSandboxes();
      sandboxes = new SandboxServer(vendorSandboxes);
      await sandboxes.start();
      const started = sandboxes;
      sandboxUrls = Object.fromEntries(vendorSandboxes.map((s) => [s.vendor, started.urlFor(s.vendor)]));
      logger.info({ sandboxUrls }, 'vendor sandboxes serving the vendors');
    }
    let offlineModelUrl: string | null = null;
    if (needsOfflineModel(config.model)) {
      offlineModel = new OfflineModelServer();
      offlineModelUrl = await offlineModel.start();
      logger.info({ url: offlineModelUrl }, 'offline model serving (set ANTHROPIC_API_KEY for Claude)');
    }
    const services = createAppServices({ config, logger, orm: runtime.orm, keyring: runtime.keyring }, { sandboxUrls, offlineModelUrl });
    realtime = await startRealtime(runtime.orm, await createEventBus(config, runtime.databaseUrl, logger), services.runEvents, logger);
    services.realtime = realtime;
    logger.info({ bus: realtime.bus.kind }, 'realtime event bus connected');
    // Registered before the worker takes a job (it records the worker's lock owner); the
    // first sweep recovers a previous incarnation's work at once.
    liveness = await startNodeLiveness({
      orm: runtime.orm,
      nodeId: services.nodeId,
      settings: config.node,
      defaultName: `${os.hostname()}:${config.port}`,
      vendorTimeoutMs: config.vendor.timeoutMs,
      inFlight: services.inFlight,
      reconciler: services.reconciler,
      logger,
      onFenced: () => {
        // Declared dead while alive: its jobs and calls belong to another node now.
        process.exit(70);
      },
    });
    worker = await startWorker({
      connectionString: runtime.databaseUrl,
      orm: runtime.orm,
      events: services.events,
      runtime: services.runtime,
      logger,
      concurrency: config.node.workerConcurrency,
      onLockOwner: (lockOwner) => liveness?.addLockOwner(lockOwner),
    });
    const server = await startHttpServer(services, await buildToolgateSchema(), { host: config.host, port: config.port });
    let stopping: Promise<ShutdownReport> | null = null;
    const runningWorker = worker;
    const runningSandboxes = sandboxes;
    const runningModel = offlineModel;
    const runningRealtime = realtime;
    const runningLiveness = liveness;
    const shutdown = () =>
      (stopping ??= (async (): Promise<ShutdownReport> => {
        // Two thirds of the budget for in-flight work to finish; then what still runs is
        // reconciled here (bounded by the last part); the rest of it records the stop and closes.
        const begun = Date.now();
        const budget = config.shutdownTimeoutMs;
        const waitUntil = begun + Math.round(budget * 0.6);
        const reconcileUntil = begun + Math.round(budget * 0.85);
        services.gateway.drain();
        const drained = await withDeadline(Promise.all([server.stop(), runningWorker.stop()]), waitUntil);
        const idle = await services.inFlight.idle(waitUntil - Date.now());
        const handedOver = idle ? [] : services.inFlight.list();
        for (const toolCallId of handedOver) {
          logger.warn({ toolCallId }, 'vendor call still in flight at the end of the shutdown budget: handed to reconciliation');
        }
        await Promise.all(
          handedOver.map((toolCallId) =>
            services.reconciler
              .reconcile(toolCallId, services.nodeId, 'shutdown', { deadline: reconcileUntil, inFlight: true })
              .catch((error: unknown) => logger.warn({ err: error, toolCallId }, 'could not settle the call at shutdown; a live node or the next start will')),
          ),
        );
        await runningLiveness.stop(drained && idle);
        if (!drained) logger.warn('job steps still running at the end of the shutdown budget: their jobs are released to live nodes');
        await withDeadline(runningRealtime.stop(), begun + budget);
        await runningSandboxes?.stop();
        await runningModel?.stop();
        await runtime.close();
        return { handedOver, drained: drained && idle };
      })());
    return { server, sandboxes, offlineModel, runtime, seeded, services, shutdown };
  } catch (error) {
    await worker?.stop();
    await liveness?.stop(true);
    await realtime?.stop();
    await sandboxes?.stop();
    await offlineModel?.stop();
    await runtime.close();
    throw error;
  }
}
