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
import { createAppServices } from './app-services';
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
  shutdown(): Promise<void>;
}

/** The composition root: config → database → services → schema → server. */
export async function startToolgate(config: Config, logger: Logger): Promise<Toolgate> {
  const runtime = await openRuntime(config, logger, { migrate: true });
  let seeded: SeedResult | null = null;
  let sandboxes: SandboxServer | null = null;
  let worker: Awaited<ReturnType<typeof startWorker>> | null = null;
  let offlineModel: OfflineModelServer | null = null;
  let realtime: Realtime | null = null;
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
    worker = await startWorker({
      connectionString: runtime.databaseUrl,
      orm: runtime.orm,
      events: services.events,
      runtime: services.runtime,
      logger,
    });
    const server = await startHttpServer(services, await buildToolgateSchema(), { host: config.host, port: config.port });
    let stopping: Promise<void> | null = null;
    const runningWorker = worker;
    const runningSandboxes = sandboxes;
    const runningModel = offlineModel;
    const runningRealtime = realtime;
    const shutdown = () =>
      (stopping ??= (async () => {
        await server.stop();
        await runningWorker.stop();
        await runningRealtime.stop();
        await runningSandboxes?.stop();
        await runningModel?.stop();
        await runtime.close();
      })());
    return { server, sandboxes, offlineModel, runtime, seeded, shutdown };
  } catch (error) {
    await worker?.stop();
    await realtime?.stop();
    await sandboxes?.stop();
    await offlineModel?.stop();
    await runtime.close();
    throw error;
  }
}
