import { startTestApp, type TestApp } from '../support/app';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { TcpProxy } from '../support/tcp-proxy';
import { seedDemo, type SeedResult } from '../../src/seed/demo-seed';
import { GatewayClient } from '../gateway/gateway-helpers';

/**
 * A database outage under load, on a real PostgreSQL behind a TCP proxy the test cuts:
 * calls whose vendor answered while the database was gone cannot record their outcome.
 * Their callers get 503 SERVICE_UNAVAILABLE (retryable), nothing else is lost, and once the
 * database is back the node's next sweep settles every such call: none stays `running`.
 */
const proxy = new TcpProxy();
let db: TestDatabase;
let app: TestApp;
let seed: SeedResult;
let gw: GatewayClient;

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startTestApp({ VENDOR_RETRY_BASE_MS: '1' }, { database: await proxy.proxy(db), sandboxes: true, liveness: true });
  seed = await seedDemo(app.em(), app.masterKey);
  gw = new GatewayClient(app, seed);
});
afterAll(async () => {
  proxy.resume();
  await app?.close();
  await proxy.stop();
  await db?.drop();
});

test('the database goes away while five calls are at the vendor: 503s with a retryable code, then every call settled once', async () => {
  const run = await gw.startRun();
  const calls = 5;
  app.sandbox!.injectFault('shopify', { kind: 'slow', delayMs: 400 }, { times: calls });
  const before = app.sandbox!.requests.length;
  const pending = Array.from({ length: calls }, (_, i) =>
    gw.executeRaw(run.id, 'order_lookup', 'lookup', { orderId: '12345' }, { toolUseId: `tu-outage-${i}` }),
  );
  for (let i = 0; i < 200 && app.sandbox!.requests.length - before < calls; i++) await new Promise((r) => setTimeout(r, 10));
  expect(app.sandbox!.requests.length - before).toBe(calls);

  proxy.pause('reset');
  const answers = await Promise.all(pending);
  for (const answer of answers) {
    expect(answer.status).toBe(503);
    expect(answer.body.errors?.[0]?.extensions?.code).toBe('SERVICE_UNAVAILABLE');
    expect(answer.headers.get('retry-after')).toBe('2');
  }
  // While it is gone, a sweep cannot do anything (and says so without throwing).
  await expect(app.liveness!.sweep()).rejects.toBeDefined();

  proxy.resume();
  const stuck = async () =>
    (await app.em().execute<{ id: string }[]>("select id from tool_calls where run_id = ? and status = 'running'", [run.id])).length;
  expect(await stuck()).toBe(calls);
  const sweep = await app.liveness!.sweep();
  expect(sweep.reconciled).toBe(calls);
  expect(await stuck()).toBe(0);

  // Each call: requested, interrupted (its outcome could not be written), succeeded — once.
  const events = await app
    .em()
    .execute<{ resource_id: string; type: string; metadata: Record<string, unknown> }[]>(
      "select resource_id, type, metadata from ledger_events where run_id = ? and type like 'tool_call.%' order by sequence",
      [run.id],
    );
  const byCall = new Map<string, string[]>();
  for (const e of events) byCall.set(e.resource_id, [...(byCall.get(e.resource_id) ?? []), e.type]);
  expect([...byCall.values()]).toEqual(Array(calls).fill(['tool_call.requested', 'tool_call.interrupted', 'tool_call.succeeded']));
  expect(events.filter((e) => e.type === 'tool_call.interrupted').every((e) => e.metadata.reason === 'outcome_not_written')).toBe(true);

  // The agent retries with its toolUseIds: each call answers succeeded, nothing runs again.
  const vendorCalls = app.sandbox!.requests.length;
  for (let i = 0; i < calls; i++) {
    const retry = await gw.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' }, { toolUseId: `tu-outage-${i}` });
    expect(retry).toMatchObject({ status: 'succeeded', replayed: true, error: null });
  }
  expect(app.sandbox!.requests.length).toBe(vendorCalls);
});
