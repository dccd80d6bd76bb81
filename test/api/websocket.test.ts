import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { createClient, type Client, type FormattedExecutionResult } from 'graphql-ws';
import { startTestApp, type TestApp } from '../support/app';
import { newOrg, type TestOrg } from '../support/factories';
import { ApiKey } from '../../src/auth/api-key.entity';
import { createKey } from '../../src/orgs/org.service';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { graphql } from '../gql';
import { SetFeatureFlagDocument } from '../../gql/graphql';
import { socket, textOf, type CloseInfo } from '../support/graphql-http';

let app: TestApp;
let owner: TestOrg;
const clients: Client[] = [];

beforeAll(async () => {
  app = await startTestApp();
  owner = await newOrg(app.em(), 'Socket Org');
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.dispose()));
});
afterAll(async () => app?.close());

const TIMEOUT_MS = 5000;

/** Rejects when `promise` has not settled within the bound; the timer never outlives it. */
function bounded<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A real graphql-ws client with these connection params (closed after each test). */
function connect(connectionParams?: Record<string, unknown>): { client: Client; closed: Promise<CloseInfo> } {
  const { client, closed } = socket(app.wsUrl, null, { connectionParams });
  clients.push(client);
  return { client, closed };
}

type Outcome<R> = { ok: true; result: FormattedExecutionResult<R, unknown> } | { ok: false; error: unknown };

/** Runs one typed operation over the socket (as its text); settles on complete or on error (e.g. a close event). */
function run<R, V>(client: Client, document: TypedDocumentNode<R, V>, variables?: V): Promise<Outcome<R>> {
  return bounded(
    new Promise<Outcome<R>>((resolve) => {
      let result: FormattedExecutionResult<R, unknown> | undefined;
      client.subscribe<R, unknown>(
        { query: textOf(document), variables: variables as Record<string, unknown> | undefined },
        {
          next: (value) => {
            result = value;
          },
          error: (error) => resolve({ ok: false, error }),
          complete: () => resolve(result ? { ok: true, result } : { ok: false, error: new Error('no result') }),
        },
      );
    }),
    'an operation over the socket',
  );
}

const VIEWER = graphql(`
  query SocketViewer {
    viewer { org { id } role }
  }
`);

describe('an authenticated socket', () => {
  test('answers viewer with the org and role of the key', async () => {
    const { client } = connect({ authorization: `Bearer ${owner.keys.admin}` });
    const outcome = await run(client, VIEWER);
    expect(outcome).toEqual({ ok: true, result: { data: { viewer: { org: { id: owner.org.id }, role: 'admin' } } } });
  });

  test.each(['expert', 'client', 'partner', 'agent'] as const)('reports the %s role', async (role) => {
    const { client } = connect({ authorization: `Bearer ${owner.keys[role]}` });
    const outcome = await run(client, VIEWER);
    expect(outcome.ok && outcome.result.data?.viewer).toEqual({ org: { id: owner.org.id }, role });
  });

  test('two sockets of two orgs each see their own org', async () => {
    const other = await newOrg(app.em(), 'Other Socket Org');
    const a = connect({ authorization: `Bearer ${owner.keys.client}` });
    const b = connect({ authorization: `Bearer ${other.keys.client}` });
    const [ra, rb] = await Promise.all([run(a.client, VIEWER), run(b.client, VIEWER)]);
    expect(ra.ok && ra.result.data?.viewer.org.id).toBe(owner.org.id);
    expect(rb.ok && rb.result.data?.viewer.org.id).toBe(other.org.id);
  });

  test('role checks apply over the socket too', async () => {
    const { client } = connect({ authorization: `Bearer ${owner.keys.agent}` });
    const outcome = await run(client, SetFeatureFlagDocument, { key: 'tool_calling_enabled', enabled: true });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.result.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const [row] = await app.em().execute<{ n: string }[]>('select count(*) as n from feature_flags where org_id = ?', [owner.org.id]);
    expect(Number(row.n)).toBe(0);
  });

  test('the socket stays open across operations', async () => {
    const { client } = connect({ authorization: `Bearer ${owner.keys.admin}` });
    for (let i = 0; i < 3; i++) {
      const outcome = await run(client, VIEWER);
      expect(outcome.ok && outcome.result.data?.viewer.role).toBe('admin');
    }
  });
});

describe('an unauthenticated socket is closed with 4403', () => {
  async function expectForbiddenClose(connectionParams?: Record<string, unknown>): Promise<void> {
    const { client, closed } = connect(connectionParams);
    const outcome = await run(client, VIEWER);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect((outcome.error as CloseInfo).code).toBe(4403);
    const event = await bounded(closed, 'the close event');
    expect(event.code).toBe(4403);
  }

  test('no connection params', async () => {
    await expectForbiddenClose(undefined);
  });

  test('params without authorization', async () => {
    await expectForbiddenClose({ token: owner.keys.admin });
  });

  test('an unknown key', async () => {
    await expectForbiddenClose({ authorization: `Bearer tg_admin_${randomBytes(24).toString('base64url')}` });
  });

  test('a malformed authorization', async () => {
    await expectForbiddenClose({ authorization: 'Basic xyz' });
  });

  test('a bare key, without the Bearer scheme', async () => {
    await expectForbiddenClose({ authorization: owner.keys.agent });
  });

  test('a non-string authorization', async () => {
    await expectForbiddenClose({ authorization: { bearer: owner.keys.admin } });
  });

  test('a revoked key', async () => {
    const issued = await createKey(app.em(), owner.org.id, 'expert');
    const em = app.em();
    const row = await em.findOneOrFail(ApiKey, { id: issued.id });
    row.revokedAt = new Date();
    await em.flush();
    await expectForbiddenClose({ authorization: `Bearer ${issued.secret}` });
  });

  test('with lazy: false the connection itself is refused', async () => {
    let onClosed!: (event: CloseInfo) => void;
    const closed = new Promise<CloseInfo>((resolve) => {
      onClosed = resolve;
    });
    let nonLazyError: unknown;
    const client = createClient({
      url: app.wsUrl,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      lazy: false,
      connectionParams: { authorization: 'Bearer nope' },
      onNonLazyError: (error) => {
        nonLazyError = error;
      },
      on: { closed: (event) => onClosed(event as CloseInfo) },
    });
    clients.push(client);
    const event = await bounded(closed, 'the close event');
    expect(event.code).toBe(4403);
    expect((nonLazyError as CloseInfo | undefined)?.code ?? 4403).toBe(4403);
  });
});
