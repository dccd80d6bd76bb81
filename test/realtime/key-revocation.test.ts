import { performance } from 'node:perf_hooks';
import { startTestApp, type TestApp } from '../support/app';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { ManualClock } from '../support/clock';
import { newOrg, type TestOrg } from '../support/factories';
import type { Client } from 'graphql-ws';
import { openSocket, runOverSocket, textOf, type SocketOutcome } from '../support/graphql-http';
import { CreateApiKeyDocument, RevokeApiKeyDocument, ViewerDocument } from '../../gql/graphql';
import { createKey } from '../../src/orgs/org.service';
import { resumeOrg, suspendOrg } from '../../src/orgs/org-suspension.service';
import { publishWithdrawal } from '../../src/auth/key-access';
import { CLOSE_REASONS } from '../../src/realtime/socket-access';
import { PostgresBus } from '../../src/realtime/postgres-bus';
import { RedisBus } from '../../src/realtime/redis-bus';
import { createLogger } from '../../src/support/logger';
import { START_AGENT_RUN } from '../support/documents';
import { approvals, bounded, closeSockets, connect, type Socket } from './realtime-helpers';

/**
 * A key's access ends on its open websockets too: every operation (query, mutation,
 * subscription) runs only for a key valid at that moment, and a revocation, an expiry or a
 * suspension closes the key's sockets with 4403 — on the node that made it at once (< 1 s),
 * on other nodes over the event bus (< 5 s). Waits are on close events, never on time.
 */
afterEach(async () => closeSockets());

/** Sockets held open here, disposed after each test. */
const eager: Client[] = [];
afterEach(async () => {
  await Promise.all(eager.splice(0).map((client) => client.dispose()));
});

async function connected(wsUrl: string, key: string): Promise<Socket> {
  const socket = await openSocket(wsUrl, key);
  eager.push(socket.client);
  return socket;
}

function expectRefused(outcome: SocketOutcome): void {
  // The socket is closed before the operation's error could be sent; either is a refusal.
  if (outcome.kind === 'closed') expect(outcome.code).toBe(4403);
  else expect(outcome).toMatchObject({ kind: 'error', errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] });
}

async function runCount(app: TestApp, orgId: string): Promise<number> {
  const [row] = await app.em().execute<{ n: string }[]>('select count(*) as n from agent_runs where org_id = ?', [orgId]);
  return Number(row.n);
}

describe('one node', () => {
  const clock = new ManualClock();
  let app: TestApp;
  let owner: TestOrg;
  let other: TestOrg;

  beforeAll(async () => {
    app = await startTestApp({}, { accessClock: clock });
    owner = await newOrg(app.em(), 'Socket Keys Org');
    other = await newOrg(app.em(), 'Other Socket Org');
  });
  afterAll(async () => {
    await closeSockets();
    await app?.close();
  });

  const startRun = (socket: Socket) =>
    runOverSocket(socket.client, {
      query: textOf(START_AGENT_RUN),
      variables: { input: { specialistId: owner.specialist.id, driver: 'EXTERNAL' } },
    });

  test('a mutation sent after a revocation nobody announced does not run: the key is checked per operation and the socket closes 4403', async () => {
    const key = await createKey(app.em(), owner.org.id, 'agent');
    const socket = await connected(app.wsUrl, key.secret);
    // While valid, the mutation runs on the socket.
    expect(await startRun(socket)).toMatchObject({ kind: 'result', result: { data: { startAgentRun: { id: expect.any(String) } } } });
    const before = await runCount(app, owner.org.id);

    // Revoked in the database only, as if this node had missed the announcement.
    await app.em().execute('update api_keys set revoked_at = now() where id = ?', [key.id]);
    expectRefused(await startRun(socket));
    expect(await bounded(socket.closed, 'the close')).toEqual({ code: 4403, reason: CLOSE_REASONS.revoked });
    expect(await runCount(app, owner.org.id)).toBe(before);
  });

  test("revokeApiKey closes every socket of the key with 4403 within 1 s and ends its subscriptions; the org's other keys keep theirs", async () => {
    const key = await createKey(app.em(), owner.org.id, 'expert');
    const first = await connected(app.wsUrl, key.secret);
    const second = await connected(app.wsUrl, key.secret);
    const feed = approvals(first.client, 'expert');
    const bystander = await connected(app.wsUrl, owner.keys.expert);

    const started = performance.now();
    const res = await app.gql(RevokeApiKeyDocument, { key: owner.keys.admin, variables: { id: key.id } });
    expect(res.body.errors).toBeUndefined();
    const closes = await Promise.all([bounded(first.closed, 'the first socket to close'), bounded(second.closed, 'the second socket to close')]);
    const elapsed = performance.now() - started;
    expect(closes).toEqual([
      { code: 4403, reason: CLOSE_REASONS.revoked },
      { code: 4403, reason: CLOSE_REASONS.revoked },
    ]);
    expect(elapsed).toBeLessThan(1000);
    console.log(`revocation on one node: both sockets closed ${elapsed.toFixed(1)} ms after revokeApiKey was sent`);
    await feed.end('the subscription to end');
    expect((feed.error as { code?: number }).code).toBe(4403);

    expect(await runOverSocket(bystander.client, { query: textOf(ViewerDocument) })).toMatchObject({ kind: 'result' });
  });

  test('an expiring key works until its time and its socket closes 4403 when the access clock reaches it', async () => {
    const expiresAt = new Date(clock.now() + 120_000).toISOString();
    const created = await app.gql(CreateApiKeyDocument, { key: owner.keys.admin, variables: { role: 'client', expiresAt } });
    const secret = created.body.data!.createApiKey.secret;
    const socket = await connected(app.wsUrl, secret);

    clock.advance(119_999);
    expect(await runOverSocket(socket.client, { query: textOf(ViewerDocument) })).toMatchObject({ kind: 'result' });
    clock.advance(1);
    expect(await bounded(socket.closed, 'the close at expiry')).toEqual({ code: 4403, reason: CLOSE_REASONS.expired });
    // And a new connection with it is refused.
    const again = connect(app.wsUrl, secret);
    expectRefused(await runOverSocket(again.client, { query: textOf(ViewerDocument) }));
  });

  test("suspending the org closes its keys' sockets (4403), refuses new ones and every operation; other orgs keep theirs; resume restores", async () => {
    const admin = await connected(app.wsUrl, owner.keys.admin);
    const client = await connected(app.wsUrl, owner.keys.client);
    const outsider = await connected(app.wsUrl, other.keys.client);

    await suspendOrg(app.em(), owner.org.id, 'test');
    try {
      // What `toolgate org suspend` does after its commit: one message on the bus.
      await publishWithdrawal(app.services.realtime.bus, { orgId: owner.org.id });
      for (const socket of [admin, client]) {
        expect(await bounded(socket.closed, 'the close')).toEqual({ code: 4403, reason: CLOSE_REASONS.suspended });
      }
      const refused = connect(app.wsUrl, owner.keys.client);
      expectRefused(await runOverSocket(refused.client, { query: textOf(ViewerDocument) }));
      expect(await runOverSocket(outsider.client, { query: textOf(ViewerDocument) })).toMatchObject({ kind: 'result' });
    } finally {
      await resumeOrg(app.em(), owner.org.id);
    }
    await connected(app.wsUrl, owner.keys.client);
  });
});

describe.each(['postgres', 'redis'] as const)('two nodes on one database, %s bus', (bus) => {
  let db: TestDatabase;
  let node1: TestApp;
  let node2: TestApp;
  let owner: TestOrg;

  beforeAll(async () => {
    db = await createTestDatabase();
    node1 = await startTestApp({}, { database: db, eventBus: bus });
    node2 = await startTestApp({}, { database: db, eventBus: bus });
    owner = await newOrg(node1.em(), 'Two Node Keys Org');
  });
  afterAll(async () => {
    await closeSockets();
    await node1?.close();
    await node2?.close();
    await db?.drop();
  });

  test('a key revoked on node 1 has its sockets on node 2 closed with 4403 within 5 s', async () => {
    const key = await createKey(node1.em(), owner.org.id, 'expert');
    const onNode2 = await connected(node2.wsUrl, key.secret);
    const onNode1 = await connected(node1.wsUrl, key.secret);

    const started = performance.now();
    const res = await node1.gql(RevokeApiKeyDocument, { key: owner.keys.admin, variables: { id: key.id } });
    expect(res.body.errors).toBeUndefined();
    const [local, remote] = await Promise.all([
      bounded(onNode1.closed, 'the socket on node 1 to close'),
      bounded(onNode2.closed, 'the socket on node 2 to close'),
    ]);
    const elapsed = performance.now() - started;
    expect(local).toEqual({ code: 4403, reason: CLOSE_REASONS.revoked });
    expect(remote).toEqual({ code: 4403, reason: CLOSE_REASONS.revoked });
    expect(elapsed).toBeLessThan(5000);
    console.log(`[${bus} bus] revocation on node 1: sockets closed ${elapsed.toFixed(1)} ms after revokeApiKey was sent (both nodes)`);
  });

  test("a suspension announced by another process (as `toolgate org suspend` does) closes the org's sockets on both nodes", async () => {
    const sockets = [await connected(node1.wsUrl, owner.keys.client), await connected(node2.wsUrl, owner.keys.agent)];
    await suspendOrg(node1.em(), owner.org.id, null);
    const logger = createLogger(node1.config);
    const cli =
      bus === 'postgres' ? new PostgresBus(db.url, logger) : await RedisBus.connect(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', logger);
    try {
      const started = performance.now();
      await publishWithdrawal(cli, { orgId: owner.org.id });
      const closes = await Promise.all(sockets.map((s, i) => bounded(s.closed, `the socket on node ${i + 1} to close`)));
      expect(performance.now() - started).toBeLessThan(5000);
      expect(closes).toEqual([
        { code: 4403, reason: CLOSE_REASONS.suspended },
        { code: 4403, reason: CLOSE_REASONS.suspended },
      ]);
    } finally {
      await cli.close();
      await resumeOrg(node1.em(), owner.org.id);
    }
  });
});
