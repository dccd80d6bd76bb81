import 'reflect-metadata';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from './config';
import type { Logger } from './logger';
import { initOrm, migrateUp } from './db/orm';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded-postgres';
import { resolveMasterKey } from './credentials/master-key';
import { ensureCatalog } from './catalog/catalog.service';
import { buildToolgateSchema } from './graphql/schema';
import { startHttpServer, type ToolgateServer } from './server';
import { DEMO_ORG_SLUG, seedDemo, type SeedResult } from './seed/demo-seed';
import { Org } from './orgs/org.entity';
import type { AppServices } from './app-services';

/** A database connection plus what it took to get one (possibly an embedded cluster). */
export interface Runtime {
  orm: MikroORM;
  masterKey: Buffer;
  embedded: EmbeddedDatabase | null;
  close(): Promise<void>;
}

/** Connects to DATABASE_URL, or starts the embedded PostgreSQL; migrates when asked. */
export async function openRuntime(config: Config, logger: Logger, options: { migrate: boolean }): Promise<Runtime> {
  const embedded = config.databaseUrl ? null : await startEmbeddedPostgres(config.dataDir, logger);
  const orm = await initOrm({ clientUrl: config.databaseUrl ?? embedded!.url, poolMax: config.dbPoolMax });
  try {
    if (options.migrate) {
      const applied = await migrateUp(orm);
      if (applied.length > 0) logger.info({ applied }, 'migrations applied');
      await ensureCatalog(orm.em.fork());
    }
    const masterKey = await resolveMasterKey(config, logger);
    return {
      orm,
      masterKey,
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
  runtime: Runtime;
  /** Set when this start seeded the demo org. */
  seeded: SeedResult | null;
  shutdown(): Promise<void>;
}

/** The composition root: config → database → services → schema → server. */
export async function startToolgate(config: Config, logger: Logger): Promise<Toolgate> {
  const runtime = await openRuntime(config, logger, { migrate: true });
  let seeded: SeedResult | null = null;
  try {
    if (config.seedOnStart) {
      const em = runtime.orm.em.fork();
      const demo = await em.findOne(Org, { slug: DEMO_ORG_SLUG });
      if (!demo) seeded = await seedDemo(em, runtime.masterKey);
    }
    const services: AppServices = { config, logger, orm: runtime.orm, masterKey: runtime.masterKey };
    const server = await startHttpServer(services, await buildToolgateSchema(), { host: config.host, port: config.port });
    let stopping: Promise<void> | null = null;
    const shutdown = () =>
      (stopping ??= (async () => {
        await server.stop();
        await runtime.close();
      })());
    return { server, runtime, seeded, shutdown };
  } catch (error) {
    await runtime.close();
    throw error;
  }
}
