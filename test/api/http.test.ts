import { startTestApp, type TestApp } from '../support/app';
import { newOrg, type TestOrg } from '../support/factories';
import { documentId, get, post, runOverSocket, socket, textOf, type RawResponse } from '../support/graphql-http';
import { SetFeatureFlagDocument, ViewerDocument } from '../../gql/graphql';

// GraphQL over HTTP (graphql/graphql-over-http): media types, GET for queries only, status
// codes; and the production profile (NODE_ENV=production). Bodies are raw on purpose (broken,
// invalid, introspection, batches); a valid operation is the typed Viewer document's text.
let app: TestApp;
let owner: TestOrg;

beforeAll(async () => {
  app = await startTestApp();
  owner = await newOrg(app.em(), 'HTTP Org');
});
afterAll(async () => app?.close());

const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json; charset=utf-8';
const APPLICATION_JSON = 'application/json; charset=utf-8';
const PREFLIGHT = { 'apollo-require-preflight': 'true' };
const code = (res: RawResponse) => res.body.errors?.[0]?.extensions?.code;
const viewer = textOf(ViewerDocument);

describe('media types', () => {
  test.each([
    ['no Accept', undefined, GRAPHQL_RESPONSE_JSON],
    ['*/*', '*/*', GRAPHQL_RESPONSE_JSON],
    ['graphql-response+json', 'application/graphql-response+json', GRAPHQL_RESPONSE_JSON],
    ['application/json', 'application/json', APPLICATION_JSON],
    ['both, json preferred', 'application/json, application/graphql-response+json;q=0.9', APPLICATION_JSON],
    ['both, graphql-response preferred', 'application/graphql-response+json, application/json;q=0.9', GRAPHQL_RESPONSE_JSON],
  ])('%s → %s', async (_label, accept, expected) => {
    const res = await post(app.url, { query: viewer }, { key: owner.keys.admin, headers: accept ? { accept } : {} });
    expect([res.status, res.contentType]).toEqual([200, expected]);
    expect(res.body.data?.viewer.role).toBe('admin');
  });

  test('an Accept with neither type is 406', async () => {
    const res = await post(app.url, { query: viewer }, { key: owner.keys.admin, headers: { accept: 'text/csv' } });
    expect(res.status).toBe(406);
  });

  test('a POST that is not application/json is 415', async () => {
    const res = await post(app.url, `query=${encodeURIComponent(viewer)}`, {
      key: owner.keys.admin,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect([res.status, code(res)]).toEqual([415, 'BAD_REQUEST']);
  });
});

describe('status codes with application/graphql-response+json', () => {
  test.each([
    ['a parse error', { query: '{ viewer ' }, 400, 'GRAPHQL_PARSE_FAILED'],
    ['a validation error', { query: '{ viewer { nope } }' }, 400, 'GRAPHQL_VALIDATION_FAILED'],
    ['an unknown operationName', { query: viewer, operationName: 'Nope' }, 400, 'OPERATION_RESOLUTION_FAILURE'],
    [
      'a variable of the wrong type',
      { query: 'query($first: Int) { runs(first: $first) { totalCount } }', variables: { first: 'ten' } },
      400,
      'BAD_USER_INPUT',
    ],
    ['no query', { variables: {} }, 400, 'BAD_REQUEST'],
    ['an unknown APQ hash', { extensions: { persistedQuery: { version: 1, sha256Hash: 'e'.repeat(64) } } }, 400, 'PERSISTED_QUERY_NOT_FOUND'],
    // Subscriptions live on graphql-ws; over HTTP they are refused with their code (an INTERNAL_SERVER_ERROR before).
    ['a subscription', { query: 'subscription { approvalRequests { sequence } }' }, 400, 'SUBSCRIPTION_OVER_HTTP'],
  ])('%s is %d %s without data', async (_label, body, status, expected) => {
    const res = await post(app.url, body, { key: owner.keys.admin });
    expect([res.status, code(res), res.contentType]).toEqual([status, expected, GRAPHQL_RESPONSE_JSON]);
    expect(res.body).not.toHaveProperty('data');
  });

  test('malformed JSON is 400 BAD_REQUEST', async () => {
    const res = await post(app.url, '{"query": ', { key: owner.keys.admin });
    expect([res.status, code(res), res.contentType]).toEqual([400, 'BAD_REQUEST', GRAPHQL_RESPONSE_JSON]);
  });

  test('a field error during execution is 200 with data', async () => {
    const res = await post(app.url, { query: '{ ledgerEvents { totalCount } }' }, { key: owner.keys.client });
    expect([res.status, code(res), res.body.data]).toEqual([200, 'FORBIDDEN', null]);
  });

  test('no key is 401 with WWW-Authenticate naming the OAuth metadata (RFC 9728)', async () => {
    const res = await post(app.url, { query: viewer });
    const metadata = `${app.services.identity.publicUrl}/.well-known/oauth-protected-resource/graphql`;
    expect([res.status, code(res), res.headers.get('www-authenticate')]).toEqual([401, 'UNAUTHENTICATED', `Bearer resource_metadata="${metadata}"`]);
  });
});

describe('caching', () => {
  // Answers are per key and change with every call: no cache may keep them.
  test('every answer Apollo Server gives is Cache-Control: no-store', async () => {
    const answers = [
      await post(app.url, { query: viewer }, { key: owner.keys.admin }),
      await get(app.url, { query: viewer }, { key: owner.keys.admin, headers: PREFLIGHT }),
      await post(app.url, { query: '{ ledgerEvents { totalCount } }' }, { key: owner.keys.client }),
      await post(app.url, { query: '{ viewer { nope } }' }, { key: owner.keys.admin }),
      await post(app.url, { query: '{ viewer ' }, { key: owner.keys.admin, headers: { accept: 'application/json' } }),
    ];
    expect(answers.map((res) => [res.status, res.headers.get('cache-control')])).toEqual([
      [200, 'no-store'],
      [200, 'no-store'],
      [200, 'no-store'],
      [400, 'no-store'],
      [200, 'no-store'],
    ]);
  });
});

describe('status codes with application/json (legacy clients)', () => {
  const headers = { accept: 'application/json' };

  test.each([
    ['a parse error', { query: '{ viewer ' }, 'GRAPHQL_PARSE_FAILED'],
    ['a validation error', { query: '{ viewer { nope } }' }, 'GRAPHQL_VALIDATION_FAILED'],
    [
      'a variable of the wrong type',
      { query: 'query($first: Int) { runs(first: $first) { totalCount } }', variables: { first: 'ten' } },
      'BAD_USER_INPUT',
    ],
    ['an unknown documentId', { documentId: `sha256:${'3'.repeat(64)}` }, 'PERSISTED_QUERY_NOT_FOUND'],
    ['a limit', { query: `{ viewer { ${'role '.repeat(1001)} } }` }, 'TOO_MANY_TOKENS'],
  ])('%s is 200 %s (a well-formed request)', async (_label, body, expected) => {
    const res = await post(app.url, body, { key: owner.keys.admin, headers });
    expect([res.status, code(res), res.contentType]).toEqual([200, expected, APPLICATION_JSON]);
  });

  test('HTTP-level refusals keep their status', async () => {
    expect((await post(app.url, { query: viewer }, { headers })).status).toBe(401);
    expect((await post(app.url, '{"query": ', { key: owner.keys.admin, headers })).status).toBe(400);
    expect((await post(app.url, [{ query: viewer }], { key: owner.keys.admin, headers })).status).toBe(400);
  });
});

describe('GET is for queries only', () => {
  test('a query by GET runs (with a CSRF preflight header)', async () => {
    const res = await get(app.url, { query: viewer }, { key: owner.keys.admin, headers: PREFLIGHT });
    expect([res.status, res.body.data?.viewer.role]).toEqual([200, 'admin']);
  });

  test('a GET without a non-simple header is refused as a possible CSRF', async () => {
    const res = await get(app.url, { query: viewer }, { key: owner.keys.admin });
    expect([res.status, code(res)]).toEqual([400, 'BAD_REQUEST']);
    expect(res.body.errors![0].message).toMatch(/Cross-Site Request Forgery/);
  });

  test('a mutation by GET is 405 with Allow: POST, as text or by documentId, and writes nothing', async () => {
    const variables = { key: 'tool_calling_enabled', enabled: true };
    const asText = await get(app.url, { query: textOf(SetFeatureFlagDocument), variables }, { key: owner.keys.admin, headers: PREFLIGHT });
    expect([asText.status, asText.headers.get('allow')]).toEqual([405, 'POST']);
    const byId = await get(app.url, { documentId: documentId(SetFeatureFlagDocument), variables }, { key: owner.keys.admin, headers: PREFLIGHT });
    expect([byId.status, byId.headers.get('allow')]).toEqual([405, 'POST']);
    const [row] = await app.em().execute<{ n: string }[]>('select count(*) as n from feature_flags where org_id = ?', [owner.org.id]);
    expect(Number(row.n)).toBe(0);

    const byPost = await post(app.url, { documentId: documentId(SetFeatureFlagDocument), variables }, { key: owner.keys.admin });
    expect(byPost.body.data?.setFeatureFlag).toMatchObject({ key: 'tool_calling_enabled', enabled: true });
  });

  test('other methods are 405', async () => {
    const res = await fetch(app.url, {
      method: 'PUT',
      headers: { authorization: `Bearer ${owner.keys.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: viewer }),
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, POST');
  });
});

describe('the production profile (NODE_ENV=production)', () => {
  let prod: TestApp;
  let prodOwner: TestOrg;
  beforeAll(async () => {
    prod = await startTestApp({ NODE_ENV: 'production' });
    prodOwner = await newOrg(prod.em(), 'Prod Org');
  });
  afterAll(async () => prod?.close());

  test('introspection is off, over HTTP and websockets', async () => {
    const res = await post(prod.url, { query: '{ __schema { queryType { name } } }' }, { key: prodOwner.keys.admin });
    expect([res.status, code(res)]).toEqual([400, 'GRAPHQL_VALIDATION_FAILED']);
    const typeQuery = await post(prod.url, { query: '{ __type(name: "Query") { name } }' }, { key: prodOwner.keys.admin });
    expect(code(typeQuery)).toBe('GRAPHQL_VALIDATION_FAILED');
    // __typename is not introspection.
    expect((await post(prod.url, { query: '{ __typename }' }, { key: prodOwner.keys.admin })).body.data).toEqual({ __typename: 'Query' });

    const ws = socket(prod.wsUrl, prodOwner.keys.admin);
    try {
      const outcome = await runOverSocket(ws.client, { query: '{ __schema { queryType { name } } }' });
      expect(outcome.kind === 'error' && outcome.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    } finally {
      await ws.close();
    }
  });

  test('no field or enum suggestions (they would spell out the schema)', async () => {
    const field = await post(prod.url, { query: '{ viewer { rol } }' }, { key: prodOwner.keys.admin });
    expect(code(field)).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(field.body.errors![0].message).not.toMatch(/Did you mean/);
    const enumValue = await post(
      prod.url,
      { query: 'query($s: RunStatus) { runs(filter: { status: $s }) { totalCount } }', variables: { s: 'runnin' } },
      { key: prodOwner.keys.admin },
    );
    expect(code(enumValue)).toBe('BAD_USER_INPUT');
    expect(enumValue.body.errors![0].message).not.toMatch(/Did you mean/);

    const ws = socket(prod.wsUrl, prodOwner.keys.admin);
    try {
      const outcome = await runOverSocket(ws.client, { query: '{ viewer { rol } }' });
      expect(outcome.kind === 'error' && outcome.errors[0].message).not.toMatch(/Did you mean/);
    } finally {
      await ws.close();
    }
  });

  test('outside production the suggestions help', async () => {
    const field = await post(app.url, { query: '{ viewer { rol } }' }, { key: owner.keys.admin });
    expect(field.body.errors![0].message).toMatch(/Did you mean "role"/);
  });

  test('no stack traces, CSRF prevention on, no landing page', async () => {
    const broken = await post(prod.url, { query: '{ viewer { ' }, { key: prodOwner.keys.admin });
    expect(JSON.stringify(broken.body)).not.toMatch(/stacktrace|\bat .+\.(ts|js):\d+/);
    const csrf = await get(prod.url, { query: viewer }, { key: prodOwner.keys.admin });
    expect([csrf.status, code(csrf)]).toEqual([400, 'BAD_REQUEST']);
    const page = await fetch(prod.url, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(406);
    expect(await page.text()).not.toMatch(/<html/i);
  });
});
