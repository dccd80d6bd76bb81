import { startTestApp, type TestApp } from '../support/app';
import { newOrg, type TestOrg } from '../support/factories';
import { post, runOverSocket, socket, type RawResponse } from '../support/graphql-http';
import { RateLimiter } from '../../src/api/rate-limiter';
import { loadConfig, ConfigError } from '../../src/config';

describe('RateLimiter (token bucket per key)', () => {
  let now = 0;
  const limiter = () => new RateLimiter({ points: 100, pointsPerSecond: 10 }, () => now);
  beforeEach(() => {
    now = 0;
  });

  test('a full bucket serves a burst up to its size, charged by cost', () => {
    const bucket = limiter();
    expect(bucket.take('k', 60)).toEqual({ allowed: true, remaining: 40 });
    expect(bucket.take('k', 40)).toEqual({ allowed: true, remaining: 0 });
    expect(bucket.take('k', 1)).toEqual({ allowed: false, remaining: 0, retryAfterSeconds: 1 });
  });

  test('a refusal takes nothing and names the wait until the cost is covered', () => {
    const bucket = limiter();
    bucket.take('k', 90);
    expect(bucket.take('k', 35)).toEqual({ allowed: false, remaining: 10, retryAfterSeconds: 3 });
    expect(bucket.take('k', 10)).toEqual({ allowed: true, remaining: 0 });
  });

  test('refills at its rate, never above its size', () => {
    const bucket = limiter();
    bucket.take('k', 100);
    now = 2500;
    expect(bucket.take('k', 25)).toEqual({ allowed: true, remaining: 0 });
    now = 60_000;
    expect(bucket.take('k', 0)).toEqual({ allowed: true, remaining: 100 });
  });

  test('keys have separate buckets', () => {
    const bucket = limiter();
    bucket.take('a', 100);
    expect(bucket.take('a', 1).allowed).toBe(false);
    expect(bucket.take('b', 100).allowed).toBe(true);
  });

  test('charge throws RATE_LIMITED with retryAfter', () => {
    const bucket = limiter();
    bucket.charge('k', 100);
    expect(() => bucket.charge('k', 20)).toThrow(expect.objectContaining({ extensions: { code: 'RATE_LIMITED', retryAfter: 2, cost: 20 } }));
  });

  test('the budget must cover the most costly operation the limits allow', () => {
    expect(() => loadConfig({ RATE_LIMIT_POINTS: '100', GRAPHQL_MAX_COST: '101' })).toThrow(ConfigError);
    expect(loadConfig({ RATE_LIMIT_POINTS: '100', GRAPHQL_MAX_COST: '101', RATE_LIMIT_ENABLED: 'false' }).api.rateLimit.enabled).toBe(false);
    expect(loadConfig({}).api.rateLimit).toEqual({ enabled: true, points: 60_000, pointsPerSecond: 1000 });
  });
});

describe('over the API: per API key, charged by operation cost', () => {
  // 100 points, refilled at 1 a second: slow enough that the test cannot refill it.
  let app: TestApp;
  let owner: TestOrg;
  const sockets: { close: () => Promise<void> }[] = [];

  beforeAll(async () => {
    app = await startTestApp({ RATE_LIMIT_POINTS: '100', RATE_LIMIT_POINTS_PER_SECOND: '1', GRAPHQL_MAX_COST: '100' });
    owner = await newOrg(app.em(), 'Rate Org');
  });
  afterAll(async () => {
    await Promise.all(sockets.map((s) => s.close()));
    await app?.close();
  });

  // The documents are text on purpose: their cost in points is what these tests count.
  // runs 1 + edges 20 × (1 + node 1) = 41 points
  const PAGE = '{ runs(first: 20) { edges { node { id } } } }';
  const CHEAP = '{ viewer { role } }'; // 1 point
  const code = (res: RawResponse) => res.body.errors?.[0]?.extensions?.code;

  test('an operation that no longer fits is 429 RATE_LIMITED with Retry-After; cheaper ones still run', async () => {
    const key = owner.keys.expert;
    expect((await post(app.url, { query: PAGE }, { key })).status).toBe(200); // 59 left
    expect((await post(app.url, { query: PAGE }, { key })).status).toBe(200); // 18 left
    expect((await post(app.url, { query: CHEAP }, { key })).status).toBe(200); // 17 left

    const refused = await post(app.url, { query: PAGE }, { key });
    expect([refused.status, code(refused)]).toEqual([429, 'RATE_LIMITED']);
    expect(refused.body).not.toHaveProperty('data');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(41);
    expect(refused.body.errors![0].extensions).toMatchObject({ retryAfter, cost: 41 });

    // Refusals take nothing: the cheap operation still fits.
    expect((await post(app.url, { query: CHEAP }, { key })).status).toBe(200);
  });

  test('429 stays 429 for application/json clients', async () => {
    const key = owner.keys.expert;
    const refused = await post(app.url, { query: PAGE }, { key, headers: { accept: 'application/json' } });
    expect([refused.status, code(refused)]).toEqual([429, 'RATE_LIMITED']);
    expect(refused.contentType).toMatch(/^application\/json/);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  test('each API key has its own budget, even within one org', async () => {
    const res = await post(app.url, { query: PAGE }, { key: owner.keys.client });
    expect([res.status, res.body.errors]).toEqual([200, undefined]);
  });

  test('the websocket transport draws on the same budget and answers RATE_LIMITED for that operation', async () => {
    const ws = socket(app.wsUrl, owner.keys.expert);
    sockets.push(ws);
    const refused = await runOverSocket(ws.client, { query: PAGE });
    expect(refused).toEqual({
      kind: 'error',
      errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'RATE_LIMITED', retryAfter: expect.any(Number), cost: 41 }) })],
    });
    const cheap = await runOverSocket(ws.client, { query: CHEAP });
    expect(cheap.kind === 'result' && cheap.result.data?.viewer.role).toBe('expert');
  });

  test('operations refused by a limit are not charged', async () => {
    const key = owner.keys.agent;
    const tooCostly = '{ runs(first: 100) { edges { node { id } } } }'; // 201 > GRAPHQL_MAX_COST 100
    for (let i = 0; i < 5; i++) expect(code(await post(app.url, { query: tooCostly }, { key }))).toBe('QUERY_TOO_COSTLY');
    expect((await post(app.url, { query: PAGE }, { key })).status).toBe(200);
    expect((await post(app.url, { query: PAGE }, { key })).status).toBe(200);
  });
});
