import { startPrivateRedis, type PrivateRedis } from '../../chaos/lib/private-redis';
import { startTestApp, type TestApp } from '../support/app';
import { newOrg, type TestOrg } from '../support/factories';

/**
 * Redis lost under a node that uses it for its rate limits and its event bus (a private
 * redis-server the test kills and starts again): requests keep being answered at once (the
 * rate limit counts in memory meanwhile), /readyz stays 200 and says `degraded: ["redis"]`,
 * and once Redis is back the bus delivers again (resubscribed) and /readyz is plain ready.
 */
let redis: PrivateRedis;
let app: TestApp;
let org: TestOrg;

beforeAll(async () => {
  redis = await startPrivateRedis();
  process.env.REDIS_URL = redis.url; // the test app's Redis bus
  app = await startTestApp({ REDIS_URL: redis.url, RATE_LIMIT_ENABLED: 'true' }, { eventBus: 'redis' });
  org = await newOrg(app.em());
});
afterAll(async () => {
  await app?.close();
  await redis?.close();
});

const readyz = async () => {
  const response = await fetch(new URL('/readyz', app.url), { signal: AbortSignal.timeout(3000) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('Redis killed and restarted: requests answered throughout, /readyz degraded then ready, the bus delivers again', async () => {
  expect(await readyz()).toEqual({ status: 200, body: { status: 'ready' } });
  const received: string[] = [];
  await app.services.realtime.bus.subscribe('access', (message) => received.push(message));

  await redis.crash();
  for (let i = 0; i < 3; i++) {
    const started = Date.now();
    const answer = await app.gql('{ viewer { role } }', { key: org.keys.admin });
    expect({ status: answer.status, data: answer.body.data }).toEqual({ status: 200, data: { viewer: { role: 'admin' } } });
    expect(Date.now() - started).toBeLessThan(2000);
  }
  await until('/readyz to report redis', async () => ((await readyz()).body.degraded ? true : undefined));
  expect(await readyz()).toEqual({ status: 200, body: { status: 'ready', degraded: ['redis'] } });
  // Dropped, not queued: nothing is held in memory for a store that is gone.
  await app.services.realtime.bus.publish('tokens', '{}');

  await redis.restart();
  await until('/readyz without degradation', async () => ((await readyz()).body.degraded === undefined ? true : undefined));
  await until('a message over the resubscribed bus', async () => {
    await app.services.realtime.bus.publish('access', 'key:after-outage');
    return received.includes('key:after-outage') ? true : undefined;
  });
}, 40_000);
