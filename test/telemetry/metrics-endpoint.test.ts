import { startTestApp, type TestApp } from '../support/app';
import { newOrg } from '../support/factories';
import { scrape } from '../support/metrics-text';
import { ConfigError, describeConfig, loadConfig } from '../../src/config';

/**
 * Where `/metrics` is served and who may read it: on the API port only with METRICS_TOKEN
 * (401 without it, and 401 to everyone while no token is set); on METRICS_PORT a loopback
 * listener of its own, and nothing on the API port. API keys do not open it and the
 * GraphQL rate limit does not apply to it.
 */
const TOKEN = 'endpoint-test-token-abcdef012345';
/** The four ways to configure it, one app each (started together: databases are made one at a time). */
let tokened: TestApp;
let unset: TestApp;
let ownPort: TestApp;
let ownPortTokened: TestApp;
beforeAll(async () => {
  [tokened, unset, ownPort, ownPortTokened] = await Promise.all([
    startTestApp({ METRICS_TOKEN: TOKEN, RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1' }),
    startTestApp({}),
    startTestApp({ METRICS_PORT: '0' }),
    startTestApp({ METRICS_PORT: '0', METRICS_TOKEN: TOKEN }),
  ]);
}, 180_000);
afterAll(async () => {
  await Promise.all([tokened, unset, ownPort, ownPortTokened].map((app) => app?.close()));
});

describe('on the API port, with METRICS_TOKEN', () => {
  let app: TestApp;
  beforeAll(() => {
    app = tokened;
  });

  test('served at /metrics of the API port', () => {
    expect(app.metricsUrl).toBe(app.url.replace(/\/graphql$/, '/metrics'));
  });

  test('refused (401, a Bearer challenge) without the token, with another one, or with an API key', async () => {
    const admin = (await newOrg(app.em())).keys.admin;
    for (const token of [null, 'wrong-token-wrong-token', admin, `${TOKEN}x`]) {
      const refused = await scrape(app.metricsUrl, token);
      expect([token, refused.status]).toEqual([token, 401]);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect(refused.text).not.toContain('toolgate_');
    }
    const basic = await fetch(app.metricsUrl, { headers: { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` } });
    expect(basic.status).toBe(401);
  });

  test('served with the token, however often: the anonymous GraphQL budget does not apply', async () => {
    // The budget is real: a second request without a key to /graphql is refused ...
    const statuses: number[] = [];
    for (let i = 0; i < 2; i += 1)
      statuses.push(
        (await fetch(app.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' })).status,
      );
    expect(statuses[1]).toBe(429);
    // ... while every scrape is answered.
    for (let i = 0; i < 3; i += 1) {
      const scraped = await scrape(app.metricsUrl, TOKEN);
      expect(scraped.status).toBe(200);
      expect(scraped.metrics.types.get('toolgate_tool_calls_total')).toBe('counter');
    }
  });

  test('GET and HEAD only', async () => {
    const post = await fetch(app.metricsUrl, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(post.status).toBe(405);
    const head = await fetch(app.metricsUrl, { method: 'HEAD', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(head.status).toBe(200);
  });
});

test('without METRICS_TOKEN or METRICS_PORT, /metrics of the API port is refused to everyone', async () => {
  const app = unset;
  for (const token of [null, TOKEN]) expect((await scrape(app.metricsUrl, token)).status).toBe(401);
});

describe('on METRICS_PORT', () => {
  test('a loopback listener of its own, open without a token; the API port serves no /metrics', async () => {
    const app = ownPort;
    const metricsUrl = new URL(app.metricsUrl);
    expect(metricsUrl.hostname).toBe('127.0.0.1');
    expect(metricsUrl.pathname).toBe('/metrics');
    expect(metricsUrl.port).not.toBe(new URL(app.url).port);
    const scraped = await scrape(app.metricsUrl, null);
    expect(scraped.status).toBe(200);
    expect(scraped.metrics.types.get('toolgate_vendor_breaker_state')).toBe('gauge');
    expect((await fetch(app.url.replace(/\/graphql$/, '/metrics'))).status).toBe(404);
    expect((await fetch(`${metricsUrl.origin}/graphql`)).status).toBe(404);
  });

  test('with METRICS_TOKEN as well, the token is required there too', async () => {
    const app = ownPortTokened;
    expect((await scrape(app.metricsUrl, null)).status).toBe(401);
    expect((await scrape(app.metricsUrl, TOKEN)).status).toBe(200);
  });

  test('two apps in one process keep their own registries', async () => {
    const [a, b] = [ownPort, ownPortTokened];
    a.services.metrics.toolCall('probe.one', 'allow', 'succeeded', null);
    const [left, right] = [await scrape(a.metricsUrl, null), await scrape(b.metricsUrl, TOKEN)];
    expect(left.metrics.value('toolgate_tool_calls_total', { tool: 'probe.one' })).toBe(1);
    expect(right.metrics.find('toolgate_tool_calls_total', { tool: 'probe.one' })).toEqual([]);
  });
});

describe('configuration', () => {
  test('METRICS_TOKEN must be long enough; METRICS_PORT a port; the token is masked when described', () => {
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(ConfigError);
    expect(() => loadConfig({ METRICS_TOKEN: 'has a space in it, sadly' })).toThrow(ConfigError);
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(ConfigError);
    const config = loadConfig({ METRICS_TOKEN: TOKEN, METRICS_PORT: '9464' });
    expect(config.metrics).toEqual({ port: 9464, host: '127.0.0.1', token: TOKEN });
    expect(loadConfig({}).metrics).toEqual({ port: undefined, host: '127.0.0.1', token: undefined });
    expect(JSON.stringify(describeConfig(config))).not.toContain(TOKEN);
    expect(describeConfig(config).metrics).toEqual({ port: 9464, host: '127.0.0.1', token: '[set]' });
  });
});
