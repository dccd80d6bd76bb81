import { print } from 'graphql';
import { useDemoApp, type DemoApp } from '../support/demo-fixture';
import { post, type RawResponse } from '../support/graphql-http';
import { EXECUTE_TOOL_CALL } from '../support/documents';
import { createKey } from '../../src/orgs/org.service';

/**
 * executeToolCall over HTTP answers the same on the lighter route (src/api/http/tool-call-route.ts,
 * GRAPHQL_TOOL_CALL_ROUTE on) and through Apollo Server (off): the same requests go to a server
 * of each kind, each on its own database with the demo org, and every answer must match in
 * status, the header fields that matter and body (ids aside, which differ between databases).
 * The on-server's debug log shows which answers the route served, so the comparison is not
 * Apollo against itself.
 */
const SETTINGS = { RATE_LIMIT_POINTS: '200', GRAPHQL_MAX_COST: '200', RATE_LIMIT_POINTS_PER_SECOND: '1', TRUSTED_DOCUMENT_ROLES: 'partner' };
const on = useDemoApp({ ...SETTINGS, GRAPHQL_TOOL_CALL_ROUTE: 'true' }, { captureLogs: true, trustedDocuments: true });
const off = useDemoApp({ ...SETTINGS, GRAPHQL_TOOL_CALL_ROUTE: 'false' }, { trustedDocuments: true });

const EXECUTE = print(EXECUTE_TOOL_CALL);
const COMPARED_HEADERS = ['content-type', 'cache-control', 'retry-after', 'www-authenticate', 'x-correlation-id'];
const UNKNOWN_RUN = '00000000-0000-4000-8000-000000000000';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

interface Exchange {
  /** The request's body (a function of the server's run id), or its raw text. */
  body: (runId: string) => unknown;
  key?: 'agent' | 'viewer' | 'partner' | 'none' | 'bad';
  headers?: Record<string, string>;
}

let runs: { on: string; off: string };
beforeAll(async () => {
  runs = { on: (await on.gw.startRun()).id, off: (await off.gw.startRun()).id };
});

let calls = 0;
const input = (runId: string, extra: Record<string, unknown> = {}) => ({
  runId,
  correlationId: `call-${++calls}`,
  toolName: 'order_lookup',
  action: 'lookup',
  params: { orderId: '12345' },
  ...extra,
});

let sequence = 0;
async function send(demo: DemoApp, runId: string, exchange: Exchange, correlationId: string): Promise<RawResponse> {
  const key =
    exchange.key === 'none'
      ? undefined
      : exchange.key === 'bad'
        ? 'tg_live_notakey'
        : exchange.key === 'viewer'
          ? demo.seed.keys.client
          : exchange.key === 'partner'
            ? demo.seed.keys.partner
            : demo.seed.keys.agent;
  return post(demo.app.url, exchange.body(runId), { key, headers: { 'x-correlation-id': correlationId, ...exchange.headers } });
}

/**
 * What must match: status, the compared header fields, the body with ids masked. The budget's
 * numbers (RateLimit's r and t, Retry-After) move with the refill clock between two servers:
 * their fields must be there on both, with the same policy.
 */
function view(response: RawResponse, runId: string) {
  const headers = Object.fromEntries(COMPARED_HEADERS.map((name) => [name, response.headers.get(name)]));
  if (headers['retry-after'] !== null) headers['retry-after'] = '<seconds>';
  headers['www-authenticate'] &&= headers['www-authenticate'].replace(/localhost:\d+/, 'localhost:<port>');
  const rateLimit = Object.fromEntries(
    [...response.headers].filter(([name]) => name.startsWith('ratelimit')).map(([name, value]) => [name, value.replace(/([rt])=\d+/g, '$1=#')]),
  );
  return { status: response.status, headers, rateLimit, body: response.text.replaceAll(runId, '<run>').replace(UUID, '<id>') };
}

/** Sends the exchange to both servers; answers the on-server's view after asserting the off-server's is the same. */
async function same(exchange: Exchange) {
  const correlationId = `route-${++sequence}`;
  const [a, b] = await Promise.all([send(on, runs.on, exchange, correlationId), send(off, runs.off, exchange, correlationId)]);
  const seen = view(a, runs.on);
  expect(seen).toEqual(view(b, runs.off));
  return { ...seen, routed: servedByRoute(correlationId) };
}

function servedByRoute(correlationId: string): boolean {
  return on.app.logs.some((line) => line.includes(`"correlationId":"${correlationId}"`) && line.includes('"route":"tool-call"'));
}

const execute =
  (extra: Record<string, unknown> = {}, variables?: unknown) =>
  (runId: string) => ({
    query: EXECUTE,
    variables: variables ?? { input: input(runId, extra) },
  });

describe('executeToolCall answers the same on the lighter route and through Apollo Server', () => {
  test('an allowed call that succeeds, in either media type', async () => {
    const answer = await same({ body: execute() });
    expect(answer).toMatchObject({ status: 200, routed: true, headers: { 'cache-control': 'no-store' } });
    expect(answer.rateLimit).toHaveProperty('ratelimit');
    expect(JSON.parse(answer.body)).toEqual({ data: { executeToolCall: expect.objectContaining({ toolCallId: '<id>' }) } });
    const legacy = await same({ body: execute(), headers: { accept: 'application/json' } });
    expect(legacy).toMatchObject({ status: 200, routed: true, headers: { 'content-type': 'application/json; charset=utf-8' } });
  });

  test('refusals at the edge: media type, content type, size, JSON, batches, keys, trusted documents', async () => {
    expect((await same({ body: execute(), headers: { accept: 'text/html' } })).status).toBe(406);
    expect((await same({ body: () => 'query=x', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
    expect((await same({ body: (runId) => ({ ...execute()(runId), padding: 'x'.repeat(1_100_000) }) })).status).toBe(413);
    expect((await same({ body: () => '{"query":' })).status).toBe(400);
    expect((await same({ body: (runId) => [execute()(runId)] })).status).toBe(400);
    expect(await same({ body: execute(), key: 'none' })).toMatchObject({ status: 401, routed: false });
    const badKey = await same({ body: execute(), key: 'bad' });
    expect(badKey.status).toBe(401);
    expect(badKey.headers['www-authenticate']).toContain('Bearer');
    expect(await same({ body: execute(), key: 'partner' })).toMatchObject({ status: 400, routed: false });
  });

  test('the operation guard: a NUL in a string, an input over its length', async () => {
    const nul = await same({ body: execute({ params: { orderId: 'a\u0000b' } }) });
    expect(nul).toMatchObject({ status: 400, routed: true });
    const long = await same({ body: execute({ toolName: 'x'.repeat(10_000) }) });
    expect(long).toMatchObject({ status: 400, routed: true });
  });

  test('validation and variables errors are left to Apollo Server, and answer the same', async () => {
    const invalid = await same({ body: (runId) => ({ query: EXECUTE.replace('status', 'noSuchField'), variables: { input: input(runId) } }) });
    expect(invalid).toMatchObject({ status: 400, routed: false });
    const variables = await same({ body: execute({}, { input: { runId: 'x' } }) });
    expect(variables).toMatchObject({ status: 400, routed: false });
    const otherName = await same({ body: (runId) => ({ ...execute()(runId), operationName: 'Other' }) });
    expect(otherName.routed).toBe(false);
  });

  test("the resolver's own refusals: a role that may not call, a run that is not the caller's, bad params", async () => {
    const forbidden = await same({ body: execute(), key: 'viewer' });
    expect(forbidden.routed).toBe(true);
    expect(JSON.parse(forbidden.body).errors[0].extensions.code).toBe('FORBIDDEN');
    const unknownRun = await same({ body: () => execute()(UNKNOWN_RUN) });
    expect(unknownRun.routed).toBe(true);
    expect(JSON.parse(unknownRun.body).errors).toHaveLength(1);
    const badParams = await same({ body: execute({ params: { orderId: 42 } }) });
    expect(badParams.routed).toBe(true);
  });

  test('a spent budget: 429 with Retry-After and the RateLimit fields', async () => {
    const refusedAt = await Promise.all(
      [
        { demo: on, runId: runs.on },
        { demo: off, runId: runs.off },
      ].map(async ({ demo, runId }) => {
        const key = (await createKey(demo.app.em(), demo.seed.orgId, 'agent')).secret;
        // Each request is admitted and charged its cost (the resolver then refuses the unknown run), until the budget is spent.
        for (let i = 0; i < 250; i++) {
          const correlationId = `budget-${i}`;
          const response = await post(demo.app.url, execute()(UNKNOWN_RUN), {
            key,
            headers: { 'x-correlation-id': correlationId },
          });
          if (response.status === 429) return { view: view(response, runId), routed: demo === on && servedByRoute(correlationId) };
          expect(response.status).toBe(200);
        }
        throw new Error('the budget was never spent');
      }),
    );
    expect(refusedAt[0].view).toEqual(refusedAt[1].view);
    expect(refusedAt[0].view.headers['retry-after']).toBe('<seconds>');
    expect(refusedAt[0].view.rateLimit).toHaveProperty('ratelimit');
    expect(refusedAt[0].routed).toBe(true);
  });
});
