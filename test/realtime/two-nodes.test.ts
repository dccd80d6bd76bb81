import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { startTestApp, type TestApp } from '../support/app';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { RESOLVE_APPROVAL } from '../support/documents';
import { seedDemo, type SeedResult } from '../../src/seed/demo-seed';
import { OfflineModelServer } from '../../src/llm/dev-double/offline-model.server';
import { GatewayClient } from '../gateway/gateway-helpers';
import { RunClient, assistantTexts } from '../runs/run-helpers';
import { approvals, closeSockets, connect, gaps, joined, ledgerHead, reaches, runEvents, tokens, toolCalls } from './realtime-helpers';

/**
 * Two server instances on one database = two nodes. Node 2 executes (it alone runs the
 * job worker); dashboards subscribe on node 1. Once with the PostgreSQL LISTEN/NOTIFY bus,
 * once with Redis pub/sub (127.0.0.1:6379, which must be reachable).
 */
const REDIS = { host: '127.0.0.1', port: 6379 };
const EXPERT_INVOICE = { customerId: '1', amount: 120.5 };
const ORDER_QUESTION = "What's the status of my order #12345?";

function redisReachable(): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(REDIS);
    socket.setTimeout(2000);
    const fail = (why: string) => {
      socket.destroy();
      reject(new Error(`Redis is not reachable at ${REDIS.host}:${REDIS.port} (${why}); the redis event-bus tests need it running`));
    };
    socket.once('connect', () => {
      socket.end();
      resolve();
    });
    socket.once('timeout', () => fail('timeout'));
    socket.once('error', (error) => fail(error.message));
  });
}

describe.each(['postgres', 'redis'] as const)('two nodes on one database, %s bus', (bus) => {
  let db: TestDatabase;
  let model: OfflineModelServer;
  let node1: TestApp;
  let node2: TestApp;
  let seed: SeedResult;
  let on1: GatewayClient;
  let on2: GatewayClient;

  beforeAll(async () => {
    if (bus === 'redis') await redisReachable();
    db = await createTestDatabase();
    model = new OfflineModelServer({ deltaDelayMs: 15 });
    const env = { ANTHROPIC_BASE_URL: await model.start(), ANTHROPIC_MODEL: 'offline-model' };
    node1 = await startTestApp(env, { database: db, eventBus: bus, sandboxes: true });
    node2 = await startTestApp(env, { database: db, eventBus: bus, sandboxes: true, worker: true });
    expect(node1.services.realtime?.bus.kind).toBe(bus);
    expect(node2.services.realtime?.bus.kind).toBe(bus);
    seed = await seedDemo(node1.em(), node1.masterKey);
    on1 = new GatewayClient(node1, seed);
    on2 = new GatewayClient(node2, seed);
  });
  afterEach(async () => closeSockets());
  afterAll(async () => {
    await node1?.close();
    await node2?.close();
    await model?.stop();
    await db?.drop();
  });

  test('a dashboard on node 1 sees a request raised on node 2 within milliseconds, resolves it on node 1 and sees the resolution', async () => {
    const dashboard = approvals(connect(node1.wsUrl, seed.keys.expert).client, 'expert', await ledgerHead(node1, seed.orgId));
    const run = await on2.startRun();

    // Warm-up: a first request; once it arrived, the dashboard's listener is live.
    const warm = await on2.execute(run.id, 'invoice', 'send', EXPERT_INVOICE);
    expect(warm.status).toBe('waiting_approval');
    await dashboard.count(1, 'the warm-up request');

    const sent = performance.now();
    const raised = await on2.execute(run.id, 'invoice', 'send', EXPERT_INVOICE);
    const answered = performance.now();
    expect(raised.status).toBe('waiting_approval');
    await dashboard.count(2, 'the request raised on node 2');
    const requestedAt = dashboard.arrivals[1];
    expect(dashboard.items[1]).toMatchObject({
      change: 'requested',
      approvalRequest: { id: raised.approvalRequestId, kind: 'expert', status: 'pending', runId: run.id },
    });

    const resolveSent = performance.now();
    await on1.ok(RESOLVE_APPROVAL, { id: raised.approvalRequestId!, decision: 'APPROVE' }, seed.keys.expert);
    const resolveAnswered = performance.now();
    await dashboard.count(3, 'the resolution');
    expect(dashboard.items[2]).toMatchObject({ change: 'approved', approvalRequest: { id: raised.approvalRequestId, status: 'approved' } });

    const requestLatency = requestedAt - answered;
    const resolutionLatency = dashboard.arrivals[2] - resolveAnswered;
    // eslint-disable-next-line no-console
    console.log(
      `[${bus} bus] request raised on node 2 → node 1 dashboard: ${requestLatency.toFixed(1)} ms after the mutation's response ` +
        `(${(requestedAt - sent).toFixed(1)} ms after it was sent); resolution on node 1: ` +
        `${resolutionLatency.toFixed(1)} ms after the response (${(dashboard.arrivals[2] - resolveSent).toFixed(1)} ms after it was sent)`,
    );
    expect(requestLatency).toBeLessThan(500);
    expect(resolutionLatency).toBeLessThan(500);
  });

  test("tool calls executed on node 2 reach node 1 subscribers, and node 1's reach node 2, in ledger order", async () => {
    const head = await ledgerHead(node1, seed.orgId);
    const at1 = toolCalls(connect(node1.wsUrl, seed.keys.expert).client, null, head);
    const at2 = toolCalls(connect(node2.wsUrl, seed.keys.expert).client, null, head);
    const run = await on1.startRun();
    const events1 = runEvents(connect(node1.wsUrl, seed.keys.expert).client, run.id, '0');

    const a = await on2.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' });
    const b = await on1.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' });
    const c = await on2.execute(run.id, 'order_lookup', 'delete', { orderId: '12345' });
    const expected = [
      [a.toolCallId, 'running'],
      [a.toolCallId, 'succeeded'],
      [b.toolCallId, 'running'],
      [b.toolCallId, 'succeeded'],
      [c.toolCallId, 'blocked'],
    ];
    for (const feed of [at1, at2]) {
      await feed.count(5, 'the five transitions');
      expect(feed.items.map((x) => [x.toolCall.id, x.status])).toEqual(expected);
    }
    await events1.count(8, 'the run events on node 1');
    expect(events1.items.map((e) => e.type)).toEqual([
      'run.created',
      'run.started',
      'tool_call.requested',
      'tool_call.succeeded',
      'tool_call.requested',
      'tool_call.succeeded',
      'tool_call.requested',
      'tool_call.blocked',
    ]);
    expect(at1.items.map((x) => x.sequence)).toEqual(at2.items.map((x) => x.sequence));
  });

  test('a run streaming on node 2 (its worker) arrives in order on node 1, from the start and resumed after a reconnect', async () => {
    const runs = new RunClient(node1, seed);
    const { id } = await runs.start(ORDER_QUESTION);
    const first = connect(node1.wsUrl, seed.keys.client);
    const live = tokens(first.client, id);
    const watcher = tokens(connect(node1.wsUrl, seed.keys.client).client, id);
    await watcher.count(1, 'the first delta on node 1');
    await first.client.dispose();
    const seen = [...live.items];
    const resumeAt = seen.reduce((n, i) => n + i.text.length, 0);
    const resumed = tokens(connect(node1.wsUrl, seed.keys.client).client, id, String(resumeAt));

    const done = await runs.waitFor(id);
    expect(done.status).toBe('completed');
    const text = assistantTexts(done).join('');
    await watcher.until((f) => reaches(f.items, text.length), 'the end of the text on node 1');
    await resumed.until((f) => reaches(f.items, text.length), 'the rest after the reconnect');

    // Node 1 has no worker: the text came from node 2 over the bus.
    expect(done.reply).toContain('TRACK-001');
    expect(gaps(watcher.items)).toEqual([]);
    expect(joined(watcher.items)).toBe(text);
    expect(watcher.items.length).toBeGreaterThan(1);
    expect(gaps([...seen, ...resumed.items])).toEqual([]);
    expect(joined([...seen, ...resumed.items])).toBe(text);
  });
});
