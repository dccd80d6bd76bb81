import WebSocket from 'ws';
import type { ExecutionResult } from 'graphql';
import { startTestApp, type TestApp } from '../support/app';
import { newOrg, newRun, type TestOrg } from '../support/factories';
import type { AgentRun } from '../../src/runs/agent-run.entity';
import { SubscriptionFanout } from '../../src/realtime/subscription-fanout';
import { GraphQLWsConnection } from '../../src/realtime/graphql-ws-server';
import { RUN_EVENTS, bounded, commitRunEvents, ledgerHead } from './realtime-helpers';
import { print } from 'graphql';

/**
 * Group delivery as the client sees it on the wire: a ledger subscription's group writes
 * the shared JSON into each member's own graphql-ws `next` frame (only the id differs), a
 * member completed by its client stops alone, and a member resuming from the past joins
 * the live group without a gap or a duplicate.
 */
let app: TestApp;
let org: TestOrg;
const QUERY = print(RUN_EVENTS);

beforeAll(async () => {
  app = await startTestApp();
  org = await newOrg(app.em(), 'Group Org');
});
afterAll(async () => app?.close());

const commit = (run: AgentRun, count: number) => commitRunEvents(app, org.org.id, run.id, count, (i) => ({ i, text: 'é ✓' }));

/** A graphql-transport-ws client that keeps every frame's raw text. */
class RawSocket {
  readonly frames: string[] = [];
  private readonly waiters = new Set<() => void>();

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data, isBinary) => {
      expect(isBinary).toBe(false);
      this.frames.push(String(data));
      for (const waiter of [...this.waiters]) waiter();
    });
  }

  static async open(key: string): Promise<RawSocket> {
    const socket = new WebSocket(app.wsUrl, 'graphql-transport-ws');
    await bounded(new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject)), 'the socket to open');
    const raw = new RawSocket(socket);
    socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${key}` } }));
    await raw.until(() => raw.messages().some((m) => m.type === 'connection_ack'), 'connection_ack');
    return raw;
  }

  subscribe(id: string, runId: string, after: string | null): void {
    this.socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query: QUERY, variables: { runId, after } } }));
  }

  complete(id: string): void {
    this.socket.send(JSON.stringify({ id, type: 'complete' }));
  }

  messages(): { id?: string; type: string; payload?: { data?: { runEvents: { sequence: string } } } }[] {
    return this.frames.map((f) => JSON.parse(f));
  }

  sequences(id: string): string[] {
    return this.messages().flatMap((m) => (m.id === id && m.type === 'next' ? [m.payload!.data!.runEvents.sequence] : []));
  }

  until(check: () => boolean, what: string): Promise<void> {
    return bounded(
      new Promise<void>((resolve) => {
        const test = () => {
          if (!check()) return;
          this.waiters.delete(test);
          resolve();
        };
        this.waiters.add(test);
        test();
      }),
      what,
    );
  }

  close(): void {
    this.socket.close();
  }
}

async function untilLive(count: number): Promise<void> {
  await bounded(
    (async () => {
      while (app.fanout.liveLedgerMembers() < count) await new Promise((resolve) => setTimeout(resolve, 10));
    })(),
    `${count} live subscriptions`,
  );
}

test('one group writes graphql-ws frames that differ only by id; a completed member stops alone; a member resuming from the past joins without gap or duplicate', async () => {
  const run = await newRun(app.em(), org, { status: 'running' });
  const created = await ledgerHead(app, org.org.id);
  const odd = 'b"\\✓'; // an id that JSON must escape
  const one = await RawSocket.open(org.keys.expert);
  const two = await RawSocket.open(org.keys.expert);
  one.subscribe('a', run.id, null);
  one.subscribe(odd, run.id, null);
  two.subscribe('c', run.id, created);
  await untilLive(3);
  expect(app.services.realtime!.ledger.listenerCount(org.org.id)).toBe(1);

  const before = app.fanout.counts();
  const first = await commit(run, 2);
  await one.until(() => one.sequences('a').length === 2 && one.sequences(odd).length === 2, 'both events on socket one');
  await two.until(() => two.sequences('c').length === 2, 'both events on socket two');
  expect(app.fanout.counts().executions - before.executions).toBe(2);
  expect(app.fanout.counts().sharedSends - before.sharedSends).toBe(6);

  // Byte for byte graphql-ws's frame ({"id","type","payload"}), the payload shared.
  const nexts = [...one.frames, ...two.frames].map((f) => [f, JSON.parse(f)] as const).filter(([, m]) => m.type === 'next');
  expect(nexts).toHaveLength(6);
  for (const [frame, message] of nexts) {
    expect(frame).toBe(JSON.stringify({ id: message.id, type: 'next', payload: message.payload }));
  }
  const payloadsOf = (id: string, socket: RawSocket) =>
    socket.frames.filter((f) => JSON.parse(f).id === id).map((f) => f.slice(f.indexOf('"payload":')));
  expect(payloadsOf(odd, one)).toEqual(payloadsOf('a', one));
  expect(payloadsOf('c', two)).toEqual(payloadsOf('a', one));
  expect(one.sequences('a')).toEqual(first);

  // The client completes "a": the rest of the group, on the same socket too, goes on.
  one.complete('a');
  await untilLive(2);
  // A member resuming from before the run joins while events keep coming.
  two.subscribe('d', run.id, String(BigInt(created) - 1n));
  const second = [...(await commit(run, 3)), ...(await commit(run, 2))];
  await one.until(() => one.sequences(odd).length === 7, 'the later events on socket one');
  await two.until(() => two.sequences('c').length === 7 && two.sequences('d').length === 8, 'the later events on socket two');
  expect(one.sequences('a')).toEqual(first);
  expect(one.sequences(odd)).toEqual([...first, ...second]);
  expect(two.sequences('c')).toEqual([...first, ...second]);
  expect(two.sequences('d')).toEqual([created, ...first, ...second]);
  expect([...one.messages(), ...two.messages()].filter((m) => m.type === 'error' || m.type === 'complete')).toEqual([]);
  expect(app.services.realtime!.ledger.listenerCount(org.org.id)).toBe(1);

  one.close();
  two.close();
  await bounded(
    (async () => {
      while (app.services.realtime!.ledger.listenerCount(org.org.id) > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    })(),
    'the group to stop following the ledger',
  );
});

test('a token result shared by more members than any bound reaches every one of them (graphql-ws runs all their onNext before the sends), each marker once', async () => {
  const fanout = new SubscriptionFanout();
  const result: ExecutionResult = { data: { runTokens: { runId: 'r', offset: '0', text: 'hi ✓' } } };
  fanout.shareResult(result);
  const sent: string[] = [];
  const socket = {
    protocol: 'graphql-transport-ws',
    readyState: 1,
    bufferedAmount: 0,
    send: (text: string, done?: () => void) => {
      sent.push(text);
      done?.();
    },
  };
  const connection = new GraphQLWsConnection(socket as unknown as WebSocket);
  // 10,001 members' onNext first, then their sends.
  const frames = Array.from({ length: 10_001 }, (_, i) =>
    JSON.stringify({ id: String(i), type: 'next', payload: connection.sharedPayload(fanout.sharedJson(result)!) }),
  );
  for (const frame of frames) await connection.send(frame);
  expect(sent).toEqual(frames.map((_, i) => JSON.stringify({ id: String(i), type: 'next', payload: result })));
  expect(fanout.counts().sharedSends).toBe(10_001);
  // A marker stands for one send: sent again, it fails loudly and never sends another's text.
  expect(() => connection.send(frames[0])).toThrow(/twice/);
});

test('a fan-out longer than one turn of the event loop (300 members) gives every member each event once and in order, members resuming from the past joining meanwhile', async () => {
  const run = await newRun(app.em(), org, { status: 'running' });
  const created = await ledgerHead(app, org.org.id);
  const before = String(BigInt(created) - 1n);
  const sockets = await Promise.all([0, 1, 2].map(() => RawSocket.open(org.keys.expert)));
  const alreadyLive = app.fanout.liveLedgerMembers();
  const live = Array.from({ length: 300 }, (_, i) => ({ id: `live-${i}`, socket: sockets[i % 3] }));
  for (const { id, socket } of live) socket.subscribe(id, run.id, null);
  await untilLive(alreadyLive + live.length);

  // Five commits of 20 events back to back (the group's batches: one or several of them),
  // and while each is delivered, ten members resuming from before the run join.
  const committed: string[] = [];
  const resuming: { id: string; socket: RawSocket }[] = [];
  for (let b = 0; b < 5; b++) {
    const commitment = commit(run, 20);
    for (let j = 0; j < 10; j++) {
      const member = { id: `resume-${b}-${j}`, socket: sockets[j % 3] };
      member.socket.subscribe(member.id, run.id, before);
      resuming.push(member);
    }
    committed.push(...(await commitment));
  }
  const expectedNexts = (socket: RawSocket) =>
    live.filter((m) => m.socket === socket).length * committed.length + resuming.filter((m) => m.socket === socket).length * (committed.length + 1);
  await bounded(
    (async () => {
      const nexts = (socket: RawSocket) => socket.frames.filter((f) => f.includes('"type":"next"')).length;
      while (sockets.some((s) => nexts(s) < expectedNexts(s))) await new Promise((resolve) => setTimeout(resolve, 20));
    })(),
    'every event at every member',
    30_000,
  );
  const received = new Map<string, string[]>();
  const others: unknown[] = [];
  for (const message of sockets.flatMap((s) => s.messages())) {
    if (message.type === 'next') {
      const sequences = received.get(message.id!) ?? [];
      sequences.push(message.payload!.data!.runEvents.sequence);
      received.set(message.id!, sequences);
    } else if (message.type !== 'connection_ack') others.push(message);
  }
  for (const { id } of live) expect(received.get(id)).toEqual(committed);
  for (const { id } of resuming) expect(received.get(id)).toEqual([created, ...committed]);
  expect(others).toEqual([]);
  for (const socket of sockets) socket.close();
});
