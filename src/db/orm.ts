import { MikroORM, defineConfig, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import path from 'node:path';
import { Client } from 'pg';
import { projectRoot } from '../support/paths';
import { MIGRATIONS } from '../../migrations';

export interface OrmOptions {
  clientUrl: string;
  /** The entities to register: the app's list (src/app/entities.ts); the db layer names no feature. */
  entities: NonNullable<Options['entities']>;
  poolMax?: number;
  /** Receives every SQL statement; used by tests to count queries. */
  onQuery?: (sql: string) => void;
}

/** Where `migration:create` writes new files: the project's migrations/ folder. */
export const MIGRATIONS_DIR = path.join(projectRoot(), 'migrations');

export function ormOptions(options: OrmOptions): Options {
  return defineConfig({
    clientUrl: options.clientUrl,
    entities: options.entities,
    extensions: [Migrator],
    pool: { min: 0, max: options.poolMax ?? 10 },
    forceUtcTimezone: true,
    // A request must work on its own fork (see graphql context); the global EM is refused.
    allowGlobalContext: false,
    discovery: { warnWhenNoEntities: true },
    schemaGenerator: { ignoreSchema: ['graphile_worker', 'rate_limits'] },
    migrations: {
      tableName: 'mikro_orm_migrations',
      path: MIGRATIONS_DIR,
      pathTs: MIGRATIONS_DIR,
      migrationsList: MIGRATIONS,
      emit: 'ts',
      snapshot: false,
      transactional: true,
      allOrNothing: true,
    },
    debug: options.onQuery ? ['query'] : false,
    logger: options.onQuery ? (message: string) => options.onQuery?.(message) : () => undefined,
    colors: false,
  });
}

export async function initOrm(options: OrmOptions): Promise<MikroORM> {
  return MikroORM.init(ormOptions(options));
}

/** The session-level advisory lock every migrating process takes first (any 64-bit key of our own). */
const MIGRATION_LOCK = '7340019001';

/**
 * Applies pending migrations while holding a PostgreSQL advisory lock on a connection of its
 * own, so replicas starting together migrate one at a time: the second waits, then finds
 * nothing pending. A process that dies releases the lock with its connection.
 */
export async function migrateUp(orm: MikroORM): Promise<string[]> {
  const lock = new Client({ connectionString: orm.config.get('clientUrl') });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const applied = await orm.getMigrator().up();
    return applied.map((m) => m.name);
  } finally {
    await lock.end();
  }
}

export async function pendingMigrations(orm: MikroORM): Promise<string[]> {
  const pending = await orm.getMigrator().getPendingMigrations();
  return pending.map((m) => m.name);
}
