import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { initOrm, migrateUp, MIGRATIONS_DIR } from '../../src/db/orm';
import { ENTITIES } from '../../src/app/entities';
import { ensureCatalog } from '../../src/catalog/catalog.service';
import { TOOL_CATALOG } from '../../src/catalog/tool-catalog';
import { Logger as WorkerLogger, runMigrations } from 'graphile-worker';
import { version as GRAPHILE_WORKER_VERSION } from 'graphile-worker/package.json';
import type { Client } from 'pg';
import { withClient } from '../../src/db/throwaway-postgres';

/**
 * Each test file gets its own database, copied from a template that holds the migrated
 * schema and the catalog. The template's name carries a hash of the migrations, so a
 * changed migration builds a new template instead of reusing a stale one.
 */
export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

const LOCK_KEY = 7_340_021;

export function adminUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set (the jest global setup should have set it)');
  return url;
}

export function urlForDatabase(name: string): string {
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

function templateName(): string {
  // The template holds the migrated schema and the catalog: a change to either builds a new one.
  const hash = createHash('sha256').update(JSON.stringify(TOOL_CATALOG)).update(GRAPHILE_WORKER_VERSION);
  for (const file of fs.readdirSync(MIGRATIONS_DIR).sort()) {
    hash.update(file).update(fs.readFileSync(path.join(MIGRATIONS_DIR, file)));
  }
  return `toolgate_tpl_${hash.digest('hex').slice(0, 16)}`;
}

/** An empty database (no schema), for tests of migrations themselves. */
export async function createEmptyDatabase(): Promise<TestDatabase> {
  const name = `toolgate_test_${randomBytes(6).toString('hex')}`;
  await withClient(adminUrl(), (client) => client.query(`create database ${name}`));
  return { name, url: urlForDatabase(name), drop: () => dropDatabase(name) };
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const template = templateName();
  const name = `toolgate_test_${randomBytes(6).toString('hex')}`;
  await withClient(adminUrl(), async (client) => {
    await client.query('select pg_advisory_lock($1)', [LOCK_KEY]);
    try {
      const found = await client.query('select 1 from pg_database where datname = $1', [template]);
      if (found.rowCount === 0) await buildTemplate(client, template);
      await client.query(`create database ${name} template ${template}`);
    } finally {
      await client.query('select pg_advisory_unlock($1)', [LOCK_KEY]);
    }
  });
  return { name, url: urlForDatabase(name), drop: () => dropDatabase(name) };
}

async function buildTemplate(client: Client, template: string): Promise<void> {
  const building = `${template}_building`;
  await client.query(`drop database if exists ${building} with (force)`);
  await client.query(`create database ${building}`);
  const orm = await initOrm({ entities: ENTITIES, clientUrl: urlForDatabase(building), poolMax: 2 });
  try {
    await migrateUp(orm);
    await ensureCatalog(orm.em.fork());
    // The job queue's schema too, so runs can enqueue steps even when no worker is started.
    await runMigrations({ connectionString: urlForDatabase(building), logger: new WorkerLogger(() => () => undefined) });
  } finally {
    await orm.close(true);
  }
  await client.query(`alter database ${building} rename to ${template}`);
  // Templates of older migration sets are of no further use.
  const stale = await client.query<{ datname: string }>(
    "select datname from pg_database where datname like 'toolgate\\_tpl\\_%' and datname <> $1 and datname not like '%\\_building'",
    [template],
  );
  for (const row of stale.rows) await client.query(`drop database if exists ${row.datname} with (force)`);
}

async function dropDatabase(name: string): Promise<void> {
  await withClient(adminUrl(), (client) => client.query(`drop database if exists ${name} with (force)`));
}
