import { performance } from 'node:perf_hooks';
import { useDemoApp } from '../support/demo-fixture';
import { newOrg, newRun, newToolCall, type TestOrg } from '../support/factories';
import { appendLedgerEvent } from '../../src/ledger/ledger.service';
import { closeSockets, connect, ledgerHead, toolCalls, type Feed, type ToolCallChange } from './realtime-helpers';

/**
 * Org isolation under load: 1,000 graphql-ws subscriptions of org A (toolCallStatusChanged
 * without runId, i.e. all of A), multiplexed over 10 sockets, while org B executes tool
 * calls. A control subscriber in B receives B's transitions; none reach A's subscribers.
 *
 * Readiness and completeness are proven with markers in A's own ledger: each of A's
 * subscriptions starts from the sequence before marker 1 (so it gets marker 1 by replay or
 * live, after its listener is attached), and marker 2 is appended only once the control
 * subscriber has all of B's events.
 */
let orgA: TestOrg;

const SUBSCRIBERS = 1000;
const SOCKETS = 10;

const demo = useDemoApp({}, { sandboxes: true, beforeClose: closeSockets }); // org B: the demo org, tools enabled
beforeAll(async () => {
  orgA = await newOrg(demo.app.em(), 'Org A');
});

/** A tool-call transition in A's ledger (as the gateway would record one), after commit. */
async function markA(runId: string, toolCallId: string, marker: number): Promise<string> {
  const event = await demo.app
    .em()
    .transactional((tx) =>
      appendLedgerEvent(tx, { orgId: orgA.org.id, type: 'tool_call.succeeded', runId, resourceId: toolCallId, metadata: { marker } }),
    );
  return String(event.sequence);
}

test(`${SUBSCRIBERS} subscribers of org A receive none of org B's events; a subscriber in B receives them all`, async () => {
  const runA = await newRun(demo.app.em(), orgA, { status: 'running' });
  const { call: callA } = await newToolCall(demo.app.em(), orgA, runA);
  const fromA = await ledgerHead(demo.app, orgA.org.id);
  const marker1 = await markA(runA.id, callA.id, 1);

  const started = performance.now();
  const sockets = Array.from({ length: SOCKETS }, () => connect(demo.app.wsUrl, orgA.keys.expert));
  const feedsA: Feed<ToolCallChange>[] = [];
  for (let i = 0; i < SUBSCRIBERS; i++) feedsA.push(toolCalls(sockets[i % SOCKETS].client, null, fromA));
  await Promise.all(feedsA.map((feed, i) => feed.count(1, `marker 1 at subscriber ${i}`, 30_000)));
  const readyMs = performance.now() - started;

  const control = toolCalls(connect(demo.app.wsUrl, demo.seed.keys.expert).client, null, await ledgerHead(demo.app, demo.seed.orgId));

  // Org B at work: lookups on two runs (running → succeeded), a blocked call, an approval.
  const runsB = [await demo.gw.startRun(), await demo.gw.startRun()];
  const results = await Promise.all(
    Array.from({ length: 10 }, (_, i) => demo.gw.execute(runsB[i % 2].id, 'order_lookup', 'lookup', { orderId: '12345' })),
  );
  const blocked = await demo.gw.execute(runsB[0].id, 'order_lookup', 'delete', { orderId: '12345' });
  const waiting = await demo.gw.execute(runsB[1].id, 'invoice', 'send', { customerId: '1', amount: 42 });
  expect(results.map((r) => r.status)).toEqual(Array(10).fill('succeeded'));
  expect([blocked.status, waiting.status]).toEqual(['blocked', 'waiting_approval']);
  const expectedB = 10 * 2 + 2;
  await control.count(expectedB, "all of B's transitions");

  // Every one of B's events has been delivered on this node; now the closing marker in A.
  demo.app.statements.length = 0;
  const fanOutStart = performance.now();
  const marker2 = await markA(runA.id, callA.id, 2);
  await Promise.all(feedsA.map((feed, i) => feed.count(2, `marker 2 at subscriber ${i}`, 30_000)));
  const fanOutMs = performance.now() - fanOutStart;
  const fanOutReads = demo.app.statements.filter((s) => /^\[query\] select/.test(s)).length;

  const callsB = new Set([...results.map((r) => r.toolCallId), blocked.toolCallId, waiting.toolCallId]);
  expect(control.items).toHaveLength(expectedB);
  expect(control.items.every((c) => callsB.has(c.toolCall.id))).toBe(true);
  expect(control.items.map((c) => c.status).sort()).toEqual(
    [...Array(10).fill('running'), ...Array(10).fill('succeeded'), 'blocked', 'waiting_approval'].sort(),
  );

  let leaked = 0;
  for (const feed of feedsA) {
    leaked += feed.items.filter((c) => c.toolCall.runId !== runA.id || callsB.has(c.toolCall.id)).length;
    expect(feed.items.map((c) => [c.sequence, c.status, c.toolCall.id])).toEqual([
      [marker1, 'succeeded', callA.id],
      [marker2, 'succeeded', callA.id],
    ]);
    expect(feed.nextErrors).toEqual([]);
    expect(feed.error).toBeNull();
  }
  expect(leaked).toBe(0);
  // eslint-disable-next-line no-console
  console.log(
    `isolation: ${SUBSCRIBERS} subscriptions over ${SOCKETS} sockets ready in ${readyMs.toFixed(0)} ms; B produced ${expectedB} ` +
      `transitions, A's subscribers got none; one A event reached all ${SUBSCRIBERS} in ${fanOutMs.toFixed(0)} ms with ${fanOutReads} selects`,
  );
});
