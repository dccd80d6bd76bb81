import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../support/app';
import { dyingNode } from '../support/dying-node';
import { seedDemo, type SeedResult } from '../../src/seed/demo-seed';
import { RunClient, until } from '../runs/run-helpers';
import { approvals, closeSockets, connect } from '../realtime/realtime-helpers';
import { SANDBOX_SECRET_DETAIL, callTool, newTenant, startRun } from '../executor/executor-helpers';
import { parseExposition, scrape, type Exposition } from '../support/metrics-text';

/**
 * `/metrics` after the README demo's flow on a real server (offline model, job worker,
 * vendor sandboxes): a run with a lookup, a high-risk call waiting for an expert and
 * approved, a dashboard subscription, then a vendor failing with a retry until its breaker
 * opens. Each family is scraped over HTTP, parsed, and checked for the label values and
 * counts the flow must have produced.
 */
const TOKEN = 'metrics-test-token-0123456789';
const MODEL = 'claude-offline-1';
const LOOKUP = 'order_lookup.lookup';

let app: TestApp;
let seed: SeedResult;
let runs: RunClient;

beforeAll(async () => {
  app = await startTestApp(
    {
      ANTHROPIC_MODEL: MODEL,
      METRICS_TOKEN: TOKEN,
      VENDOR_MAX_RETRIES: '1',
      VENDOR_RETRY_BASE_MS: '0',
      VENDOR_BREAKER_THRESHOLD: '2',
      VENDOR_BREAKER_HALF_OPEN_MS: '3600000',
    },
    { sandboxes: true, offlineModel: true, worker: true, captureLogs: true },
  );
  seed = await seedDemo(app.em(), app.masterKey);
  runs = new RunClient(app, seed);
}, 60_000);
afterAll(async () => {
  await closeSockets();
  await app?.close();
});

async function metrics(): Promise<Exposition> {
  const scraped = await scrape(app.metricsUrl, TOKEN);
  expect(scraped.status).toBe(200);
  expect(scraped.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return scraped.metrics;
}

const FAMILIES: Record<string, string> = {
  toolgate_tool_calls_total: 'counter',
  toolgate_vendor_request_duration_seconds: 'histogram',
  toolgate_vendor_retries_total: 'counter',
  toolgate_vendor_breaker_state: 'gauge',
  toolgate_vendor_breaker_transitions_total: 'counter',
  toolgate_approvals_pending: 'gauge',
  toolgate_approvals_oldest_pending_age_seconds: 'gauge',
  toolgate_approval_resolution_seconds: 'histogram',
  toolgate_job_queue_depth: 'gauge',
  toolgate_job_queue_oldest_ready_age_seconds: 'gauge',
  toolgate_subscriptions_open: 'gauge',
  toolgate_subscription_event_lag_seconds: 'histogram',
  toolgate_model_time_to_first_token_seconds: 'histogram',
  toolgate_model_tokens_total: 'counter',
  toolgate_reconciliations_total: 'counter',
  process_cpu_seconds_total: 'counter',
  nodejs_eventloop_lag_seconds: 'gauge',
};

test('every family is exposed with its type before anything happened; counters start empty', async () => {
  const m = await metrics();
  for (const [family, type] of Object.entries(FAMILIES)) expect([family, m.types.get(family)]).toEqual([family, type]);
  expect(m.find('toolgate_tool_calls_total')).toEqual([]);
  // The registered vendors are shown closed; pending approvals and the job queue at 0.
  expect(m.value('toolgate_vendor_breaker_state', { vendor: 'shopify' })).toBe(0);
  expect(m.find('toolgate_vendor_breaker_state', { vendor: 'nango' })).toHaveLength(1);
  expect(m.find('toolgate_approvals_pending').map((s) => [s.labels.kind, s.value])).toEqual([
    ['expert', 0],
    ['client', 0],
  ]);
  expect(m.value('toolgate_job_queue_depth')).toBe(0);
  expect(m.find('toolgate_job_queue_depth', { task: 'run_agent' })).toHaveLength(4);
});

test('the demo flow: lookup run, invoice waiting for an expert, approval, subscription, model turns', async () => {
  const expert = connect(app.wsUrl, seed.keys.expert);
  const feed = approvals(expert.client, 'expert', null);

  // A customer asks about an order: the runtime calls order_lookup.lookup (low risk: allowed).
  const lookup = await runs.complete("What's the status of my order #12345?");
  expect(lookup.status).toBe('completed');

  // A high-risk action waits for an expert.
  const started = await runs.start('Please send an invoice for $120.50 to customer 1');
  const waiting = await runs.waitFor(started.id, ['waiting_approval']);
  const approvalId = waiting.toolCalls[0]!.approvalRequest!.id;
  await feed.until((f) => f.items.some((i) => i.change === 'requested'), 'the approval request on the dashboard');

  let m = await metrics();
  expect(m.value('toolgate_tool_calls_total', { tool: LOOKUP, decision: 'allow', status: 'succeeded', code: 'none' })).toBe(1);
  expect(m.value('toolgate_tool_calls_total', { tool: 'invoice.send', decision: 'require_expert_approval', status: 'waiting_approval' })).toBe(1);
  expect(m.value('toolgate_approvals_pending', { kind: 'expert' })).toBe(1);
  expect(m.value('toolgate_approvals_oldest_pending_age_seconds', { kind: 'expert' })).toBeGreaterThanOrEqual(0);
  expect(m.value('toolgate_subscriptions_open', { subscription: 'approvalRequests' })).toBe(1);

  // Approved: the run resumes, the call runs once.
  expect((await runs.resolve(approvalId, 'APPROVE')).body.errors).toBeUndefined();
  await runs.waitFor(started.id, ['completed']);
  await feed.until((f) => f.items.some((i) => i.change === 'approved'), 'the approval on the dashboard');

  m = await metrics();
  expect(m.value('toolgate_tool_calls_total', { tool: 'invoice.send', decision: 'require_expert_approval', status: 'succeeded' })).toBe(1);
  expect(m.value('toolgate_approvals_pending', { kind: 'expert' })).toBe(0);
  expect(m.value('toolgate_approval_resolution_seconds_count', { kind: 'expert', outcome: 'approved' })).toBe(1);
  // The vendors answered: one attempt per call, all successful (nango: the invoice and its send).
  expect(m.value('toolgate_vendor_request_duration_seconds_count', { vendor: 'shopify', tool: LOOKUP, outcome: 'success' })).toBe(1);
  expect(m.value('toolgate_vendor_request_duration_seconds_count', { tool: 'invoice.send', outcome: 'success' })).toBeGreaterThanOrEqual(1);
  // Live ledger events reached the subscription through this node's tail.
  expect(m.value('toolgate_subscription_event_lag_seconds_count')).toBeGreaterThan(0);
  // Model turns: the lookup run's two and the invoice run's two, each with a first token and tokens both ways.
  expect(m.value('toolgate_model_time_to_first_token_seconds_count', { model: MODEL })).toBeGreaterThanOrEqual(4);
  expect(m.value('toolgate_model_tokens_total', { model: MODEL, direction: 'input' })).toBeGreaterThan(0);
  expect(m.value('toolgate_model_tokens_total', { model: MODEL, direction: 'output' })).toBeGreaterThan(0);
  const [usage] = await app
    .em()
    .execute<{ input: string; output: string }[]>('select sum(input_tokens) as input, sum(output_tokens) as output from agent_runs');
  expect(m.value('toolgate_model_tokens_total', { direction: 'input' })).toBe(Number(usage.input));
  expect(m.value('toolgate_model_tokens_total', { direction: 'output' })).toBe(Number(usage.output));
  // No org, run or call id in any label.
  const labelValues = m.samples.flatMap((s) => Object.values(s.labels)).join(' ');
  for (const id of [seed.orgId, started.id, approvalId, waiting.toolCalls[0]!.id]) expect(labelValues).not.toContain(id);

  // The dashboard closes: its subscription is no longer open.
  await closeSockets();
  await until(
    async () => (await metrics()).value('toolgate_subscriptions_open', { subscription: 'approvalRequests' }) === 0,
    'the closed subscription',
  );
}, 60_000);

test('the job queue: depth by task and state, and how long the oldest ready job has waited', async () => {
  // A task no worker of this node runs stays ready; graphile-worker's own function queues it.
  await app.em().execute("select graphile_worker.add_job('metrics_probe', '{}'::json, run_at := now() - interval '90 seconds')");
  await app.em().execute("select graphile_worker.add_job('metrics_probe', '{}'::json, run_at := now() + interval '1 hour')");
  try {
    const m = await metrics();
    expect(m.value('toolgate_job_queue_depth', { task: 'metrics_probe', state: 'ready' })).toBe(1);
    expect(m.value('toolgate_job_queue_depth', { task: 'metrics_probe', state: 'scheduled' })).toBe(1);
    expect(m.value('toolgate_job_queue_oldest_ready_age_seconds', { task: 'metrics_probe' })).toBeGreaterThanOrEqual(90);
    expect(m.value('toolgate_job_queue_oldest_ready_age_seconds', { task: 'run_agent' })).toBe(0);
  } finally {
    await app
      .em()
      .execute(
        "delete from graphile_worker._private_jobs where task_id = (select id from graphile_worker._private_tasks where identifier = 'metrics_probe')",
      );
  }
});

test('a vendor failing: retries, attempt outcomes, the breaker opening, the codes of the calls; warnings without vendor text', async () => {
  const tenant = await newTenant(app, ['shopify'], {}, [LOOKUP]);
  const runId = await startRun(app, tenant);
  const before = parseExposition((await scrape(app.metricsUrl, TOKEN)).text);
  const logsFrom = app.logs.length;

  // Two 503s: the attempt and its retry; the second consecutive failure opens the breaker.
  app.sandbox!.injectFault('shopify', { kind: 'status', status: 503 }, { times: 2 });
  const failed = await callTool(app, tenant, runId, LOOKUP, { orderId: '12345' });
  expect(failed.answer).toMatchObject({ status: 'failed', error: { code: 'VENDOR_ERROR' } });
  const refused = await callTool(app, tenant, runId, LOOKUP, { orderId: '12345' });
  expect(refused.answer).toMatchObject({ status: 'failed', error: { code: 'CIRCUIT_OPEN' } });

  const m = await metrics();
  const grew = (name: string, labels: Record<string, string>) => m.value(name, labels) - before.value(name, labels);
  expect(grew('toolgate_vendor_retries_total', { vendor: 'shopify', tool: LOOKUP, cause: '503' })).toBe(1);
  expect(grew('toolgate_vendor_request_duration_seconds_count', { vendor: 'shopify', tool: LOOKUP, outcome: '503' })).toBe(2);
  expect(m.value('toolgate_vendor_breaker_state', { vendor: 'shopify' })).toBe(2);
  expect(grew('toolgate_vendor_breaker_transitions_total', { vendor: 'shopify', state: 'open' })).toBe(1);
  expect(grew('toolgate_tool_calls_total', { tool: LOOKUP, decision: 'allow', status: 'failed', code: 'VENDOR_ERROR' })).toBe(1);
  expect(grew('toolgate_tool_calls_total', { tool: LOOKUP, decision: 'allow', status: 'failed', code: 'CIRCUIT_OPEN' })).toBe(1);
  // The other vendors' breakers are untouched.
  expect(m.value('toolgate_vendor_breaker_state', { vendor: 'amazon' })).toBe(0);

  const lines = app.logs.slice(logsFrom).map((line) => JSON.parse(line) as Record<string, unknown>);
  const failure = lines.find((l) => l.msg === 'vendor call failed' && l.code === 'VENDOR_ERROR');
  expect(failure).toMatchObject({ level: 40, code: 'VENDOR_ERROR', vendor: 'shopify', tool: LOOKUP, status: 503, retries: 1 });
  const opened = lines.find((l) => typeof l.msg === 'string' && l.msg.startsWith('circuit breaker opened'));
  expect(opened).toMatchObject({ level: 40, code: 'CIRCUIT_OPEN', vendor: 'shopify', orgId: tenant.orgId, state: 'open' });
  const open = lines.find((l) => l.msg === 'vendor call failed' && l.code === 'CIRCUIT_OPEN');
  expect(open).toMatchObject({ level: 40, vendor: 'shopify', status: null });
  // The sandbox's error bodies carry a detail that must never reach a log line.
  expect(app.logs.join('\n')).not.toContain(SANDBOX_SECRET_DETAIL);
  expect(app.logs.join('\n')).not.toContain('sandbox fault 503');
});

test('a reconciliation: counted by how it settled, and a warning with code, vendor, tool and status', async () => {
  const tenant = await newTenant(app, ['shopify'], {}, [LOOKUP]);
  const runId = await startRun(app, tenant);
  // Another node (its own gateway and node id) takes the call and dies with it in flight.
  const { nodeId, gateway: dying } = await dyingNode(app);
  const toolUseId = `tu-${randomUUID()}`;
  void dying.execute({
    runId,
    toolName: 'order_lookup',
    action: 'lookup',
    params: { orderId: '12345' },
    correlationId: 'c',
    toolUseId,
    caller: { orgId: tenant.orgId, role: 'agent', keyId: null },
  });
  let callId: string | undefined;
  await until(async () => {
    const [row] = await app.em().execute<{ id: string }[]>("select id from tool_calls where tool_use_id = ? and status = 'running'", [toolUseId]);
    callId = row?.id;
    return callId !== undefined;
  }, 'the call running on the other node');
  const before = (await metrics()).value('toolgate_reconciliations_total', { outcome: 're_executed' });
  const logsFrom = app.logs.length;

  // An idempotent lookup is run again with the same idempotency key.
  expect(await app.services.reconciler.reconcile(callId!, nodeId, 'node_dead')).toBe('re_executed');

  expect((await metrics()).value('toolgate_reconciliations_total', { outcome: 're_executed' }) - before).toBe(1);
  const line = app.logs
    .slice(logsFrom)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l.msg === 'interrupted tool call reconciled');
  expect(line).toMatchObject({ level: 40, code: null, vendor: 'shopify', tool: LOOKUP, status: 200, reconciled: 're_executed', toolCallId: callId });
});
