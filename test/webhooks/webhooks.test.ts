import { useDemoApp } from '../support/demo-fixture';
import { errorCode } from '../support/app';
import { newOrg } from '../support/factories';
import { waitFor } from '../support/processes';
import { COMPLETE_RUN } from '../support/documents';
import {
  CreateWebhookEndpointDocument,
  DeleteWebhookEndpointDocument,
  RedeliverWebhookDocument,
  SetWebhookEndpointEnabledDocument,
  WebhookDeliveriesDocument,
  WebhookEndpointsDocument,
} from '../../gql/graphql';
import { EXPERT_AMOUNT, requestInvoice, resolve, sql, startRun, type Flow } from '../approvals/approval-flow';
import { QBO_DEMO_CUSTOMERS } from '../../src/vendors/nango/nango.sandbox-data';
import { expireDueApprovals } from '../../src/approvals/approval.service';
import { failRun } from '../../src/runs/run-state';
import { LedgerEvent } from '../../src/ledger/ledger-event.entity';
import { WebhookEndpoint } from '../../src/webhooks/webhook-endpoint.entity';
import { openWebhookSecret } from '../../src/webhooks/webhook-secret';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_OF_LEDGER_EVENT } from '../../src/webhooks/webhook-events';
import { WebhookReceiver, type Received } from './receiver';

/**
 * Approval webhooks end to end: a real server with its job worker, the demo org's approval
 * flow over HTTP, and a real receiver that verifies every request with `standardwebhooks`.
 */
const demo = useDemoApp({}, { sandboxes: true, worker: true });
let receiver: WebhookReceiver;
let endpointId: string;

const ALL_TYPES = WEBHOOK_EVENT_TYPES.map((t) => t.replace('.', '_'));

function flow(): Flow {
  return { app: demo.app, orgId: demo.seed.orgId, specialistId: demo.seed.specialistId, keys: demo.seed.keys, keyIds: {} as Flow['keyIds'] };
}

async function createEndpoint(url: string, eventTypes: string[] = ALL_TYPES, key = demo.seed.keys.admin) {
  return demo.app.gql(CreateWebhookEndpointDocument, { key, variables: { url, eventTypes: eventTypes as never } });
}

/** The request for `type` about `id` (a tool call or a run), once it arrived. */
function arrival(type: string, id: string): Promise<Received> {
  return receiver.next((r) => r.payload.type === type && (r.payload.data.toolCallId === id || r.payload.data.runId === id));
}

beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  const created = await createEndpoint(receiver.url);
  expect(created.body.errors).toBeUndefined();
  const { secret, endpoint } = created.body.data!.createWebhookEndpoint;
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  receiver.secret = secret;
  endpointId = endpoint.id;
  expect(endpoint).toMatchObject({ url: receiver.url, enabled: true, eventTypes: ALL_TYPES });
});
afterAll(async () => receiver?.close());

test('a verified approval.requested arrives within a second of the call that paused; ids and summaries only', async () => {
  const params = { customerId: QBO_DEMO_CUSTOMERS.amys, amount: EXPERT_AMOUNT };
  // A fresh process's first gateway call takes about a second by itself (validators compiled,
  // catalog and org configuration loaded): measured after one call, as a running server is.
  const warm = await requestInvoice(flow(), await startRun(flow()), params);
  await arrival('approval.requested', warm.toolCallId);

  const runId = await startRun(flow());
  const calledAt = performance.now();
  const call = await requestInvoice(flow(), runId, params);
  const answeredAt = performance.now();
  expect(call.status).toBe('waiting_approval');
  const got = await arrival('approval.requested', call.toolCallId);
  const latencyMs = got.at - calledAt;
  // The figures, for the report: from the call sent, and from its answer.
  console.log(
    `approval.requested received ${latencyMs.toFixed(1)} ms after executeToolCall was sent, ${(got.at - answeredAt).toFixed(1)} ms after it answered`,
  );
  expect(latencyMs).toBeLessThan(1000);

  expect(got.verified).toBe(true);
  const [event] = await demo.app.em().find(LedgerEvent, { resourceId: call.toolCallId, type: 'tool_call.approval_requested' });
  expect(got.headers['webhook-id']).toBe(event.id);
  expect(got.payload).toEqual({
    type: 'approval.requested',
    timestamp: event.createdAt.toISOString(),
    data: {
      orgId: demo.seed.orgId,
      runId,
      approvalId: call.approvalRequestId,
      toolCallId: call.toolCallId,
      tool: 'invoice',
      action: 'send',
      risk: 'high',
      kind: 'expert',
      decision: 'require_expert_approval',
      status: 'pending',
      expiresAt: expect.any(String),
    },
  });
  for (const param of ['customerId', 'amount', String(EXPERT_AMOUNT)]) expect(got.body).not.toContain(param);

  // A wrong secret does not verify the same bytes: the signature is really checked.
  receiver.secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const wrongKey = receiver.received.length;
  const run2 = await startRun(flow());
  const call2 = await requestInvoice(flow(), run2, params);
  expect((await arrival('approval.requested', call2.toolCallId)).verified).toBe(false);
  expect(receiver.received.length).toBeGreaterThan(wrongKey);
  receiver.secret = (await secretOf(endpointId))!;
});

test('approval.resolved (approved, rejected with the note), approval.expired, run.completed and run.failed', async () => {
  // Approved, then the external run is completed.
  const approvedRun = await startRun(flow());
  const approved = await requestInvoice(flow(), approvedRun);
  expect((await resolve(flow(), demo.seed.keys.expert, approved.approvalRequestId!, 'APPROVE', 'looks right')).body.errors).toBeUndefined();
  const resolvedHook = await arrival('approval.resolved', approved.toolCallId);
  expect(resolvedHook.verified).toBe(true);
  expect(resolvedHook.payload!.data).toMatchObject({
    approvalId: approved.approvalRequestId,
    decision: 'approved',
    status: 'approved',
    reason: 'looks right',
  });
  const completed = await demo.app.gql(COMPLETE_RUN, { key: demo.seed.keys.agent, variables: { id: approvedRun } });
  expect(completed.body.data?.completeAgentRun.status).toBe('completed');
  expect((await arrival('run.completed', approvedRun)).payload).toMatchObject({
    type: 'run.completed',
    data: { runId: approvedRun, status: 'completed' },
  });

  // Rejected, with the expert's note.
  const rejectedRun = await startRun(flow());
  const rejected = await requestInvoice(flow(), rejectedRun);
  await resolve(flow(), demo.seed.keys.expert, rejected.approvalRequestId!, 'REJECT', 'wrong customer');
  const rejectedHook = await arrival('approval.resolved', rejected.toolCallId);
  expect(rejectedHook.payload!.data).toMatchObject({ decision: 'rejected', status: 'rejected', reason: 'wrong customer', kind: 'expert' });

  // Expired by the expiry job's own function.
  const expiringRun = await startRun(flow());
  const expiring = await requestInvoice(flow(), expiringRun);
  await sql(demo.app, `update approval_requests set expires_at = now() - interval '1 minute' where id = ?`, [expiring.approvalRequestId]);
  await expireDueApprovals(demo.app.em());
  const expiredHook = await arrival('approval.expired', expiring.toolCallId);
  expect(expiredHook.payload!.data).toMatchObject({ approvalId: expiring.approvalRequestId, status: 'expired', reason: 'approval_expired' });

  // Failed through the run's state owner.
  const failingRun = await startRun(flow());
  await demo.app.em().transactional((tx) => failRun(tx, { id: failingRun, orgId: demo.seed.orgId }, 'MODEL_UNAVAILABLE', 'the model is down'));
  const failedHook = await arrival('run.failed', failingRun);
  expect(failedHook.verified).toBe(true);
  expect(failedHook.payload!.data).toEqual({ orgId: demo.seed.orgId, runId: failingRun, status: 'failed', errorCode: 'MODEL_UNAVAILABLE' });

  // Each event once, and every delivery is queryable as delivered after one attempt.
  for (const id of [approved.toolCallId, rejected.toolCallId, expiring.toolCallId]) {
    expect(receiver.received.filter((r) => r.payload.data.toolCallId === id)).toHaveLength(2);
  }
  const deliveries = await demo.app.gql(WebhookDeliveriesDocument, { key: demo.seed.keys.admin, variables: { endpointId, first: 100 } });
  const nodes = deliveries.body.data!.webhookDeliveries.edges.map((e) => e.node);
  const settled = nodes.filter((n) => n.status === 'delivered');
  expect(settled.length).toBeGreaterThanOrEqual(8);
  for (const node of settled)
    expect(node.attempts).toEqual([expect.objectContaining({ attempt: 1, outcome: 'succeeded', httpStatus: 200, errorCode: null })]);
});

test('only subscribed types are sent, and only to enabled endpoints', async () => {
  const other = await WebhookReceiver.start();
  try {
    const created = await createEndpoint(other.url, ['run_failed']);
    other.secret = created.body.data!.createWebhookEndpoint.secret;
    const otherId = created.body.data!.createWebhookEndpoint.endpoint.id;
    const call = await requestInvoice(flow(), await startRun(flow()));
    await arrival('approval.requested', call.toolCallId);
    const runId = await startRun(flow());
    await demo.app.em().transactional((tx) => failRun(tx, { id: runId, orgId: demo.seed.orgId }, 'MODEL_UNAVAILABLE', 'down'));
    expect((await other.nextOfType('run.failed')).verified).toBe(true);
    expect(other.received.map((r) => r.payload.type)).toEqual(['run.failed']);

    // Turned off: a new run.failed is not even queued for it.
    const off = await demo.app.gql(SetWebhookEndpointEnabledDocument, { key: demo.seed.keys.admin, variables: { id: otherId, enabled: false } });
    expect(off.body.data!.setWebhookEndpointEnabled).toEqual({ id: otherId, enabled: false, disabledReason: 'admin' });
    const run2 = await startRun(flow());
    await demo.app.em().transactional((tx) => failRun(tx, { id: run2, orgId: demo.seed.orgId }, 'MODEL_UNAVAILABLE', 'down'));
    await arrival('run.failed', run2);
    const rows = await demo.app.em().getConnection().execute('select count(*)::int as n from webhook_deliveries where endpoint_id = ?', [otherId]);
    expect(rows[0].n).toBe(1);
    expect(await deleteEndpoint(otherId)).toBe(true);
  } finally {
    await other.close();
  }
});

test('a receiver that answers 410 has its endpoint turned off (gone)', async () => {
  const gone = await WebhookReceiver.start();
  try {
    gone.status = 410;
    const created = await createEndpoint(gone.url, ['run_failed']);
    const id = created.body.data!.createWebhookEndpoint.endpoint.id;
    const runId = await startRun(flow());
    await demo.app.em().transactional((tx) => failRun(tx, { id: runId, orgId: demo.seed.orgId }, 'MODEL_UNAVAILABLE', 'down'));
    await gone.nextOfType('run.failed');
    const deliveries = await waitForDeliveries(id, (nodes) => nodes[0]?.status === 'failed');
    expect(deliveries[0].attempts).toEqual([expect.objectContaining({ attempt: 1, outcome: 'failed', httpStatus: 410, errorCode: 'gone' })]);
    const listed = await demo.app.gql(WebhookEndpointsDocument, { key: demo.seed.keys.admin });
    expect(listed.body.data!.webhookEndpoints.edges.map((e) => e.node).find((n) => n.id === id)).toMatchObject({
      enabled: false,
      disabledReason: 'gone',
    });
    // Redelivery waits for an admin to turn it back on.
    const again = await demo.app.gql(RedeliverWebhookDocument, { key: demo.seed.keys.admin, variables: { deliveryId: deliveries[0].id } });
    expect(errorCode(again)).toBe('BAD_USER_INPUT');
    await deleteEndpoint(id);
  } finally {
    await gone.close();
  }
});

test('the secret is stored sealed with the master key, and never listed', async () => {
  const [row] = await demo.app.em().getConnection().execute('select * from webhook_endpoints where id = ?', [endpointId]);
  const secret = (await secretOf(endpointId))!;
  const stored = JSON.stringify(row);
  expect(stored).not.toContain(secret);
  expect(stored).not.toContain(secret.slice('whsec_'.length, 30));
  expect(row.encrypted_secret).toMatchObject({ format: 'envelope-v1', keyVersion: 1 });
  expect(row.key_version).toBe(1);
  // Sealed for this row: moved to another endpoint id it does not open.
  expect(() => openWebhookSecret(demo.app.masterKey, demo.seed.orgId, demo.seed.orgId, row.encrypted_secret)).toThrow('cannot be decrypted');
  const listed = await demo.app.gql(`{ webhookEndpoints { edges { node { id url } } } }`, { key: demo.seed.keys.admin });
  expect(JSON.stringify(listed.body)).not.toContain('whsec_');
});

test('another org sees none of it (NOT_FOUND), other roles are refused, and bad input changes nothing', async () => {
  const stranger = await newOrg(demo.app.em());
  const key = stranger.keys.admin;
  const listed = await demo.app.gql(WebhookEndpointsDocument, { key });
  expect(listed.body.data!.webhookEndpoints.totalCount).toBe(0);
  expect(errorCode(await demo.app.gql(WebhookDeliveriesDocument, { key, variables: { endpointId } }))).toBe('NOT_FOUND');
  expect(errorCode(await demo.app.gql(DeleteWebhookEndpointDocument, { key, variables: { id: endpointId } }))).toBe('NOT_FOUND');
  expect(errorCode(await demo.app.gql(SetWebhookEndpointEnabledDocument, { key, variables: { id: endpointId, enabled: false } }))).toBe('NOT_FOUND');
  const ours = await demo.app.gql(WebhookDeliveriesDocument, { key: demo.seed.keys.admin, variables: { endpointId, first: 1 } });
  const deliveryId = ours.body.data!.webhookDeliveries.edges[0].node.id;
  expect(errorCode(await demo.app.gql(RedeliverWebhookDocument, { key, variables: { deliveryId } }))).toBe('NOT_FOUND');
  expect(errorCode(await demo.app.gql(WebhookDeliveriesDocument, { key, variables: { endpointId: 'not-a-uuid' } }))).toBe('NOT_FOUND');

  for (const role of ['expert', 'client', 'agent', 'partner'] as const) {
    expect(errorCode(await createEndpoint(receiver.url, ALL_TYPES, demo.seed.keys[role]))).toBe('FORBIDDEN');
  }

  const before = await demo.app.em().count(WebhookEndpoint, {});
  const bad: [string, string[], string][] = [
    ['ftp://example.com/hook', ALL_TYPES, 'url'],
    ['not a url', ALL_TYPES, 'url'],
    ['https://user:pass@example.com/hook', ALL_TYPES, 'url'],
    ['https://example.com/hook', [], 'eventTypes'],
    // Over the input limit: refused before any resolver runs (the variable is named).
    [`https://example.com/${'x'.repeat(2100)}`, ALL_TYPES, '$.url'],
  ];
  for (const [url, types, field] of bad) {
    const res = await createEndpoint(url, types);
    expect({ url: url.slice(0, 40), code: errorCode(res), field: res.body.errors?.[0].extensions?.field }).toEqual({
      url: url.slice(0, 40),
      code: 'BAD_USER_INPUT',
      field,
    });
  }
  expect(errorCode(await createEndpoint('https://example.com/hook', ['approval.requested']))).toBe('BAD_USER_INPUT');
  expect(await demo.app.em().count(WebhookEndpoint, {})).toBe(before);
});

test('the ledger trigger maps exactly the events WEBHOOK_OF_LEDGER_EVENT names', async () => {
  const [fn] = await demo.app.em().getConnection().execute("select pg_get_functiondef('toolgate_webhook_enqueue'::regproc) as def");
  const [trigger] = await demo.app
    .em()
    .getConnection()
    .execute("select pg_get_triggerdef(oid) as def from pg_trigger where tgname = 'ledger_events_webhooks'");
  const mapping = [...(fn.def as string).matchAll(/when '([a-z_.]+)' then '([a-z_.]+)'/g)].map((m) => [m[1], m[2]]);
  expect(Object.fromEntries(mapping)).toEqual(WEBHOOK_OF_LEDGER_EVENT);
  const fired = [...(trigger.def as string).matchAll(/'([a-z_.]+)'::text/g)].map((m) => m[1]);
  expect(fired.sort()).toEqual(Object.keys(WEBHOOK_OF_LEDGER_EVENT).sort());
});

async function secretOf(id: string): Promise<string | null> {
  const endpoint = await demo.app.em().findOne(WebhookEndpoint, { id });
  return endpoint ? openWebhookSecret(demo.app.masterKey, endpoint.orgId, endpoint.id, endpoint.encryptedSecret) : null;
}

async function deleteEndpoint(id: string): Promise<boolean> {
  const res = await demo.app.gql(DeleteWebhookEndpointDocument, { key: demo.seed.keys.admin, variables: { id } });
  return res.body.data!.deleteWebhookEndpoint;
}

type DeliveryNode = NonNullable<Awaited<ReturnType<typeof listDeliveries>>>[number];
async function listDeliveries(id: string) {
  const res = await demo.app.gql(WebhookDeliveriesDocument, { key: demo.seed.keys.admin, variables: { endpointId: id, first: 100 } });
  return res.body.data?.webhookDeliveries.edges.map((e) => e.node);
}

/** The endpoint's deliveries once `done` holds (the attempt's record commits just after the receiver answered). */
async function waitForDeliveries(id: string, done: (nodes: DeliveryNode[]) => boolean): Promise<DeliveryNode[]> {
  return waitFor(
    'the delivery record',
    async () => {
      const nodes = (await listDeliveries(id)) ?? [];
      return done(nodes) ? nodes : undefined;
    },
    10_000,
  );
}
