import { useDemoApp } from '../support/demo-fixture';
import { bounded, closeSockets, connect, ledgerHead, toolCalls, type Feed, type ToolCallChange } from './realtime-helpers';

/**
 * Fan-out by group: subscriptions of one org and role running the same operation with the
 * same arguments share each event's execution and serialization, whatever position they
 * resumed from. Two groups here (expert keys and admin keys, 30 and 10 subscriptions over
 * 4 sockets); one tool call makes two transitions.
 */

const demo = useDemoApp({}, { sandboxes: true, beforeClose: closeSockets });

test('each event is executed and serialized once per group of identical subscriptions, and every member gets it', async () => {
  const run = await demo.gw.startRun();
  const head = await ledgerHead(demo.app, demo.seed.orgId);
  const earlier = String(BigInt(head) - 1n); // a different resume position (replays run.started, which this feed skips)
  const expertSockets = [
    connect(demo.app.wsUrl, demo.seed.keys.expert),
    connect(demo.app.wsUrl, demo.seed.keys.expert),
    connect(demo.app.wsUrl, demo.seed.keys.expert),
  ];
  const adminSocket = connect(demo.app.wsUrl, demo.seed.keys.admin);
  const experts: Feed<ToolCallChange>[] = Array.from({ length: 30 }, (_, i) =>
    toolCalls(expertSockets[i % 3].client, run.id, i % 2 ? head : earlier),
  );
  const admins: Feed<ToolCallChange>[] = Array.from({ length: 10 }, (_, i) => toolCalls(adminSocket.client, run.id, i % 2 ? head : earlier));

  // Every subscription live before the call (the server's own count, polled with a bound),
  // and the org's ledger followed once per group, not once per subscription.
  await bounded(
    (async () => {
      while (demo.app.fanout.liveLedgerMembers() < 40) await new Promise((resolve) => setTimeout(resolve, 10));
    })(),
    'the 40 live subscriptions',
  );
  expect(demo.app.services.realtime!.ledger.listenerCount(demo.seed.orgId)).toBe(2);
  const before = demo.app.fanout.counts();
  const call = await demo.gw.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' });
  expect(call.status).toBe('succeeded');
  await Promise.all([...experts, ...admins].map((feed, i) => feed.count(2, `both transitions at subscriber ${i}`)));
  const after = demo.app.fanout.counts();

  for (const feed of [...experts, ...admins]) {
    expect(feed.items.map((c) => [c.status, c.toolCall.id])).toEqual([
      ['running', call.toolCallId],
      ['succeeded', call.toolCallId],
    ]);
    expect(feed.nextErrors).toEqual([]);
  }
  expect(experts.every((feed) => JSON.stringify(feed.items) === JSON.stringify(experts[0].items))).toBe(true);
  // 2 events × 2 groups, not 2 events × 40 subscribers.
  expect(after.executions - before.executions).toBe(4);
  expect(after.serializations - before.serializations).toBe(4);
  expect(after.sharedSends - before.sharedSends).toBe(80);
});
