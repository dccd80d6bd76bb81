import { startTestApp, type TestApp } from '../support/app';
import { newOrg, newRun, type TestOrg } from '../support/factories';
import { appendLedgerEvent } from '../../src/ledger/ledger.service';
import { MAX_BUS_MESSAGE_BYTES, type BusChannel } from '../../src/realtime/event-bus';
import { createEventBus } from '../../src/realtime/realtime';
import {
  appliedText,
  bounded,
  closeSockets,
  connect,
  gaps,
  joined,
  reaches,
  ledgerHead,
  retractingTokens,
  runEvents,
  tokens,
} from './realtime-helpers';

/**
 * The event bus contract on the PostgreSQL LISTEN/NOTIFY bus: ledger notices carry ids
 * only (`<orgId>:<sequence>`), stay under NOTIFY's 8000 bytes, and are sent after the
 * ledger transaction committed, never inside it (nor for one that rolled back). Token
 * deltas too large for one notice are split.
 */
let app: TestApp;
let org: TestOrg;
const published: { channel: BusChannel; message: string }[] = [];
/** While set, this node's token messages wait here before they reach the bus (released in order). */
let heldTokens: (() => Promise<void>)[] | null = null;

beforeAll(async () => {
  app = await startTestApp({}, { eventBus: 'postgres' });
  org = await newOrg(app.em(), 'Bus Org');
  // Record what this node publishes (the bus itself is untouched).
  const bus = app.services.realtime!.bus;
  const publish = bus.publish.bind(bus);
  bus.publish = (channel, message) => {
    published.push({ channel, message });
    if (channel === 'tokens' && heldTokens) {
      heldTokens.push(() => publish(channel, message));
      return Promise.resolve();
    }
    return publish(channel, message);
  };
});
afterEach(async () => closeSockets());
afterAll(async () => app?.close());

const notices = () => published.filter((p) => p.channel === 'ledger').map((p) => p.message);
const append = (tx: Parameters<typeof appendLedgerEvent>[0], runId: string, step: string) =>
  appendLedgerEvent(tx, { orgId: org.org.id, type: 'run.message_added', runId, resourceId: runId, metadata: { step } });

describe('ledger notices', () => {
  test('published after commit, never inside the transaction; id-only and under 8000 bytes', async () => {
    const run = await newRun(app.em(), org, { status: 'running' });
    const feed = runEvents(connect(app.wsUrl, org.keys.admin).client, run.id, '0');
    await feed.count(1, 'run.created');
    const before = notices().length;

    let insideTransaction: string[] = [];
    const event = await app.em().transactional(async (tx) => {
      const appended = await append(tx, run.id, 'committed');
      insideTransaction = notices().slice(before);
      return appended;
    });
    expect(insideTransaction).toEqual([]);
    expect(notices().slice(before)).toEqual([`${org.org.id}:${event.sequence}`]);
    await feed.count(2, 'the committed event');
    expect(feed.items[1]).toMatchObject({ sequence: String(event.sequence), metadata: { step: 'committed' } });

    for (const message of notices()) {
      expect(message).toMatch(/^[0-9a-f-]{36}:\d+$/);
      expect(Buffer.byteLength(message)).toBeLessThan(8000);
    }
  });

  test('a rolled-back append is never announced nor delivered', async () => {
    const run = await newRun(app.em(), org, { status: 'running' });
    const feed = runEvents(connect(app.wsUrl, org.keys.admin).client, run.id, '0');
    await feed.count(1, 'run.created');
    const before = notices().length;
    await expect(
      app.em().transactional(async (tx) => {
        await append(tx, run.id, 'rolled back');
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(notices().slice(before)).toEqual([]);

    const kept = await app.em().transactional((tx) => append(tx, run.id, 'kept'));
    await feed.count(2, 'the next committed event');
    expect(feed.items.map((e) => e.metadata.step ?? e.type)).toEqual(['run.created', 'kept']);
    expect(feed.items[1].sequence).toBe(String(kept.sequence));
  });

  test('an append inside a nested transaction (savepoint) is announced once the outer transaction commits', async () => {
    const run = await newRun(app.em(), org, { status: 'running' });
    const head = await ledgerHead(app, org.org.id);
    const feed = runEvents(connect(app.wsUrl, org.keys.expert).client, run.id, head);
    const before = notices().length;
    let inner = '';
    await app.em().transactional(async (outer) => {
      await outer.transactional(async (tx) => {
        inner = String((await append(tx, run.id, 'nested')).sequence);
      });
      expect(notices().slice(before)).toEqual([]); // not before the outer commit
    });
    expect(notices().slice(before)).toEqual([`${org.org.id}:${inner}`]);
    await feed.count(1, 'the nested append');
    expect(feed.items[0].sequence).toBe(inner);
  });
});

describe('token deltas', () => {
  test('text too large for one notice is split (each message under the limit) and arrives whole, in order', async () => {
    const run = await newRun(app.em(), org, { status: 'running' });
    const emit = (offset: number, text: string) => app.services.runEvents.emit('token', { orgId: org.org.id, runId: run.id, offset, text });
    // A first small delta: once the subscriber has it, its listener is attached.
    emit(0, 'Hi ');
    const feed = tokens(connect(app.wsUrl, org.keys.expert).client, run.id);
    await feed.until((f) => joined(f.items) === 'Hi ', 'the first delta');

    // Twenty deltas, each too large for one notice (multi-byte: more bytes than characters).
    const big = Array.from({ length: 20 }, (_, i) => `[${i}] ${'Grüße € 😀 '.repeat(1200)}`);
    const before = published.length;
    let offset = 3;
    for (const text of big) {
      emit(offset, text);
      offset += text.length;
    }
    await feed.until((f) => reaches(f.items, offset), 'the end of the text');

    const messages = published
      .slice(before)
      .filter((p) => p.channel === 'tokens')
      .map((p) => p.message);
    expect(messages.length).toBeGreaterThan(2);
    for (const message of messages) expect(Buffer.byteLength(message)).toBeLessThanOrEqual(MAX_BUS_MESSAGE_BYTES);
    // The pieces, in offset order, without gaps: the text as the model wrote it.
    expect(gaps(feed.items)).toEqual([]);
    expect(joined(feed.items)).toBe(['Hi ', ...big].join(''));
    expect(app.services.realtime!.tokens.snapshot(run.id)).toEqual({ start: 0, text: ['Hi ', ...big].join('') });
  });
});

describe('the streaming node', () => {
  test("its own subscribers get its deltas without the bus's round trip, and its messages coming back are skipped (a retraction is not applied twice)", async () => {
    const run = await newRun(app.em(), org, { status: 'running' });
    const realtime = app.services.realtime!;
    const emit = (offset: number, text: string, retract?: boolean) =>
      app.services.runEvents.emit('token', { orgId: org.org.id, runId: run.id, offset, text, ...(retract ? { retract } : {}) });
    const feed = retractingTokens(connect(app.wsUrl, org.keys.expert).client, run.id);
    await waitUntil(() => realtime.tokens.listenerCount(run.id) === 1, 'the subscription to listen');
    heldTokens = [];
    // The first delta of an attempt retracts from its offset; nothing of it reaches the bus yet.
    emit(0, 'Hello ', true);
    await feed.until((f) => appliedText(f.items) === 'Hello ', 'the first delta, from this node');
    emit(6, 'world');
    await feed.until((f) => appliedText(f.items) === 'Hello world', 'the second delta, from this node');
    const held = heldTokens;
    heldTokens = null;
    expect(held.length).toBe(2);
    // This node's listener hears what the bus brings back, after the relay (subscribed first) did.
    const heard: string[] = [];
    const unsubscribe = await realtime.bus.subscribe('tokens', (message) => {
      if ((JSON.parse(message) as { runId: string }).runId === run.id) heard.push(message);
    });
    try {
      // The bus brings both back: the first, applied again, would cut "world" (and a later one add it back).
      for (const send of held) await send();
      await waitUntil(() => heard.length === 2, 'both messages back from the bus');
    } finally {
      await unsubscribe();
    }
    expect(realtime.tokens.snapshot(run.id)).toEqual({ start: 0, text: 'Hello world' });
    expect(realtime.tokens.generation(run.id)).toBe(0);
    emit(11, '!');
    await feed.until((f) => appliedText(f.items) === 'Hello world!', 'a later delta');
    expect(feed.items.every((item) => item.retractFrom === null)).toBe(true);
  });
});

describe('retractions', () => {
  test('a retraction crosses the bus: the node cuts its buffer and tells its subscribers; a replacing delta is never spliced behind the old text', async () => {
    const run = await newRun(app.em(), org, { status: 'running' });
    const bus = app.services.realtime!.bus;
    const publish = (event: { offset: number; text: string; retract?: boolean }) =>
      bus.publish('tokens', JSON.stringify({ orgId: org.org.id, runId: run.id, ...event }));
    await publish({ offset: 0, text: 'Hello, your order was ' });
    const feed = retractingTokens(connect(app.wsUrl, org.keys.expert).client, run.id);
    await feed.until((f) => appliedText(f.items) === 'Hello, your order was ', 'the first text');

    // The first delta of an attempt that replaces a lost one (a step run again on another node) retracts from its offset.
    await publish({ offset: 7, text: 'order #12345 shipped', retract: true });
    await feed.until((f) => appliedText(f.items) === 'Hello, order #12345 shipped', 'the replacing text');
    expect(feed.items.at(-1)).toMatchObject({ offset: '7', retractFrom: '7', text: 'order #12345 shipped' });

    // A retraction alone (a failed stream's text discarded before its retry).
    await publish({ offset: 7, text: '', retract: true });
    await feed.until((f) => appliedText(f.items) === 'Hello, ', 'the retraction');
    expect(feed.items.at(-1)).toEqual({ runId: run.id, offset: '7', text: '', retractFrom: '7' });
    expect(app.services.realtime!.tokens.snapshot(run.id)).toEqual({ start: 0, text: 'Hello, ' });
    // A subscriber that never saw the discarded text is told nothing about it.
    const late = tokens(connect(app.wsUrl, org.keys.expert).client, run.id);
    await late.until((f) => joined(f.items) === 'Hello, ', 'the text, late');
    expect(late.items).toEqual([{ runId: run.id, offset: '0', text: 'Hello, ' }]);
  });
});

describe('order and cancellation', () => {
  test('a delta that arrives ahead of a missing one is held until the gap fills: the text arrives whole, in order', async () => {
    const run = await newRun(app.em(), org, { status: 'running' });
    const bus = app.services.realtime!.bus;
    const publish = (offset: number, text: string) => bus.publish('tokens', JSON.stringify({ orgId: org.org.id, runId: run.id, offset, text }));
    await publish(0, 'Hello ');
    const feed = tokens(connect(app.wsUrl, org.keys.expert).client, run.id);
    await feed.until((f) => joined(f.items) === 'Hello ', 'the first delta');

    // Out of order on the bus (as two publishing connections could deliver them).
    await publish(12, 'third ');
    await publish(6, 'second');
    await feed.until((f) => reaches(f.items, 18), 'the reordered deltas');
    expect(gaps(feed.items)).toEqual([]);
    expect(joined(feed.items)).toBe('Hello secondthird ');
    expect(app.services.realtime!.tokens.snapshot(run.id)).toEqual({ start: 0, text: 'Hello secondthird ' });
  });

  test('a subscription the client ends while nothing is happening releases its listener at once', async () => {
    const run = await newRun(app.em(), org, { status: 'running' });
    const realtime = app.services.realtime!;
    const { client } = connect(app.wsUrl, org.keys.admin);
    const quietTokens = tokens(client, run.id);
    const quietEvents = runEvents(client, run.id, null);
    const listening = () => [realtime.tokens.listenerCount(run.id), realtime.ledger.listenerCount(org.org.id)];
    await waitUntil(() => listening().every((n) => n === 1), 'both listeners to be attached');
    quietTokens.stop();
    quietEvents.stop();
    await waitUntil(() => listening().every((n) => n === 0), 'both listeners to be released');
  });
});

/** Polls a condition of the server's state (bounded, no fixed sleep as the assertion). */
async function waitUntil(check: () => boolean, what: string): Promise<void> {
  let waiting = true;
  try {
    await bounded(
      (async () => {
        while (waiting && !check()) await new Promise((resolve) => setTimeout(resolve, 10));
      })(),
      what,
    );
  } finally {
    waiting = false;
  }
}

describe('bus selection (as the server starts it)', () => {
  test.each([
    ['REDIS_URL set', 'redis', { redisUrl: 'redis://127.0.0.1:6379', eventBus: undefined }],
    ['neither set', 'postgres', { redisUrl: undefined, eventBus: undefined }],
    ['REDIS_URL and EVENT_BUS=postgres', 'postgres', { redisUrl: 'redis://127.0.0.1:6379', eventBus: 'postgres' as const }],
    ['EVENT_BUS=in-process', 'in-process', { redisUrl: undefined, eventBus: 'in-process' as const }],
  ])('%s → %s', async (_name, kind, settings) => {
    const bus = await createEventBus({ ...app.config, ...settings }, app.db.url, app.services.logger);
    try {
      expect(bus.kind).toBe(kind);
    } finally {
      await bus.close();
    }
  });
});
