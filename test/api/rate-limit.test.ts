import { startTestApp, type TestApp } from '../support/app';
import { newOrg, type TestOrg } from '../support/factories';
import { post, runOverSocket, socket, type RawResponse } from '../support/graphql-http';
import { RateLimits, rateLimitHeaders } from '../../src/api/rate-limits';
import { loadConfig, ConfigError } from '../../src/config';
import { createTestDatabase } from '../support/database';

describe('RateLimits (a fixed window per key, rate-limiter-flexible)', () => {
  const limits = () => new RateLimits({ enabled: true, points: 100, pointsPerSecond: 10, anonymousPerMinute: 2 }, { kind: 'memory' });

  test('a window serves up to its points, charged by cost; a refusal takes nothing', async () => {
    const budget = limits();
    expect(await budget.charge('k', 60)).toMatchObject({ policy: 'key', limit: 100, windowSeconds: 10, remaining: 40 });
    await expect(budget.charge('k', 41)).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      details: { cost: 41, retryAfter: expect.any(Number), rateLimit: expect.objectContaining({ remaining: 40 }) },
    });
    expect(await budget.charge('k', 40)).toMatchObject({ remaining: 0 });
  });

  test('keys have separate budgets; requests without a key are limited per address', async () => {
    const budget = limits();
    await budget.charge('a', 100);
    await expect(budget.charge('a', 1)).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    expect(await budget.charge('b', 100)).toMatchObject({ remaining: 0 });
    await budget.chargeAnonymous('10.0.0.1');
    await budget.chargeAnonymous('10.0.0.1');
    await expect(budget.chargeAnonymous('10.0.0.1')).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    expect(await budget.chargeAnonymous('10.0.0.2')).toMatchObject({ policy: 'anonymous', limit: 2, windowSeconds: 60, remaining: 1 });
  });

  test('the RateLimit header fields', () => {
    expect(rateLimitHeaders({ policy: 'key', limit: 100, windowSeconds: 10, remaining: 7, resetSeconds: 3 })).toEqual({
      'ratelimit-policy': '"key";q=100;w=10',
      ratelimit: '"key";r=7;t=3',
    });
  });

  test('the budget must cover the most costly operation the limits allow', () => {
    expect(() => loadConfig({ RATE_LIMIT_POINTS: '100', GRAPHQL_MAX_COST: '101' })).toThrow(ConfigError);
    expect(loadConfig({ RATE_LIMIT_POINTS: '100', GRAPHQL_MAX_COST: '101', RATE_LIMIT_ENABLED: 'false' }).api.rateLimit.enabled).toBe(false);
    expect(loadConfig({}).api.rateLimit).toEqual({ enabled: true, points: 60_000, pointsPerSecond: 1000, anonymousPerMinute: 120 });
  });
});

describe('over the API: per API key, charged by operation cost', () => {
  // 100 points a window of 100 s: longer than the test, so nothing is given back meanwhile.
  let app: TestApp;
  let owner: TestOrg;
  const sockets: { close: () => Promise<void> }[] = [];

  beforeAll(async () => {
    app = await startTestApp({
      RATE_LIMIT_POINTS: '100',
      RATE_LIMIT_POINTS_PER_SECOND: '1',
      GRAPHQL_MAX_COST: '100',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '3',
    });
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
    const first = await post(app.url, { query: PAGE }, { key });
    expect([first.status, first.headers.get('ratelimit-policy'), first.headers.get('ratelimit')]).toEqual([
      200,
      '"key";q=100;w=100',
      expect.stringMatching(/^"key";r=59;t=\d+$/),
    ]);
    expect((await post(app.url, { query: PAGE }, { key })).status).toBe(200); // 18 left
    expect((await post(app.url, { query: CHEAP }, { key })).headers.get('ratelimit')).toMatch(/^"key";r=17;/);

    const refused = await post(app.url, { query: PAGE }, { key });
    expect([refused.status, code(refused)]).toEqual([429, 'RATE_LIMITED']);
    expect(refused.body).not.toHaveProperty('data');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(100);
    expect(refused.body.errors![0].extensions).toMatchObject({ retryAfter, cost: 41 });
    expect(refused.headers.get('ratelimit')).toMatch(/^"key";r=17;/);

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

  test('operations refused by a limit, by parsing or by validation are charged one point', async () => {
    const key = owner.keys.agent;
    const tooCostly = '{ runs(first: 100) { edges { node { id } } } }'; // 201 > GRAPHQL_MAX_COST 100
    for (let i = 0; i < 3; i++) expect(code(await post(app.url, { query: tooCostly }, { key }))).toBe('QUERY_TOO_COSTLY');
    expect(code(await post(app.url, { query: '{ runs(' }, { key }))).toBe('GRAPHQL_PARSE_FAILED');
    expect(code(await post(app.url, { query: '{ noSuchField }' }, { key }))).toBe('GRAPHQL_VALIDATION_FAILED');
    const after = await post(app.url, { query: CHEAP }, { key });
    expect(after.headers.get('ratelimit')).toMatch(/^"key";r=94;/); // 5 refused + 1
    const ws = socket(app.wsUrl, key);
    sockets.push(ws);
    expect((await runOverSocket(ws.client, { query: '{ noSuchField }' })).kind).toBe('error');
    expect((await post(app.url, { query: CHEAP }, { key })).headers.get('ratelimit')).toMatch(/^"key";r=92;/);
  });

  test('requests without a valid key are limited per client address, then 429', async () => {
    const codes: number[] = [];
    for (const key of [null, 'tg_admin_nope', null, null]) codes.push((await post(app.url, { query: CHEAP }, { key: key ?? undefined })).status);
    expect(codes).toEqual([401, 401, 401, 429]);
    const refused = await post(app.url, { query: CHEAP });
    expect([code(refused), refused.headers.get('retry-after')]).toEqual(['RATE_LIMITED', expect.stringMatching(/^\d+$/)]);
    expect(refused.headers.get('ratelimit-policy')).toBe('"anonymous";q=3;w=60');
    // A valid key is not affected by its address's anonymous budget.
    expect((await post(app.url, { query: CHEAP }, { key: owner.keys.client })).status).toBe(200);
  });
});

describe('two nodes share one budget (PostgreSQL store, and Redis when REDIS_URL is set)', () => {
  test.each(['postgres', 'redis'] as const)('%s: what one node charged, the other refuses', async (store) => {
    const db = await createTestDatabase();
    const env = {
      RATE_LIMIT_POINTS: '100',
      RATE_LIMIT_POINTS_PER_SECOND: '1',
      GRAPHQL_MAX_COST: '100',
      ...(store === 'redis' ? { REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' } : {}),
    };
    const nodes = [await startTestApp(env, { database: db }), await startTestApp(env, { database: db })];
    try {
      const owner = await newOrg(nodes[0].em(), 'Shared Org');
      const key = owner.keys.expert;
      const PAGE = '{ runs(first: 20) { edges { node { id } } } }'; // 41 points
      expect((await post(nodes[0].url, { query: PAGE }, { key })).status).toBe(200);
      expect((await post(nodes[1].url, { query: PAGE }, { key })).status).toBe(200);
      const refused = await post(nodes[0].url, { query: PAGE }, { key });
      expect([refused.status, refused.headers.get('ratelimit')]).toEqual([429, expect.stringMatching(/^"key";r=18;/)]);
      expect((await post(nodes[1].url, { query: PAGE }, { key })).status).toBe(429);
    } finally {
      for (const node of nodes) await node.close();
      await db.drop();
    }
  });
});
