import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../support/app';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { newOrg, type TestOrg } from '../support/factories';
import WebSocket from 'ws';
import { createClient, type Client } from 'graphql-ws';
import { get, post, runOverSocket, textOf, type RawResponse, type SocketOutcome } from '../support/graphql-http';
import { graphql } from '../gql';
import { TcpProxy } from '../support/tcp-proxy';

/**
 * A database outage on a real PostgreSQL: the app's only way to its database is a TCP
 * proxy the test cuts (open connections closed, new ones reset) and restores. While it is
 * cut, every request answers 503 SERVICE_UNAVAILABLE with Retry-After — whether the key
 * lookup or a resolver meets the outage — websockets get SERVICE_UNAVAILABLE or close with
 * 1013; once it is restored, the same requests succeed again, without a restart.
 */

const UNAVAILABLE_BODY = {
  errors: [{ message: 'The service is temporarily unavailable; retry later', extensions: { code: 'SERVICE_UNAVAILABLE' } }],
};
/** Nothing of the driver, the host or the SQL reaches a client. */
const INTERNALS = /127\.0\.0\.1|ECONN|terminated|timeout|select |api_keys|feature_flags|stack|Internal server error/i;

// Sent over raw HTTP and sockets (status codes, headers, partial data), as the typed documents' text.
const VIEWER = textOf(
  graphql(`
    query OutageViewer {
      viewer { role org { id name } }
    }
  `),
);
const SET_FLAG = textOf(
  graphql(`
    mutation OutageFlag($key: String!) {
      setFeatureFlag(key: $key, enabled: true) { key enabled }
    }
  `),
);

const proxy = new TcpProxy();
let db: TestDatabase;
let app: TestApp;
let owner: TestOrg;
let origin: string;

beforeAll(async () => {
  db = await createTestDatabase();
  // The app (ORM pool, key lookups, resolvers) reaches its database through the proxy only;
  // the test database itself is made and dropped directly.
  app = await startTestApp({}, { database: await proxy.proxy(db), captureLogs: true });
  owner = await newOrg(app.em(), 'Outage Org');
  origin = new URL(app.url).origin;
});
afterEach(() => proxy.resume());
afterAll(async () => {
  await app?.close();
  await proxy.stop();
  await db?.drop();
});

interface Sent {
  response: RawResponse;
  correlationId: string;
}

async function send(query: string, options: { key?: string; variables?: Record<string, unknown>; accept?: string } = {}): Promise<Sent> {
  const correlationId = `outage-${randomUUID()}`;
  const headers: Record<string, string> = { 'x-correlation-id': correlationId };
  if (options.accept) headers.accept = options.accept;
  const response = await post(app.url, { query, variables: options.variables ?? {} }, { key: options.key ?? owner.keys.admin, headers });
  return { response, correlationId };
}

function expectUnavailable({ response }: Sent, mediaType = 'application/graphql-response+json'): void {
  expect({ status: response.status, body: response.body }).toEqual({ status: 503, body: UNAVAILABLE_BODY });
  expect(response.headers.get('retry-after')).toBe('2');
  expect(response.contentType).toContain(mediaType);
  expect(response.text).not.toMatch(INTERNALS);
}

/** The pino lines (parsed) logged under one correlation id. */
function logsOf(correlationId: string): { level: number; msg: string; [key: string]: unknown }[] {
  return app.logs.map((line) => JSON.parse(line)).filter((entry) => entry.correlationId === correlationId);
}

/** Exactly one warn line for the 503, nothing at error level, and no stack. */
function expectLoggedOnceAtWarn(correlationId: string, during: string): void {
  const lines = logsOf(correlationId);
  const warnings = lines.filter((entry) => entry.level === 40);
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatchObject({ msg: 'database unavailable: answered 503 SERVICE_UNAVAILABLE', during });
  expect(JSON.stringify(warnings[0])).not.toMatch(/"stack"|\n\s+at /);
  expect(lines.filter((entry) => entry.level >= 50)).toEqual([]);
}

/**
 * Cuts the proxy right after the ORM has the result of the next statement `matching`: the
 * request is past that point (e.g. authenticated), and what follows meets the outage.
 * (The ORM logs each statement once it has its result; the test app records them.)
 */
function cutAfterNext(matching: RegExp): void {
  const statements = app.statements as string[] & { push: (...items: string[]) => number };
  statements.push = (...items: string[]): number => {
    const length = Array.prototype.push.apply(statements, items);
    if (items.some((sql) => matching.test(sql))) {
      delete (statements as Partial<typeof statements>).push;
      proxy.pause();
    }
    return length;
  };
}

const KEY_LOOKUP = /from api_keys/;
/**
 * A transaction's BEGIN. (Cut right after the key lookup instead, a mutation's BEGIN can be
 * sent on a connection whose end the driver has not read yet; knex swallows that BEGIN's
 * error and the next statement fails "Transaction query already complete", with no cause
 * to tell an outage from a bug: that one stays an internal error.)
 */
const BEGIN = /\bbegin\b/i;

test('before the outage: a query and a mutation succeed', async () => {
  const query = await send(VIEWER);
  expect(query.response.status).toBe(200);
  expect(query.response.body).toEqual({ data: { viewer: { role: 'admin', org: { id: owner.org.id, name: 'Outage Org' } } } });
  const mutation = await send(SET_FLAG, { variables: { key: 'before_outage' } });
  expect(mutation.response.body).toEqual({ data: { setFeatureFlag: { key: 'before_outage', enabled: true } } });
  expect((await fetch(`${origin}/readyz`)).status).toBe(200);
});

describe('the database cut before the request: the key lookup meets the outage', () => {
  beforeEach(() => proxy.pause());

  test('a query answers 503 SERVICE_UNAVAILABLE with Retry-After, on both media types', async () => {
    const sent = await send(VIEWER);
    expectUnavailable(sent);
    expectLoggedOnceAtWarn(sent.correlationId, 'authentication');
    expectUnavailable(await send(VIEWER, { accept: 'application/json' }), 'application/json');
  });

  test('a GET query too', async () => {
    const response = await get(app.url, { query: VIEWER }, { key: owner.keys.admin, headers: { 'apollo-require-preflight': 'true' } });
    expectUnavailable({ response, correlationId: '' });
  });

  test('a mutation answers 503, and nothing was written', async () => {
    const sent = await send(SET_FLAG, { variables: { key: 'during_outage' } });
    expectUnavailable(sent);
    expectLoggedOnceAtWarn(sent.correlationId, 'authentication');
    proxy.resume();
    const flags = await app.em().execute<{ key: string }[]>('select key from feature_flags where org_id = ?', [owner.org.id]);
    expect(flags.map((f) => f.key)).not.toContain('during_outage');
  });

  test('an unknown key answers 503, not 401: its lookup could not be made', async () => {
    const sent = await send(VIEWER, { key: 'tg_admin_not-a-key-that-exists' });
    expectUnavailable(sent);
    expect(sent.response.headers.get('www-authenticate')).toBeNull();
  });

  test('/readyz answers 503 with Retry-After', async () => {
    const response = await fetch(`${origin}/readyz`);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('2');
    expect(await response.json()).toEqual({ status: 'database_unreachable' });
  });
});

describe('the database cut during the request: a resolver meets the outage', () => {
  test('a query: the whole response is 503 (no partial data), on both media types', async () => {
    for (const accept of ['application/graphql-response+json', 'application/json']) {
      cutAfterNext(KEY_LOOKUP);
      const sent = await send(VIEWER, { accept });
      expect(proxy.isPaused).toBe(true); // cut after the lookup, so execution met it
      expectUnavailable(sent, accept);
      expectLoggedOnceAtWarn(sent.correlationId, 'execution');
      proxy.resume();
    }
  });

  test('a mutation, inside its transaction', async () => {
    cutAfterNext(BEGIN);
    const sent = await send(SET_FLAG, { variables: { key: 'cut_mid_request' } });
    expect(proxy.isPaused).toBe(true);
    expectUnavailable(sent);
    expectLoggedOnceAtWarn(sent.correlationId, 'execution');
  });
});

test('restored: the same requests succeed again, without a restart', async () => {
  expect(proxy.isPaused).toBe(false);
  const query = await send(VIEWER);
  expect(query.response.status).toBe(200);
  expect(query.response.body).toEqual({ data: { viewer: { role: 'admin', org: { id: owner.org.id, name: 'Outage Org' } } } });
  const mutation = await send(SET_FLAG, { variables: { key: 'after_outage' } });
  expect(mutation.response.status).toBe(200);
  expect(mutation.response.body).toEqual({ data: { setFeatureFlag: { key: 'after_outage', enabled: true } } });
  const unknownKey = await send(VIEWER, { key: 'tg_admin_not-a-key-that-exists' });
  expect(unknownKey.response.status).toBe(401);
  expect(unknownKey.response.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  expect((await fetch(`${origin}/readyz`)).status).toBe(200);
});

describe('websockets', () => {
  const opened: Client[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((client) => client.dispose()));
  });
  /** A graphql-ws client whose socket, once open, stays open between operations. */
  function open(key: string): { client: Client } {
    const client = createClient({
      url: app.wsUrl,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      lazyCloseTimeout: 60_000,
      connectionParams: { authorization: `Bearer ${key}` },
    });
    opened.push(client);
    return { client };
  }

  test('an operation on an open socket fails with SERVICE_UNAVAILABLE; a new socket is closed with 1013; both work once restored', async () => {
    const live = open(owner.keys.admin);
    const ok = (outcome: SocketOutcome) =>
      expect(outcome).toEqual({
        kind: 'result',
        result: { data: { viewer: { role: 'admin', org: { id: owner.org.id, name: 'Outage Org' } } } },
      });
    ok(await runOverSocket(live.client, { query: VIEWER }));

    proxy.pause();
    for (const payload of [{ query: VIEWER }, { query: SET_FLAG, variables: { key: 'socket_outage' } }]) {
      // Refused before it runs: every operation re-checks the key, which needs the database.
      const outcome = await runOverSocket(live.client, payload);
      expect(outcome.kind).toBe('error');
      if (outcome.kind !== 'error') return;
      expect(outcome.errors.map((e) => e.extensions?.code)).toEqual(['SERVICE_UNAVAILABLE']);
      expect(outcome.errors[0]?.message).toBe('The service is temporarily unavailable; retry later');
      expect(JSON.stringify(outcome.errors)).not.toMatch(INTERNALS);
    }

    const refused = open(owner.keys.admin);
    const closed = await runOverSocket(refused.client, { query: VIEWER });
    expect(closed).toEqual({ kind: 'closed', code: 1013, reason: 'Try again later: the service is temporarily unavailable' });

    proxy.resume();
    ok(await runOverSocket(live.client, { query: VIEWER }));
    ok(await runOverSocket(open(owner.keys.admin).client, { query: VIEWER }));
  });
});

test('nothing during the outage was logged at error level', () => {
  const entries = app.logs.map((line) => JSON.parse(line) as { level: number; msg: string });
  expect(entries.filter((entry) => entry.level >= 50)).toEqual([]);
  expect(entries.filter((entry) => entry.msg === 'database unavailable: answered 503 SERVICE_UNAVAILABLE').length).toBeGreaterThan(0);
});
