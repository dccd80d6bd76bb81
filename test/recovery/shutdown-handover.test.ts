import { withClient } from '../../src/db/throwaway-postgres';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { childEnv, freePort, killChildren, spawnCli, waitFor, withTimeout, type Running } from '../support/processes';

/**
 * SIGTERM while a vendor call is slower than the shutdown budget: the process refuses new
 * calls, waits most of its budget, logs the call it hands to reconciliation, settles it in
 * the budget's last part (an idempotent lookup runs again with the same idempotency key) and
 * exits 1. Until it exits the listener answers: a request 200 ms after SIGTERM gets 503
 * SERVICE_UNAVAILABLE with Retry-After (not "connection refused"), and the request whose
 * call outlived the budget gets 503 with that call's id and settled status (not a hang-up).
 * Once the process is gone no call is `running`; the next start finds nothing to do.
 * Vendor state lives in a `toolgate sandboxes` process of its own.
 */
const MASTER_KEY_HEX = 'd4'.repeat(32);
let db: TestDatabase;
let sandboxes: Running;
let sandboxUrl: string;

beforeAll(async () => {
  db = await createTestDatabase();
  const port = await freePort();
  sandboxes = spawnCli(['sandboxes', '--port', String(port)], childEnv({}));
  sandboxUrl = `http://127.0.0.1:${port}`;
  await waitFor('the sandboxes', async () => (sandboxes.stdout().includes('serving') ? true : undefined), 10_000, sandboxes);
});
afterAll(async () => {
  await killChildren();
  await db?.drop();
});

const env = (port: number) =>
  childEnv({
    DATABASE_URL: db.url,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info', // the test waits for the "shutting down" line
    MASTER_ENCRYPTION_KEY: MASTER_KEY_HEX,
    VENDOR_SANDBOX_URL: sandboxUrl,
    TOOLGATE_NODE_NAME: 'handover-node',
    SHUTDOWN_TIMEOUT_MS: '2500',
    NODE_HEARTBEAT_MS: '200',
    NODE_DEAD_AFTER_MS: '60000',
  });

const query = <T>(sql: string, params: unknown[] = []): Promise<T[]> =>
  withClient(db.url, async (client) => (await client.query(sql, params)).rows as T[]);

async function gql(port: number, key: string, query: string, variables: Record<string, unknown> = {}) {
  const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ query, variables }),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as { data?: any; errors?: { extensions?: { code?: string; toolCalls?: { id: string; status: string }[] } }[] },
  };
}

async function startServer(port: number): Promise<Running> {
  const server = spawnCli(['start'], env(port));
  await waitFor(
    'the server',
    async () => ((await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.ok ? true : undefined),
    20_000,
    server,
  );
  return server;
}

const sandboxRequests = async (): Promise<{ vendor: string; path: string }[]> =>
  ((await (await fetch(`${sandboxUrl}/_sandbox/requests?vendor=shopify`)).json()) as { requests: { vendor: string; path: string }[] }).requests;

test('a SIGTERM with a vendor call slower than the budget: refused new calls, the call reconciled within the budget, exit 1, nothing left running', async () => {
  const seeded = spawnCli(['seed', '--json'], env(0));
  const { code, stdout } = await seeded.exited;
  expect(code).toBe(0);
  const seed = JSON.parse(stdout) as { specialistId: string; keys: Record<string, string> };

  const port = await freePort();
  const first = await startServer(port);
  const run = await gql(port, seed.keys.agent, 'mutation($s: ID!) { startAgentRun(input: { specialistId: $s, driver: EXTERNAL }) { id } }', {
    s: seed.specialistId,
  });
  const runId = run.body.data.startAgentRun.id as string;

  // The order lookup hangs at Shopify for 8 s, far past the 2.5 s budget.
  await fetch(`${sandboxUrl}/_sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ vendor: 'shopify', fault: { kind: 'slow', delayMs: 8000 }, times: 1 }),
  });
  const before = (await sandboxRequests()).length;
  const slow = gql(port, seed.keys.agent, `mutation($i: ExecuteToolCallInput!) { executeToolCall(input: $i) { status toolCallId } }`, {
    i: { runId, toolName: 'order_lookup', action: 'lookup', params: { orderId: '12345' }, correlationId: 'slow-1', toolUseId: 'tu-slow' },
  }).catch((error: unknown) => error);
  await waitFor('the vendor request', async () => ((await sandboxRequests()).length > before ? true : undefined), 10_000, first);

  const started = Date.now();
  first.child.kill('SIGTERM');
  // The gateway drains in the same tick as this line is logged: calls sent after it are refused.
  await waitFor('the shutdown to begin', async () => (first.stdout().includes('"shutting down"') ? true : undefined), 5000);
  // New calls are refused with a retryable code, by a listener that stays open: 200 ms after SIGTERM, and later.
  await new Promise((resolve) => setTimeout(resolve, 200 - (Date.now() - started)));
  for (let i = 0; i < 2; i++) {
    const refused = await gql(port, seed.keys.agent, `mutation($i: ExecuteToolCallInput!) { executeToolCall(input: $i) { status } }`, {
      i: { runId, toolName: 'order_lookup', action: 'lookup', params: { orderId: '12345' }, correlationId: 'late', toolUseId: 'tu-late' },
    });
    expect({ status: refused.status, code: refused.body.errors?.[0]?.extensions?.code, retryAfter: refused.retryAfter }).toEqual({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      retryAfter: '2',
    });
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect({ status: ready.status, body: await ready.json() }).toEqual({ status: 503, body: { status: 'shutting_down' } });
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }

  const exit = await withTimeout(first.exited, 15_000, () => `no exit after SIGTERM\n${first.stderr()}`);
  expect(exit.code).toBe(1);
  expect(Date.now() - started).toBeLessThan(8000);
  const logs = `${exit.stdout}\n${exit.stderr}`;
  expect(logs).toMatch(/handed to reconciliation/);
  expect(logs).toMatch(/shutdown incomplete/);
  const [call] = await query<{ id: string; status: string }>("select id, status from tool_calls where tool_use_id = 'tu-slow'");
  expect(call.status).toBe('succeeded');
  // Cut by the budget, the request was answered: 503 with its call, settled by then.
  const cut = (await slow) as Awaited<ReturnType<typeof gql>>;
  expect({ status: cut.status, code: cut.body.errors?.[0]?.extensions?.code, toolCalls: cut.body.errors?.[0]?.extensions?.toolCalls }).toEqual({
    status: 503,
    code: 'SERVICE_UNAVAILABLE',
    toolCalls: [{ id: call.id, status: 'succeeded' }],
  });
  expect(await query("select id from tool_calls where status = 'running'")).toEqual([]);
  const trail = async () =>
    query<{ type: string; metadata: Record<string, unknown> }>('select type, metadata from ledger_events where resource_id = $1 order by sequence', [
      call.id,
    ]);
  const events = await trail();
  expect(events.map((e) => e.type)).toEqual(['tool_call.requested', 'tool_call.interrupted', 'tool_call.succeeded']);
  expect(events[1].metadata).toMatchObject({ reason: 'shutdown' });
  expect(events[2].metadata).toMatchObject({ reconciled: 're_executed' });

  // The next start (same node name) reaps its previous incarnation and finds nothing left.
  const second = await startServer(port);
  await waitFor(
    'the previous incarnation reaped',
    async () =>
      (await query<{ n: string }>('select count(*) as n from toolgate_nodes where reaped_at is not null'))[0].n === '1' ? true : undefined,
    10_000,
    second,
  );
  expect((await trail()).length).toBe(3);
  second.child.kill('SIGTERM');
  expect((await withTimeout(second.exited, 15_000, () => 'no exit')).code).toBe(0);
});
