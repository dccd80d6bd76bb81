import { startTestApp, type TestApp } from '../support/app';
import { scrape } from '../support/metrics-text';

/**
 * The start log's line about /metrics tells the truth: `protected` is true exactly when a
 * scrape without the token is refused — on the API port always (401 to everyone while
 * METRICS_TOKEN is unset), on METRICS_PORT only with a token.
 */
const TOKEN = 'start-log-test-token-abcdef012345';
const apps: TestApp[] = [];
afterAll(async () => Promise.all(apps.map((app) => app.close())));

test.each([
  ['the API port, no token', {}],
  ['the API port, a token', { METRICS_TOKEN: TOKEN }],
  ['a port of its own, no token', { METRICS_PORT: '0' }],
  ['a port of its own, a token', { METRICS_PORT: '0', METRICS_TOKEN: TOKEN }],
])('%s: the log says protected exactly when an unauthenticated scrape is refused', async (_name, env: Record<string, string>) => {
  const app = await startTestApp(env, { captureLogs: true });
  apps.push(app);
  const line = app.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'Prometheus metrics served');
  const anonymous = await scrape(app.metricsUrl, null);
  expect(line).toMatchObject({ url: app.metricsUrl, protected: anonymous.status === 401 });
});
