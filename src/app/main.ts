import 'reflect-metadata';
import type { MikroORM } from '@mikro-orm/postgresql';
import { type Config, ConfigError } from '../config';
import type { Logger } from '../support/logger';
import { initOrm, migrateUp, pendingMigrations } from '../db/orm';
import { ENTITIES } from './entities';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../db/embedded-postgres';
import { resolveKeyring } from '../credentials/master-key';
import type { MasterKeyring } from '../credentials/keyring';
import { ensureCatalog } from '../catalog/catalog.service';
import { findDemo, seedDemo, type DemoIds, type SeedResult } from '../seed/demo-seed';
import { composeToolgate, type ComposedToolgate, type ShutdownReport } from './compose';
import { needsOfflineModel } from '../llm/model-client';
import { assertKeyringOpensCredentials } from '../credentials/credential-check';

/** A database connection plus what it took to get one (possibly an embedded cluster). */
export interface Runtime {
  orm: MikroORM;
  databaseUrl: string;
  keyring: MasterKeyring;
  embedded: EmbeddedDatabase | null;
  close(): Promise<void>;
}

/** Connects to DATABASE_URL, or starts the embedded PostgreSQL; migrates when asked. */
/**
 * `catalog`: the caller serves (start): the catalog is ensured, and without `migrate` a
 * database with pending migrations is refused (a release runs `toolgate migrate` first).
 */
export async function openRuntime(config: Config, logger: Logger, options: { migrate: boolean; catalog?: boolean }): Promise<Runtime> {
  const embedded = config.databaseUrl ? null : await startEmbeddedPostgres(config.dataDir, logger);
  const databaseUrl = config.databaseUrl ?? embedded!.url;
  const orm = await initOrm({ entities: ENTITIES, clientUrl: databaseUrl, poolMax: config.dbPoolMax });
  try {
    if (options.migrate) {
      const applied = await migrateUp(orm);
      if (applied.length > 0) logger.info({ applied }, 'migrations applied');
    } else if (options.catalog) {
      const pending = await pendingMigrations(orm);
      if (pending.length > 0) {
        throw new ConfigError(
          `the database has ${pending.length} pending migration(s) and TOOLGATE_MIGRATE_ON_START is false: run \`toolgate migrate\` first`,
        );
      }
    }
    if (options.migrate || options.catalog) await ensureCatalog(orm.em.fork());
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

export interface Toolgate extends ComposedToolgate {
  runtime: Runtime;
  /** Set when this start seeded the demo org. */
  seeded: SeedResult | null;
  /** The demo org and specialist, seeded now or before; null when there is none. */
  demo: DemoIds | null;
  /** Drains within SHUTDOWN_TIMEOUT_MS (what still runs is reconciled), then closes the database. */
  shutdown(): Promise<ShutdownReport>;
}

/** `toolgate start`: config → database (migrated, seeded on a first embedded start) → composeToolgate. */
export async function startToolgate(config: Config, logger: Logger): Promise<Toolgate> {
  if (needsOfflineModel(config.model) && !config.model.offlineAllowed) {
    // A production deployment must not answer its agents with the development double unawares.
    throw new ConfigError(
      'no model is configured: set ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL for an Anthropic-compatible server), or TOOLGATE_OFFLINE_MODEL=true to serve the offline development model',
    );
  }
  const runtime = await openRuntime(config, logger, { migrate: config.migrateOnStart, catalog: true });
  try {
    await assertKeyringOpensCredentials(runtime.orm.em.fork(), runtime.keyring);
    let seeded: SeedResult | null = null;
    let demo = await findDemo(runtime.orm.em.fork());
    if (config.seedOnStart && !demo) {
      seeded = await seedDemo(runtime.orm.em.fork(), runtime.keyring);
      demo = { orgId: seeded.orgId, specialistId: seeded.specialistId };
    }
    const composed = await composeToolgate({ config, logger, orm: runtime.orm, keyring: runtime.keyring, databaseUrl: runtime.databaseUrl });
    let stopping: Promise<ShutdownReport> | null = null;
    return {
      ...composed,
      runtime,
      seeded,
      demo,
      shutdown: () =>
        (stopping ??= (async () => {
          const report = await composed.stop();
          await runtime.close();
          return report;
        })()),
    };
  } catch (error) {
    await runtime.close();
    throw error;
  }
}
