import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { createClient, type Client } from 'graphql-ws';
import { latencyStats } from './stats';
import type { CollectReply, FleetMessage, FleetResponse, FleetVariant, OpenReply, Publication } from './ws-fleet-protocol';

/**
 * The subscribers of the subscriptions scenario, in a process of their own (forked by
 * ws-fleet.ts) so that the bench process's CPU and memory are the server's. It holds N
 * graphql-ws clients (the real `graphql-ws` client over `ws`, one socket and one
 * subscription each) and N raw `ws` sockets, and records when each frame arrived.
 */
const now = (): number => performance.timeOrigin + performance.now();
const OPEN_BATCH = 50;

const gqlClients: { client: Client; closed: Promise<void> }[] = [];
const rawSockets: WebSocket[] = [];
let errors = 0;
let firstError: string | null = null;

interface Recording {
  variant: FleetVariant;
  ids: number[];
  times: number[];
  cpu: NodeJS.CpuUsage;
  /** When recording began (this process's clock). */
  startedAt: number;
  wake: (() => void) | null;
  /** Bytes of the first frame recorded, as sent. */
  frameBytes: number;
}
let recording: Recording | null = null;

function frame(variant: FleetVariant, id: number, bytes: () => number): void {
  const rec = recording;
  if (!rec || rec.variant !== variant) return;
  if (rec.ids.length === 0) rec.frameBytes = bytes();
  rec.ids.push(id);
  rec.times.push(now());
  rec.wake?.();
}

function failed(what: string, error: unknown): void {
  errors += 1;
  firstError ??= `${what}: ${error instanceof Error ? error.message : JSON.stringify(error)}`;
}

/** A graphql-ws `next` message's size as sent (graphql-ws ids are UUIDs; the payload as received). */
function gqlFrameBytes(result: unknown): number {
  return Buffer.byteLength(JSON.stringify({ id: '00000000-0000-4000-8000-000000000000', type: 'next', payload: result }));
}

async function inBatches(count: number, open: (i: number) => Promise<void>): Promise<void> {
  for (let i = 0; i < count; i += OPEN_BATCH) {
    await Promise.all(Array.from({ length: Math.min(OPEN_BATCH, count - i) }, (_, j) => open(i + j)));
  }
}

/** N graphql-ws connections, each acknowledged (connection_init → connection_ack), no subscription yet. */
async function openGql(url: string, key: string, count: number): Promise<OpenReply> {
  const started = performance.now();
  await inBatches(count, async () => {
    let onClosed!: () => void;
    let onConnected!: () => void;
    let closedWith = '';
    const closed = new Promise<void>((resolve) => (onClosed = resolve));
    const connected = new Promise<void>((resolve) => (onConnected = resolve));
    const client = createClient({
      url,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      lazy: false,
      connectionParams: { authorization: `Bearer ${key}` },
      on: {
        connected: () => onConnected(),
        closed: (event) => {
          const { code, reason } = event as { code?: number; reason?: string };
          closedWith = `${code ?? '?'} ${reason ?? ''}`.trim();
          onClosed();
        },
      },
      onNonLazyError: (error) => failed('connection', error),
    });
    gqlClients.push({ client, closed });
    await Promise.race([
      connected,
      closed.then(() => Promise.reject(new Error(`connection closed before its ack (close ${closedWith})${firstError ? ` (${firstError})` : ''}`))),
    ]);
  });
  return { opened: count, ms: performance.now() - started, frameBytes: 0 };
}

/** One subscription on each open graphql-ws connection, each live once its first event (the replay of the newest one) arrived. */
async function subscribeGql(query: string, variables: Record<string, unknown>, field: string): Promise<OpenReply> {
  const started = performance.now();
  let frameBytes = 0;
  await inBatches(gqlClients.length, async (i) => {
    const { client } = gqlClients[i];
    await new Promise<void>((resolve, reject) => {
      let live = false;
      client.subscribe<Record<string, { sequence: string }>>(
        { query, variables },
        {
          next: (result) => {
            const item = result.data?.[field];
            if (!live) {
              live = true;
              frameBytes ||= gqlFrameBytes(result);
              resolve();
              return;
            }
            if (item) frame('gql', Number(item.sequence), () => gqlFrameBytes(result));
            else failed('next without data', result.errors);
          },
          error: (error) => {
            failed('subscription error', error);
            reject(new Error(`subscription failed: ${error instanceof Error ? error.message : JSON.stringify(error)}`));
          },
          complete: () => {
            if (!live) reject(new Error('subscription completed before its first event'));
          },
        },
      );
    });
  });
  return { opened: gqlClients.length, ms: performance.now() - started, frameBytes };
}

async function openRaw(url: string, count: number): Promise<OpenReply> {
  const started = performance.now();
  let frameBytes = 0;
  await inBatches(count, async () => {
    const socket = new WebSocket(url);
    rawSockets.push(socket);
    socket.on('message', (data: Buffer) => {
      frameBytes ||= data.length;
      try {
        const message = JSON.parse(data.toString('utf8')) as { payload: { data: { runEvents: { sequence: string } } } };
        frame('raw', Number(message.payload.data.runEvents.sequence), () => data.length);
      } catch (error) {
        failed('raw frame', error);
      }
    });
    socket.on('error', (error) => failed('raw socket', error));
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
  });
  return { opened: count, ms: performance.now() - started, frameBytes };
}

async function collect(variant: FleetVariant, publishes: Publication[], timeoutMs: number): Promise<CollectReply> {
  const rec = recording;
  if (!rec || rec.variant !== variant) throw new Error(`not recording ${variant}`);
  const clients = variant === 'gql' ? gqlClients.length : rawSockets.length;
  const expected = publishes.length * clients;
  const published = new Map<number, Publication>(publishes.map((p) => [p.id, p]));
  const scheduled = publishes.every((p) => p.scheduledAt !== null);
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, timeoutMs);
    function done() {
      clearTimeout(timer);
      rec!.wake = null;
      resolve();
    }
    rec.wake = () => {
      if (rec.ids.length >= expected) done();
    };
    rec.wake();
  });
  recording = null;
  const cpu = process.cpuUsage(rec.cpu);
  const wallMs = now() - rec.startedAt;
  const fromPublish: number[] = [];
  const fromSchedule: number[] = [];
  let strays = 0;
  let lastReceipt = Number.NaN;
  for (let i = 0; i < rec.ids.length; i++) {
    const event = published.get(rec.ids[i]);
    if (event === undefined) {
      strays += 1;
      continue;
    }
    fromPublish.push(rec.times[i] - event.publishedAt);
    if (scheduled && event.scheduledAt !== null) fromSchedule.push(rec.times[i] - event.scheduledAt);
    if (!(rec.times[i] <= lastReceipt)) lastReceipt = rec.times[i];
  }
  const firstPublish = Math.min(...publishes.map((p) => p.publishedAt));
  return {
    expected,
    received: fromPublish.length,
    strays,
    errors,
    firstError,
    fromPublish: latencyStats(fromPublish),
    fromSchedule: scheduled ? latencyStats(fromSchedule) : null,
    firstPublish,
    lastReceipt,
    cpuMs: (cpu.user + cpu.system) / 1000,
    wallMs,
    frameBytes: rec.frameBytes,
  };
}

async function closeAll(): Promise<void> {
  const gql = gqlClients.splice(0);
  for (const { client } of gql) void client.dispose();
  await closeRaw(gql.map((g) => g.closed));
}

/** Closes the raw sockets (and waits for `also`), terminating what has not closed within 10 s. */
async function closeRaw(also: Promise<void>[] = []): Promise<void> {
  const raw = rawSockets.splice(0);
  const rawClosed = raw.map((socket) =>
    socket.readyState === WebSocket.CLOSED ? Promise.resolve() : new Promise<void>((resolve) => socket.once('close', () => resolve())),
  );
  for (const socket of raw) socket.close();
  const all = Promise.all([...also, ...rawClosed]);
  let timer: NodeJS.Timeout | undefined;
  const late = await Promise.race([all.then(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), 10_000)))]);
  clearTimeout(timer);
  if (late) for (const socket of raw) socket.terminate();
}

async function handle(message: FleetMessage): Promise<unknown> {
  const r = message.request;
  switch (r.cmd) {
    case 'clock':
      return { now: now() };
    case 'open-gql':
      return openGql(r.url, r.key, r.count);
    case 'subscribe-gql':
      return subscribeGql(r.query, r.variables, r.field);
    case 'open-raw':
      return openRaw(r.url, r.count);
    case 'record':
      recording = { variant: r.variant, ids: [], times: [], cpu: process.cpuUsage(), startedAt: now(), wake: null, frameBytes: 0 };
      return null;
    case 'collect':
      return collect(r.variant, r.publishes, r.timeoutMs);
    case 'close-raw':
      await closeRaw();
      return null;
    case 'close':
      await closeAll();
      return null;
  }
}

process.on('message', (message: FleetMessage) => {
  handle(message).then(
    (result) => send({ id: message.id, ok: true, result }),
    (error: unknown) => send({ id: message.id, ok: false, error: error instanceof Error ? error.message : String(error) }),
  );
});

// The bench process went away (or is done): close what is open and let the process end.
process.on('disconnect', () => void closeAll());

function send(response: FleetResponse): void {
  if (process.connected) process.send!(response);
}
