import { performance } from 'node:perf_hooks';
import { startTestApp, type TestApp } from '../support/app';
import { newOrg, newRun, type TestOrg } from '../support/factories';
import type { AgentRun } from '../../src/runs/agent-run.entity';
import { RUN_EVENTS, RawSubscriber, closeSockets, commitRunEvents, connect, increasing, ledgerHead, runEvents } from './realtime-helpers';

/**
 * A slow consumer never delays the others: a raw graphql-transport-ws client subscribes to
 * a run's events and stops reading its socket while 2,700 events are committed (in
 * batches, as a busy run's transactions would). Once the TCP buffers are full the server
 * stops queueing for it (past SUBSCRIPTION_BUFFER_EVENTS, 100 here, it would re-read the ledger), and
 * once it lags SUBSCRIPTION_MAX_LAG_EVENTS (2,000 here) behind the head the subscription
 * ends with SUBSCRIBER_TOO_SLOW and the sequence to resume after. A normal subscriber of
 * the same run meanwhile gets every event, batch by batch.
 *
 * The first events carry 32 KB of metadata each so that the socket buffers (a few MB on
 * loopback) fill after a hundred or two events rather than after thousands.
 */
let app: TestApp;
let org: TestOrg;

/** First ~9.6 MB in 300 large events (the socket buffers fill), then 2,400 small ones (the lag passes 2,000). */
const PLAN = [...Array(3).fill({ count: 100, pad: 'x'.repeat(32_000) }), ...Array(12).fill({ count: 200, pad: 'small' })] as {
  count: number;
  pad: string;
}[];

beforeAll(async () => {
  app = await startTestApp({ SUBSCRIPTION_BUFFER_EVENTS: '100', SUBSCRIPTION_MAX_LAG_EVENTS: '2000' });
  org = await newOrg(app.em(), 'Busy Org');
});
afterEach(async () => closeSockets());
afterAll(async () => app?.close());

/** `count` run.message_added events in one committed transaction; their sequences. */
const commitEvents = (run: AgentRun, count: number, pad: string) => commitRunEvents(app, org.org.id, run.id, count, (i) => ({ i, pad }));

test('a client that stops reading is ended with SUBSCRIBER_TOO_SLOW (resumable by sequence) while a normal subscriber gets every event promptly', async () => {
  const run = await newRun(app.em(), org, { status: 'running' });
  const created = await ledgerHead(app, org.org.id); // the run's run.created
  const before = String(BigInt(created) - 1n);

  const slow = await RawSubscriber.open(app.wsUrl, org.keys.expert, RUN_EVENTS, { runId: run.id, after: before });
  await slow.until(() => slow.nexts.length >= 1, "the slow client's first event (its listener is live)");
  slow.pause();
  const normal = runEvents(connect(app.wsUrl, org.keys.expert).client, run.id, before);
  await normal.count(1, "the normal subscriber's first event");

  const all: string[] = [created];
  const batchLatency: number[] = [];
  for (const [b, { count, pad }] of PLAN.entries()) {
    all.push(...(await commitEvents(run, count, pad)));
    const committed = performance.now();
    await normal.count(all.length, `batch ${b + 1} at the normal subscriber`);
    batchLatency.push(performance.now() - committed);
  }
  expect(normal.items.map((e) => e.sequence)).toEqual(all);
  expect(normal.error).toBeNull();
  expect(normal.nextErrors).toEqual([]);

  // The slow client reads again: what the server had already sent, then the error.
  slow.resume();
  await slow.until(() => slow.ending !== undefined, 'the slow subscription to end', 20_000);
  const got = slow.nexts.map((p) => p.data?.runEvents.sequence);
  expect(got.length).toBeLessThan(all.length);
  expect(got).toEqual(all.slice(0, got.length));
  const ending = slow.ending;
  expect(ending).toMatchObject({
    type: 'error',
    payload: [{ extensions: { code: 'SUBSCRIBER_TOO_SLOW', resumeAfterSequence: got[got.length - 1] } }],
  });
  if (ending?.type !== 'error') throw new Error('the slow subscription did not end with an error');
  expect(ending.payload[0].message).toMatch(/too far behind/);

  // Resuming from the sequence it named: exactly the rest, nothing twice.
  const resumeAfter = ending.payload[0].extensions?.resumeAfterSequence as string;
  const resumed = runEvents(connect(app.wsUrl, org.keys.expert).client, run.id, resumeAfter);
  await resumed.count(all.length - got.length, 'the rest after resuming', 20_000);
  expect([...got, ...resumed.items.map((e) => e.sequence)]).toEqual(all);
  expect(increasing(all)).toBe(true);
  slow.close();

  // eslint-disable-next-line no-console
  console.log(
    `slow consumer: ended after receiving ${got.length} of ${all.length} events; normal subscriber had each of the ` +
      `${PLAN.length} batches within ${Math.max(...batchLatency).toFixed(0)} ms (max), ${(batchLatency.reduce((a, b) => a + b, 0) / PLAN.length).toFixed(0)} ms (mean)`,
  );
});

test('a burst larger than the buffer (1,200 events in one commit against a 100-event queue, within the lag limit) reaches a subscriber that is reading, in order', async () => {
  const run = await newRun(app.em(), org, { status: 'running' });
  const created = await ledgerHead(app, org.org.id);
  const reader = runEvents(connect(app.wsUrl, org.keys.expert).client, run.id, String(BigInt(created) - 1n));
  await reader.count(1, 'the first event');
  const burst = await commitEvents(run, 1200, 'y');
  await reader.until((f) => f.items.length >= 1201, 'the whole burst', 20_000);
  expect(reader.items.map((e) => e.sequence)).toEqual([created, ...burst]);
  expect(reader.error).toBeNull();
});
