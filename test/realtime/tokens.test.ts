import { startTestApp, type TestApp } from '../support/app';
import { seedDemo, type SeedResult } from '../../src/seed/demo-seed';
import { OfflineModelServer } from '../../src/llm/dev-double/offline-model.server';
import { RunClient, assistantTexts } from '../runs/run-helpers';
import { closeSockets, connect, gaps, joined, reaches, runEvents, tokens, type TokenItem } from './realtime-helpers';

/**
 * runTokens on INTERNAL runs (worker + offline model, streaming 3-word deltas). The
 * model pauses between deltas here so that a stream is observable while it is live: the
 * suite starts its own OfflineModelServer with deltaDelayMs and points the app at it.
 */
let app: TestApp;
let seed: SeedResult;
let runs: RunClient;
let model: OfflineModelServer;

const ORDER_QUESTION = "What's the status of my order #12345?";
const DELTA_DELAY_MS = 20;

beforeAll(async () => {
  model = new OfflineModelServer({ deltaDelayMs: DELTA_DELAY_MS });
  const modelUrl = await model.start();
  app = await startTestApp({ ANTHROPIC_BASE_URL: modelUrl, ANTHROPIC_MODEL: 'offline-model' }, { sandboxes: true, worker: true });
  seed = await seedDemo(app.em(), app.masterKey);
  runs = new RunClient(app, seed);
});
afterEach(async () => closeSockets());
afterAll(async () => {
  await app?.close();
  await model?.stop();
});

/** The run's whole assistant text, as persisted once it finished. */
async function finishedText(runId: string): Promise<{ text: string; reply: string; ledger: string[] }> {
  const run = await runs.waitFor(runId);
  expect(run.status).toBe('completed');
  return { text: assistantTexts(run).join(''), reply: run.reply!, ledger: run.ledgerEvents.map((e) => e.type) };
}

const received = (items: TokenItem[]) => items.reduce((n, i) => n + i.text.length, 0);

describe('runTokens', () => {
  test("a subscriber from the start: deltas in offset order, without gaps, adding up to the run's text", async () => {
    const { id } = await runs.start(ORDER_QUESTION);
    const feed = tokens(connect(app.wsUrl, seed.keys.client).client, id);
    const { text, reply } = await finishedText(id);
    await feed.until((f) => reaches(f.items, text.length), 'the end of the text');

    expect(gaps(feed.items)).toEqual([]);
    expect(joined(feed.items)).toBe(text);
    expect(text.endsWith(reply)).toBe(true);
    expect(reply).toContain('TRACK-001');
    expect(feed.items.every((i) => i.runId === id)).toBe(true);
    // Streamed live, in several coalesced deltas, not as one block at the end.
    expect(feed.items.length).toBeGreaterThan(2);
    expect(feed.nextErrors).toEqual([]);
  });

  test('a late subscriber (after completion) gets the whole text at offset 0, then nothing more', async () => {
    const { id } = await runs.start(ORDER_QUESTION);
    const { text } = await finishedText(id);
    const { client } = connect(app.wsUrl, seed.keys.client);
    const late = tokens(client, id);
    await late.count(1, 'the text so far');
    expect(late.items).toEqual([{ runId: id, offset: '0', text }]);

    // A barrier on the same socket: a second late subscription answers too, and the
    // first still holds its single item.
    const barrier = tokens(client, id, String(text.length - 5));
    await barrier.count(1, 'the barrier');
    expect(barrier.items).toEqual([{ runId: id, offset: String(text.length - 5), text: text.slice(-5) }]);
    expect(late.items).toHaveLength(1);
    expect(late.ended).toBe(false);
  });

  test('afterOffset after completion: exactly the rest; at the end: nothing', async () => {
    const { id } = await runs.start(ORDER_QUESTION);
    const { text } = await finishedText(id);
    const { client } = connect(app.wsUrl, seed.keys.admin);
    const rest = tokens(client, id, '10');
    const none = tokens(client, id, String(text.length));
    await rest.count(1, 'the rest of the text');
    expect(rest.items).toEqual([{ runId: id, offset: '10', text: text.slice(10) }]);
    const barrier = tokens(client, id, '0');
    await barrier.count(1, 'the barrier');
    expect(none.items).toEqual([]);
  });

  test('runEvents of an internal run: status transitions, message boundaries and the tool call, as in the ledger', async () => {
    const { id } = await runs.start(ORDER_QUESTION);
    const feed = runEvents(connect(app.wsUrl, seed.keys.client).client, id, '0');
    const { ledger } = await finishedText(id);
    await feed.until((f) => f.items.some((e) => e.type === 'run.completed'), 'run.completed');
    expect(feed.items.map((e) => e.type)).toEqual(ledger.filter((t) => /^(run|tool_call)\./.test(t)));
    expect(feed.items.filter((e) => e.type === 'run.message_added').length).toBeGreaterThanOrEqual(2);
    expect(feed.items.map((e) => e.type)).toEqual(expect.arrayContaining(['run.created', 'tool_call.requested', 'tool_call.succeeded']));
  });

  test('afterOffset must be a decimal number', async () => {
    const { id } = await runs.start(ORDER_QUESTION);
    const feed = tokens(connect(app.wsUrl, seed.keys.client).client, id, '-1');
    await feed.end();
    expect(feed.errorCodes).toEqual(['BAD_USER_INPUT']);
    await finishedText(id);
  });

  test('mid-stream: a joiner gets the message so far then live deltas; a reconnect with afterOffset resumes without gaps or repeats', async () => {
    const { id } = await runs.start(ORDER_QUESTION);
    const first = connect(app.wsUrl, seed.keys.client);
    const watcher = tokens(first.client, id);
    await watcher.count(1, 'the first delta');
    // Disconnect after the first delta, while the model is still streaming.
    await first.client.dispose();
    const seen = [...watcher.items];
    const resumeAt = received(seen);

    const second = connect(app.wsUrl, seed.keys.client);
    const resumed = tokens(second.client, id, String(resumeAt));
    const joiner = tokens(second.client, id);
    const { text } = await finishedText(id);
    await resumed.until((f) => resumeAt === text.length || reaches(f.items, text.length), 'the rest after the reconnect');
    await joiner.until((f) => reaches(f.items, text.length), 'the end of the text at the joiner');

    const all = [...seen, ...resumed.items];
    expect(gaps(all)).toEqual([]);
    expect(joined(all)).toBe(text);
    expect(Number(resumed.items[0].offset)).toBe(resumeAt);
    expect(gaps(joiner.items)).toEqual([]);
    expect(joined(joiner.items)).toBe(text);
    // The reconnect happened while the text was still being streamed.
    expect(resumeAt).toBeLessThan(text.length);
  });
});
