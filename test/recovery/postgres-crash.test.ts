import { startPrivatePostgres, type PrivatePostgres } from '../../chaos/lib/private-postgres';
import { withClient } from '../../src/db/throwaway-postgres';
import { childEnv, freePort, killChildren, spawnCli, waitFor, type Running } from '../support/processes';

/**
 * A real PostgreSQL crash under a real node: a private server (not the suite's) that the
 * test stops with `pg_ctl stop -m immediate` while run steps execute on graphile-worker
 * (LOCAL_STEP_CONCURRENCY=0), and starts again 8 s later. The node process stays up
 * throughout: /readyz and every request answer 503 SERVICE_UNAVAILABLE with Retry-After
 * while the database is gone, 200 once it is back, and every run ends within 60 s of the
 * restart, with each order looked up once per call.
 */
const MASTER_KEY_HEX = 'e7'.repeat(32);
const OUTAGE_MS = 8000;
let pg: PrivatePostgres;
let dbUrl: string;
let sandboxes: Running;
let sandboxUrl: string;

beforeAll(async () => {
  pg = await startPrivatePostgres();
  await withClient(pg.adminUrl, (client) => client.query('create database toolgate'));
  dbUrl = pg.adminUrl.replace(/\/postgres$/, '/toolgate');
  const port = await freePort();
  sandboxes = spawnCli(['sandboxes', '--port', String(port)], childEnv({}));
  sandboxUrl = `http://127.0.0.1:${port}`;
  await waitFor('the sandboxes', async () => (sandboxes.stdout().includes('serving') ? true : undefined), 10_000, sandboxes);
}, 60_000);
afterAll(async () => {
  await killChildren();
  await pg?.close();
});

const env = (port: number) =>
  childEnv({
    DATABASE_URL: dbUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    MASTER_ENCRYPTION_KEY: MASTER_KEY_HEX,
    VENDOR_SANDBOX_URL: sandboxUrl,
    TOOLGATE_VENDOR_SANDBOXES: 'false',
    TOOLGATE_OFFLINE_MODEL: 'true',
    TOOLGATE_SEED_ON_START: 'false',
    TOOLGATE_NODE_NAME: 'crash-node',
    EVENT_BUS: 'postgres',
    LOCAL_STEP_CONCURRENCY: '0',
    WORKER_CONCURRENCY: '4',
    NODE_HEARTBEAT_MS: '250',
    NODE_DEAD_AFTER_MS: '1500',
  });

async function gql(port: number, key: string, query: string, variables: Record<string, unknown> = {}) {
  const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(10_000),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as { data?: any; errors?: { extensions?: { code?: string } }[] },
  };
}

const readyz = async (port: number) => (await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(5000) })).status;

const alive = (server: Running) => server.child.exitCode === null && server.child.signalCode === null;

test('PostgreSQL crashes while run steps execute on the worker: the node stays up, answers 503, then 200, and every run ends', async () => {
  const seeded = spawnCli(['seed', '--json'], env(0));
  const { code, stdout } = await seeded.exited;
  expect(code).toBe(0);
  const seed = JSON.parse(stdout.trim().split('\n').pop()!) as { specialistId: string; keys: Record<string, string> };

  const port = await freePort();
  const node = spawnCli(['start'], env(port));
  await waitFor('the node', async () => ((await readyz(port).catch(() => 0)) === 200 ? true : undefined), 30_000, node);

  // Order lookups held 1.5 s at Shopify: the steps are mid-run on the worker when the database dies.
  await fetch(`${sandboxUrl}/_sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ vendor: 'shopify', fault: { kind: 'slow', delayMs: 1500 }, times: 4 }),
  });
  const runs: string[] = [];
  for (let i = 0; i < 4; i++) {
    const started = await gql(
      port,
      seed.keys.client,
      'mutation($s: ID!, $m: String!) { startAgentRun(input: { specialistId: $s, message: $m }) { id } }',
      {
        s: seed.specialistId,
        m: "What's the status of my order #12345?",
      },
    );
    runs.push(started.body.data.startAgentRun.id);
  }
  const shopifyRequests = async () =>
    ((await (await fetch(`${sandboxUrl}/_sandbox/requests?vendor=shopify`)).json()) as { requests: unknown[] }).requests.length;
  await waitFor('the lookups at the vendor', async () => ((await shopifyRequests()) >= 2 ? true : undefined), 20_000, node);

  await pg.crash();
  const crashedAt = Date.now();
  // Throughout the outage the process answers: /readyz and requests 503 with Retry-After.
  let answered = 0;
  while (Date.now() - crashedAt < OUTAGE_MS) {
    const ready = await readyz(port).catch(async (error: unknown) => {
      await Promise.race([node.exited, new Promise((resolve) => setTimeout(resolve, 2000))]);
      throw new Error(
        `no answer during the outage (${String(error)}); the node ${alive(node) ? 'runs' : `exited ${node.child.exitCode ?? node.child.signalCode}`}:\n${node.stderr()}`,
      );
    });
    expect(ready).toBe(503);
    const refused = await gql(port, seed.keys.client, '{ runs(first: 5) { edges { node { id } } } }');
    expect({ status: refused.status, code: refused.body.errors?.[0]?.extensions?.code, retryAfter: refused.retryAfter }).toEqual({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      retryAfter: '2',
    });
    answered += 1;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  expect(answered).toBeGreaterThan(5);

  await pg.restart();
  const back = Date.now();
  await waitFor('/readyz 200 after the restart', async () => ((await readyz(port).catch(() => 0)) === 200 ? true : undefined), 20_000, node);

  // Every run ends within 60 s of the restart, on the same process.
  const statuses = async () => {
    const answer = await gql(port, seed.keys.client, '{ runs(first: 20) { edges { node { id status } } } }');
    return new Map<string, string>(answer.body.data.runs.edges.map((e: { node: { id: string; status: string } }) => [e.node.id, e.node.status]));
  };
  await waitFor(
    'every run terminal',
    async () => {
      const now = await statuses();
      return runs.every((id) => ['completed', 'failed', 'cancelled'].includes(now.get(id) ?? '')) ? true : undefined;
    },
    60_000,
    node,
  );
  expect(Date.now() - back).toBeLessThan(60_000);
  expect(alive(node)).toBe(true);
}, 150_000);
