import { startTestApp, type TestApp } from '../support/app';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { ManualClock } from '../support/clock';
import { waitFor } from '../support/processes';
import { CreateWebhookEndpointDocument, WebhookDeliveriesDocument } from '../../gql/graphql';
import { seedDemo, type SeedResult } from '../../src/seed/demo-seed';
import { requestInvoice, startRun, type Flow } from '../approvals/approval-flow';
import { WebhookDelivery } from '../../src/webhooks/webhook-delivery.entity';
import { enqueueDelivery } from '../../src/webhooks/webhook-jobs';
import { webhookRetryDelayMs } from '../../src/webhooks/webhook-deliverer';
import { WebhookReceiver } from './receiver';

/**
 * A receiver that fails (500), then recovers — with the server stopped after the failed
 * attempt and another started on the same database: the retry is scheduled with backoff
 * on the sender's clock, survives the restart as a durable job, and is delivered once,
 * with the same webhook-id and bytes, and both attempts are queryable.
 */
let db: TestDatabase;
let receiver: WebhookReceiver;
const apps: TestApp[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await WebhookReceiver.start();
});
afterAll(async () => {
  for (const app of apps) await app.close().catch(() => undefined);
  await receiver?.close();
  await db?.drop();
});

/** The first retry an hour away (jittered 30-60 min): a slow restart cannot reach it by itself. */
const RETRY_BASE_MS = 3_600_000;

async function start(clock: ManualClock): Promise<TestApp> {
  const app = await startTestApp({ WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS) }, { database: db, sandboxes: true, worker: true, clock });
  apps.push(app);
  return app;
}

async function deliveriesOf(app: TestApp, seed: SeedResult, endpointId: string) {
  const res = await app.gql(WebhookDeliveriesDocument, { key: seed.keys.admin, variables: { endpointId } });
  return res.body.data!.webhookDeliveries.edges.map((e) => e.node);
}

test('500 then recovered across a restart: retried after its backoff, delivered once, attempts queryable', async () => {
  const clock = new ManualClock();
  const first = await start(clock);
  const seed = await seedDemo(first.em(), first.masterKey);
  const created = await first.gql(CreateWebhookEndpointDocument, {
    key: seed.keys.admin,
    variables: { url: receiver.url, eventTypes: ['approval_requested'] as never },
  });
  const { secret, endpoint } = created.body.data!.createWebhookEndpoint;
  receiver.secret = secret;
  receiver.status = 500;

  const flow: Flow = { app: first, orgId: seed.orgId, specialistId: seed.specialistId, keys: seed.keys, keyIds: {} as Flow['keyIds'] };
  const call = await requestInvoice(flow, await startRun(flow));
  const failed = await receiver.nextOfType('approval.requested');
  expect(failed.verified).toBe(true);

  // The failed attempt is recorded with its retry, at the backoff's time on the sender's clock.
  const [pending] = await waitFor(
    'the failed attempt recorded',
    async () => {
      const nodes = await deliveriesOf(first, seed, endpoint.id);
      return nodes[0]?.attempts.length === 1 ? nodes : undefined;
    },
    10_000,
  );
  expect(pending).toMatchObject({ status: 'pending', eventType: 'approval_requested', eventId: failed.headers['webhook-id'] });
  expect(pending.attempts).toEqual([expect.objectContaining({ attempt: 1, outcome: 'failed', httpStatus: 500, errorCode: 'http_error' })]);
  const waitMs = new Date(pending.nextAttemptAt as string).getTime() - clock.now();
  expect(waitMs).toBeGreaterThanOrEqual(RETRY_BASE_MS / 2);
  expect(waitMs).toBeLessThanOrEqual(RETRY_BASE_MS);
  // Its job waits in graphile-worker until then: nothing is sent meanwhile.
  const [job] = await first
    .em()
    .getConnection()
    .execute(`select run_at from graphile_worker._private_jobs where key = ?`, [`webhook:${pending.id}`]);
  expect(new Date(job.run_at).getTime()).toBe(new Date(pending.nextAttemptAt as string).getTime());

  // The server stops; the receiver recovers; another server starts on the same database.
  await first.close();
  receiver.status = 200;
  const second = await start(new ManualClock(clock.now()));
  expect(receiver.received).toHaveLength(1);

  // Time reaches the retry: its job is made due (as the backoff's end would), the new node sends it.
  const delivery = await second.em().findOneOrFail(WebhookDelivery, { id: pending.id });
  await second.em().transactional((tx) => enqueueDelivery(tx, delivery, null));
  const retried = await receiver.next((r) => r !== failed);
  expect(retried.verified).toBe(true);
  expect(retried.headers['webhook-id']).toBe(failed.headers['webhook-id']);
  expect(retried.body).toBe(failed.body);
  expect(retried.payload.data.toolCallId).toBe(call.toolCallId);

  const [delivered] = await waitFor(
    'the delivery recorded',
    async () => {
      const nodes = await deliveriesOf(second, seed, endpoint.id);
      return nodes[0]?.status === 'delivered' ? nodes : undefined;
    },
    10_000,
  );
  expect(delivered.attempts).toEqual([
    expect.objectContaining({ attempt: 1, outcome: 'failed', httpStatus: 500, errorCode: 'http_error' }),
    expect.objectContaining({ attempt: 2, outcome: 'succeeded', httpStatus: 200, errorCode: null }),
  ]);
  expect(delivered.nextAttemptAt).toBeNull();
  // Delivered once: no job of it is left, and the receiver saw exactly the two attempts.
  const left = await second
    .em()
    .getConnection()
    .execute(`select count(*)::int as n from graphile_worker._private_jobs where key = ?`, [`webhook:${pending.id}`]);
  expect(left[0].n).toBe(0);
  expect(receiver.received).toHaveLength(2);
});

test('backoff: about 5 s, 25 s, 2 min, … capped, each jittered over its upper half', () => {
  const base = 5000;
  const cap = 36_000_000;
  expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => webhookRetryDelayMs(n, base, cap, () => 1))).toEqual([
    5000, 25_000, 125_000, 625_000, 3_125_000, 15_625_000, 36_000_000, 36_000_000,
  ]);
  expect(webhookRetryDelayMs(2, base, cap, () => 0)).toBe(12_500);
  // Eight attempts (the default) span most of a day at the most.
  const total = [1, 2, 3, 4, 5, 6, 7].reduce((sum, n) => sum + webhookRetryDelayMs(n, base, cap, () => 1), 0);
  expect(total / 3_600_000).toBeGreaterThan(15);
  expect(total / 3_600_000).toBeLessThan(16);
});
