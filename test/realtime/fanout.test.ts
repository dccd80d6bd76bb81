import { startTestApp, type TestApp } from '../support/app';
import { seedDemo, type SeedResult } from '../../src/seed/demo-seed';
import { fanoutCounters } from '../../src/graphql/subscription-fanout';
import { GatewayClient } from '../gateway/gateway-helpers';
import { bounded, closeSockets, connect, ledgerHead, toolCalls, type Feed, type ToolCallChange } from './realtime-helpers';

/**
 * Fan-out by group: subscriptions of one org and role running the same operation with the
 * same arguments share each event's execution and serialization, whatever position they
 * resumed from. Two groups here (client keys and admin keys, 30 and 10 subscriptions over
 * 4 sockets); one tool call makes two transitions.
 */
let app: TestApp;
let seed: SeedResult;
let gw: GatewayClient;

beforeAll(async () => {
  app = await startTestApp({}, { sandboxes: true });
  seed = await seedDemo(app.em(), app.masterKey);
  gw = new GatewayClient(app, seed);
});
afterAll(async () => {
  await closeSockets();
  await app?.close();
});

test('each event is executed and serialized once per group of identical subscriptions, and every member gets it', async () => {
  const run = await gw.startRun();
  const head = await ledgerHead(app, seed.orgId);
  const earlier = String(BigInt(head) - 1n); // a different resume position (replays run.started, which this feed skips)
  const clientSockets = [connect(app.wsUrl, seed.keys.client), connect(app.wsUrl, seed.keys.client), connect(app.wsUrl, seed.keys.client)];
  const adminSocket = connect(app.wsUrl, seed.keys.admin);
  const clients: Feed<ToolCallChange>[] = Array.from({ length: 30 }, (_, i) =>
    toolCalls(clientSockets[i % 3].client, run.id, i % 2 ? head : earlier),
  );
  const admins: Feed<ToolCallChange>[] = Array.from({ length: 10 }, (_, i) => toolCalls(adminSocket.client, run.id, i % 2 ? head : earlier));

  // Every listener attached before the call (the server's own count, polled with a bound).
  await bounded(
    (async () => {
      while (app.services.realtime!.ledger.listenerCount(seed.orgId) < 40) await new Promise((resolve) => setTimeout(resolve, 10));
    })(),
    'the 40 listeners',
  );
  const before = fanoutCounters();
  const call = await gw.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' });
  expect(call.status).toBe('succeeded');
  await Promise.all([...clients, ...admins].map((feed, i) => feed.count(2, `both transitions at subscriber ${i}`)));
  const after = fanoutCounters();

  for (const feed of [...clients, ...admins]) {
    expect(feed.items.map((c) => [c.status, c.toolCall.id])).toEqual([
      ['running', call.toolCallId],
      ['succeeded', call.toolCallId],
    ]);
    expect(feed.nextErrors).toEqual([]);
  }
  expect(clients.every((feed) => JSON.stringify(feed.items) === JSON.stringify(clients[0].items))).toBe(true);
  // 2 events × 2 groups, not 2 events × 40 subscribers.
  expect(after.executions - before.executions).toBe(4);
  expect(after.serializations - before.serializations).toBe(4);
  expect(after.sharedSends - before.sharedSends).toBe(80);
});
