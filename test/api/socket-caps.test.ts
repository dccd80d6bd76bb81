import type { Client } from 'graphql-ws';
import { startTestApp, type TestApp } from '../support/app';
import { newOrg, newRun, type TestOrg } from '../support/factories';
import { createKey } from '../../src/orgs/org.service';
import { openSocket, type CloseInfo } from '../support/graphql-http';

/**
 * Fair-use caps on graphql-ws (issue 29, item 3), counted on this node: sockets per key
 * (2 here) and per org (3), running subscriptions per key (2) and per org (3). One over a
 * cap is refused with its code; a freed slot can be used again.
 */
let app: TestApp;
const clients: Client[] = [];

beforeAll(async () => {
  app = await startTestApp({
    WS_MAX_SOCKETS_PER_KEY: '2',
    WS_MAX_SOCKETS_PER_ORG: '3',
    WS_MAX_SUBSCRIPTIONS_PER_KEY: '2',
    WS_MAX_SUBSCRIPTIONS_PER_ORG: '3',
  });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.dispose()));
});
afterAll(async () => app?.close());

async function open(key: string): Promise<{ client: Client; closed: Promise<CloseInfo> }> {
  const opened = await openSocket(app.wsUrl, key);
  clients.push(opened.client);
  return opened;
}

/** Disposes a socket and waits for its close (the server counts it out on the same close). */
async function closeSocket(socket: { client: Client; closed: Promise<CloseInfo> }): Promise<void> {
  await socket.client.dispose();
  await socket.closed;
}

const keyOf = async (owner: TestOrg, role: 'admin' | 'expert' = 'expert') => (await createKey(app.em(), owner.org.id, role)).secret;

describe('sockets', () => {
  test('per key: the third socket of a key is closed 4429 SOCKET_LIMIT; a closed one frees its slot', async () => {
    const owner = await newOrg(app.em());
    const key = await keyOf(owner);
    const first = await open(key);
    await open(key);
    await expect(open(key)).rejects.toThrow(/4429 SOCKET_LIMIT: this API key already holds 2 sockets/);
    await closeSocket(first);
    await expect(open(key)).resolves.toBeDefined();
  });

  test('per org: a fourth socket of the org, from another key, is closed 4429 SOCKET_LIMIT', async () => {
    const owner = await newOrg(app.em());
    const [a, b] = [await keyOf(owner), await keyOf(owner)];
    await open(a);
    await open(a);
    const third = await open(b);
    await expect(open(b)).rejects.toThrow(/4429 SOCKET_LIMIT: this organization already holds 3 sockets/);
    // Another org is not affected.
    await expect(open(await keyOf(await newOrg(app.em())))).resolves.toBeDefined();
    await closeSocket(third);
    await expect(open(b)).resolves.toBeDefined();
  });
});

/** How a subscription began: its first event arrived (it is live), or the server refused it. */
type Began = { kind: 'live' } | { kind: 'refused'; code: string; message: string };

/**
 * A run's events from the start: the replayed `run.created` arrives at once, so a live
 * subscription is seen to be admitted. `stop` is the client's complete.
 */
function subscribeRun(client: Client, runId: string): { began: Promise<Began>; stop: () => void } {
  let stop!: () => void;
  const began = new Promise<Began>((resolve) => {
    stop = client.subscribe(
      { query: 'subscription($runId: ID!) { runEvents(runId: $runId, afterSequence: "0") { sequence } }', variables: { runId } },
      {
        next: () => resolve({ kind: 'live' }),
        error: (error) => {
          const first = (error as { message: string; extensions?: { code?: string } }[])[0];
          resolve({ kind: 'refused', code: first?.extensions?.code ?? String(error), message: first?.message ?? '' });
        },
        complete: () => undefined,
      },
    );
  });
  return { began, stop };
}

const LIVE = { kind: 'live' };
const refused = (whose: RegExp) => ({ kind: 'refused', code: 'SUBSCRIPTION_LIMIT', message: expect.stringMatching(whose) });

describe('subscriptions', () => {
  test('per key: the third is refused SUBSCRIPTION_LIMIT; a completed one frees its slot', async () => {
    const owner = await newOrg(app.em());
    const run = await newRun(app.em(), owner);
    const { client } = await open(await keyOf(owner));
    const first = subscribeRun(client, run.id);
    expect(await first.began).toEqual(LIVE);
    expect(await subscribeRun(client, run.id).began).toEqual(LIVE);
    expect(await subscribeRun(client, run.id).began).toEqual(refused(/API key already holds 2 subscriptions/));
    first.stop(); // the client's complete: the server ends it and gives its slot back
    expect(await subscribeRun(client, run.id).began).toEqual(LIVE);
    expect(await subscribeRun(client, run.id).began).toEqual(refused(/API key already holds 2 subscriptions/));
  });

  test('per org: a fourth subscription of the org, from another key, is refused; a closed socket frees its slots', async () => {
    const owner = await newOrg(app.em());
    const run = await newRun(app.em(), owner);
    const a = await open(await keyOf(owner));
    const { client: b } = await open(await keyOf(owner, 'admin'));
    expect(await subscribeRun(a.client, run.id).began).toEqual(LIVE);
    expect(await subscribeRun(a.client, run.id).began).toEqual(LIVE);
    expect(await subscribeRun(b, run.id).began).toEqual(LIVE);
    expect(await subscribeRun(b, run.id).began).toEqual(refused(/organization already holds 3 subscriptions/));
    // Another org is not affected.
    const other = await newOrg(app.em());
    const { client: elsewhere } = await open(await keyOf(other));
    expect(await subscribeRun(elsewhere, (await newRun(app.em(), other)).id).began).toEqual(LIVE);
    await closeSocket(a); // both of a's subscriptions end with their socket
    expect(await subscribeRun(b, run.id).began).toEqual(LIVE);
  });
});
