import { startTestApp, type TestApp } from '../support/app';
import { ManualClock, timeOutHungAttempts } from '../support/clock';
import { graphql } from '../gql';
import { RESOLVE_APPROVAL, jsonAs } from '../support/documents';
import type { Fault } from '../../src/vendors/sandbox/sandbox-server';
import type { RetryRecord } from '../../src/executor/executor.types';
import { QBO_DEMO_CUSTOMERS } from '../../src/vendors/nango/nango.sandbox-data';
import {
  SANDBOX_SECRET_DETAIL,
  VENDOR_FAILURE_TEXT,
  callTool,
  dataOf,
  demoTenant,
  eventsOf,
  executeApproved,
  failedReason,
  inspectCall,
  resetSandbox,
  startRun,
  storedTextOf,
  vendorRequests,
  type Tenant,
  type ToolCallView,
} from './executor-helpers';

const RUN_OUTCOMES = graphql(`
  query RunOutcomes($id: ID!) {
    run(id: $id) { status errorCode toolCalls { status errorCode } ledgerEvents { type } }
  }
`);

/**
 * The executor's answer to every kind of vendor trouble, through the whole stack
 * (GraphQL → gateway → executor → sandbox over HTTP): what is retried, how long it waits,
 * what is recorded on the call and in the ledger, and that no vendor text gets out.
 * Settings: 800 ms per attempt, 3 retries (the default), 5 ms backoff base, Retry-After
 * honoured up to 5 s; the breaker is out of the way here (see breaker.test.ts). Time is a
 * manual clock: an attempt times out only when a test moves it (normal answers never time
 * out, however loaded the machine), while the executor's waits before a retry and the
 * sandbox's slow answers pass on it at once — so a call's recorded duration is exact.
 */
const TIMEOUT_MS = 800;
const MAX_RETRIES = 3;
const LOOKUP = 'order_lookup.lookup';
const ORDER = { orderId: '12345' };
const SHOPIFY_PATH = '/graphql.json';

let app: TestApp;
let tenant: Tenant;
let runId: string;
const clock = new ManualClock();

beforeAll(async () => {
  app = await startTestApp(
    {
      VENDOR_TIMEOUT_MS: String(TIMEOUT_MS),
      VENDOR_RETRY_BASE_MS: '5',
      VENDOR_RETRY_MAX_DELAY_MS: '5000',
      VENDOR_BREAKER_THRESHOLD: '1000',
    },
    { sandboxes: true, clock },
  );
  tenant = await demoTenant(app);
  runId = await startRun(app, tenant);
});

afterAll(async () => app?.close());

beforeEach(() => resetSandbox(app));

/** One order lookup with `times` of `fault` queued at the Shopify sandbox; hung attempts time out on the clock. */
async function lookup(fault?: Fault, times = 1) {
  if (fault) app.sandbox!.injectFault('shopify', fault, { times, pathIncludes: SHOPIFY_PATH });
  const pending = callTool(app, tenant, runId, LOOKUP, ORDER);
  if (fault?.kind === 'hang') await timeOutHungAttempts(clock, TIMEOUT_MS, times, () => vendorRequests(app, 'shopify', SHOPIFY_PATH).length);
  const { answer, raw } = await pending;
  const call = await inspectCall(app, tenant, answer.toolCallId);
  const seen = vendorRequests(app, 'shopify', SHOPIFY_PATH);
  // Every retry is one more request the vendor saw.
  expect(seen).toHaveLength(call.retryCount + 1);
  return { answer, raw, call, attempts: seen.length, faults: seen.map((r) => r.fault) };
}

/** The metadata of the call's tool_call.retried events: the executor's RetryRecords (and the tool). */
const retriedOf = (call: ToolCallView) => eventsOf(call, 'tool_call.retried').map((e) => jsonAs<RetryRecord & { tool: string }>(e.metadata));

describe('fault matrix: order_lookup.lookup (idempotent, Shopify)', () => {
  test('500 once: failed VENDOR_ERROR, not retried, fixed sentence, no vendor text anywhere', async () => {
    const { answer, raw, call, attempts } = await lookup({ kind: 'status', status: 500 });
    expect(answer).toMatchObject({ status: 'failed', result: null, error: { code: 'VENDOR_ERROR', message: VENDOR_FAILURE_TEXT } });
    expect(call).toMatchObject({
      status: 'failed',
      errorCode: 'VENDOR_ERROR',
      errorText: VENDOR_FAILURE_TEXT,
      vendorStatusCode: 500,
      retryCount: 0,
      costCents: 0,
    });
    expect(attempts).toBe(1);
    expect(retriedOf(call)).toEqual([]);
    expect(failedReason(call)).toBe('vendor_error');
    expect(eventsOf(call, 'tool_call.failed')[0].metadata).toMatchObject({ errorCode: 'VENDOR_ERROR', vendorStatusCode: 500, retryCount: 0 });

    const stored = await storedTextOf(app, answer.toolCallId);
    for (const text of [raw, call.raw, stored]) {
      expect(text).not.toContain(SANDBOX_SECRET_DETAIL);
      expect(text).not.toContain('sandbox fault');
    }
  });

  test('503 once, then success: succeeded after one retry, recorded as tool_call.retried', async () => {
    const { answer, call, attempts, faults } = await lookup({ kind: 'status', status: 503 });
    expect(answer.status).toBe('succeeded');
    expect(answer.error).toBeNull();
    expect(answer.result).toMatchObject({ orderNumber: '#12345' });
    expect(call).toMatchObject({ status: 'succeeded', errorCode: null, errorText: null, retryCount: 1, vendorStatusCode: 200 });
    expect(attempts).toBe(2);
    expect(faults).toEqual(['status', null]);
    const retried = retriedOf(call);
    expect(retried).toHaveLength(1);
    expect(retried[0]).toMatchObject({ tool: LOOKUP, attempt: 1, cause: '503' });
    // Exponential backoff with full jitter: base 5 ms → between 2.5 and 5 ms.
    expect(retried[0].delayMs).toBeGreaterThanOrEqual(2);
    expect(retried[0].delayMs).toBeLessThanOrEqual(5);
    expect(eventsOf(call, 'tool_call.succeeded')[0].metadata).toMatchObject({ retryCount: 1 });
  });

  test('503 four times: failed VENDOR_ERROR after VENDOR_MAX_RETRIES retries', async () => {
    const { answer, call, attempts, faults } = await lookup({ kind: 'status', status: 503 }, MAX_RETRIES + 1);
    expect(answer.error).toEqual({ code: 'VENDOR_ERROR', message: VENDOR_FAILURE_TEXT });
    expect(call).toMatchObject({ status: 'failed', errorCode: 'VENDOR_ERROR', vendorStatusCode: 503, retryCount: MAX_RETRIES });
    expect(attempts).toBe(MAX_RETRIES + 1);
    expect(faults).toEqual(['status', 'status', 'status', 'status']);
    const retried = retriedOf(call);
    expect(retried.map((r) => [r.attempt, r.cause])).toEqual([
      [1, '503'],
      [2, '503'],
      [3, '503'],
    ]);
    // Each delay within its exponential ceiling: 5, 10, 20 ms.
    retried.forEach((r, i) => {
      expect(r.delayMs).toBeLessThanOrEqual(5 * 2 ** i);
    });
    expect(failedReason(call)).toBe('vendor_error');
    expect(eventsOf(call, 'tool_call.failed')[0].metadata).toMatchObject({ retryCount: MAX_RETRIES, vendorStatusCode: 503 });
  });

  test.each([502, 504])('%i once is retried, then succeeds', async (status) => {
    const { answer, call, attempts } = await lookup({ kind: 'status', status });
    expect(answer.status).toBe('succeeded');
    expect(call.retryCount).toBe(1);
    expect(attempts).toBe(2);
    expect(retriedOf(call).map((r) => r.cause)).toEqual([String(status)]);
  });

  test('429 with Retry-After in seconds: waits that long, then succeeds', async () => {
    const { answer, call, attempts } = await lookup({ kind: 'rate_limit', retryAfter: 'seconds', seconds: 1 });
    expect(answer.status).toBe('succeeded');
    expect(call.retryCount).toBe(1);
    expect(attempts).toBe(2);
    const [retried] = retriedOf(call);
    expect(retried.cause).toBe('429');
    expect(retried.delayMs).toBeGreaterThanOrEqual(800);
    expect(retried.delayMs).toBeLessThanOrEqual(1200);
    expect(call.durationMs!).toBeGreaterThanOrEqual(retried.delayMs - 10);
  });

  test('429 with an HTTP-date Retry-After: the delay until that date is honoured', async () => {
    // The date has whole seconds: 3 s from now is between 2 and 3 s away when sent.
    const { answer, call, attempts } = await lookup({ kind: 'rate_limit', retryAfter: 'http_date', seconds: 3 });
    expect(answer.status).toBe('succeeded');
    expect(attempts).toBe(2);
    const [retried] = retriedOf(call);
    expect(retried.cause).toBe('429');
    // (Lower bound with room for a slow machine between sending and reading the header.)
    expect(retried.delayMs).toBeGreaterThanOrEqual(1000);
    expect(retried.delayMs).toBeLessThanOrEqual(3000);
    expect(call.durationMs!).toBeGreaterThanOrEqual(retried.delayMs - 10);
  });

  test('429 every time: failed VENDOR_RATE_LIMITED with vendorStatusCode 429', async () => {
    const { answer, call, attempts } = await lookup({ kind: 'rate_limit', retryAfter: 'seconds', seconds: 0 }, MAX_RETRIES + 1);
    expect(answer.error).toEqual({ code: 'VENDOR_RATE_LIMITED', message: VENDOR_FAILURE_TEXT });
    expect(call).toMatchObject({
      status: 'failed',
      errorCode: 'VENDOR_RATE_LIMITED',
      errorText: VENDOR_FAILURE_TEXT,
      vendorStatusCode: 429,
      retryCount: MAX_RETRIES,
    });
    expect(attempts).toBe(MAX_RETRIES + 1);
    expect(retriedOf(call).map((r) => [r.cause, r.delayMs])).toEqual([
      ['429', 0],
      ['429', 0],
      ['429', 0],
    ]);
    expect(failedReason(call)).toBe('vendor_rate_limited');
  });

  test('a Retry-After beyond VENDOR_RETRY_MAX_DELAY_MS is not waited for: rate-limited at once', async () => {
    const { answer, call, attempts } = await lookup({ kind: 'rate_limit', retryAfter: 'seconds', seconds: 30 }, 2);
    expect(answer.error?.code).toBe('VENDOR_RATE_LIMITED');
    expect(call).toMatchObject({ status: 'failed', vendorStatusCode: 429, retryCount: 0 });
    expect(attempts).toBe(1);
    expect(call.durationMs!).toBeLessThan(10_000);
    expect(failedReason(call)).toBe('vendor_rate_limited');
  });

  test('a hang times out after VENDOR_TIMEOUT_MS per attempt and is retried: failed VENDOR_TIMEOUT', async () => {
    const { answer, call, attempts, faults } = await lookup({ kind: 'hang' }, MAX_RETRIES + 1);
    expect(answer.error).toEqual({ code: 'VENDOR_TIMEOUT', message: VENDOR_FAILURE_TEXT });
    expect(call).toMatchObject({
      status: 'failed',
      errorCode: 'VENDOR_TIMEOUT',
      errorText: VENDOR_FAILURE_TEXT,
      vendorStatusCode: null,
      retryCount: MAX_RETRIES,
    });
    expect(attempts).toBe(MAX_RETRIES + 1);
    expect(faults).toEqual(['hang', 'hang', 'hang', 'hang']);
    expect(retriedOf(call).map((r) => r.cause)).toEqual(['timeout', 'timeout', 'timeout']);
    // On the clock: four timeouts and the three waits between them.
    const waits = retriedOf(call).reduce((sum, r) => sum + r.delayMs, 0);
    expect(call.durationMs!).toBeGreaterThanOrEqual((MAX_RETRIES + 1) * TIMEOUT_MS + waits - MAX_RETRIES);
    expect(failedReason(call)).toBe('vendor_timeout');
  });

  test('one hang, then an answer: succeeded after a timeout retry', async () => {
    const { answer, call, attempts } = await lookup({ kind: 'hang' });
    expect(answer.status).toBe('succeeded');
    expect(call.retryCount).toBe(1);
    expect(attempts).toBe(2);
    expect(retriedOf(call)[0]).toMatchObject({ attempt: 1, cause: 'timeout' });
    expect(call.durationMs!).toBeGreaterThanOrEqual(TIMEOUT_MS);
  });

  test('a slow answer under the timeout succeeds without a retry', async () => {
    const { answer, call, attempts, faults } = await lookup({ kind: 'slow', delayMs: 150 });
    expect(answer.status).toBe('succeeded');
    expect(answer.result).toMatchObject({ orderNumber: '#12345' });
    expect(call.retryCount).toBe(0);
    expect(attempts).toBe(1);
    expect(faults).toEqual(['slow']);
    expect(call.durationMs!).toBeGreaterThanOrEqual(150);
  });

  test('malformed JSON: VENDOR_ERROR vendor_malformed_response, not retried', async () => {
    const { answer, call, attempts } = await lookup({ kind: 'malformed_json' }, 2);
    expect(answer.error).toEqual({ code: 'VENDOR_ERROR', message: VENDOR_FAILURE_TEXT });
    expect(call).toMatchObject({ status: 'failed', errorCode: 'VENDOR_ERROR', retryCount: 0 });
    expect(attempts).toBe(1);
    expect(failedReason(call)).toBe('vendor_malformed_response');
  });

  test('401: VENDOR_ERROR vendor_auth_failed, not retried', async () => {
    const { answer, call, attempts, raw } = await lookup({ kind: 'status', status: 401 }, 2);
    expect(answer.error).toEqual({ code: 'VENDOR_ERROR', message: VENDOR_FAILURE_TEXT });
    expect(call).toMatchObject({ status: 'failed', vendorStatusCode: 401, retryCount: 0 });
    expect(attempts).toBe(1);
    expect(failedReason(call)).toBe('vendor_auth_failed');
    expect(raw + call.raw).not.toContain(SANDBOX_SECRET_DETAIL);
  });

  test('a connection reset is retried (cause connection_reset), then succeeds', async () => {
    const { answer, call, attempts, faults } = await lookup({ kind: 'reset' });
    expect(answer.status).toBe('succeeded');
    expect(call.retryCount).toBe(1);
    expect(attempts).toBe(2);
    expect(faults).toEqual(['reset', null]);
    expect(retriedOf(call)[0]).toMatchObject({ attempt: 1, cause: 'connection_reset' });
  });

  test('resets every time: failed VENDOR_ERROR connection_failed after the retries', async () => {
    const { answer, call, attempts } = await lookup({ kind: 'reset' }, MAX_RETRIES + 1);
    expect(answer.error?.code).toBe('VENDOR_ERROR');
    expect(call).toMatchObject({ status: 'failed', vendorStatusCode: null, retryCount: MAX_RETRIES });
    expect(attempts).toBe(MAX_RETRIES + 1);
    expect(retriedOf(call).map((r) => r.cause)).toEqual(['connection_reset', 'connection_reset', 'connection_reset']);
    expect(failedReason(call)).toBe('connection_failed');
  });
});

describe('non-idempotent actions are never retried', () => {
  test('invoice.send (approved by an expert) with a 503: failed VENDOR_ERROR, exactly one create request', async () => {
    const run = await startRun(app, tenant);
    const params = { customerId: QBO_DEMO_CUSTOMERS.amys, amount: 120, currency: 'USD', email: 'ap@amys.example' };
    const { answer: waiting } = await callTool(app, tenant, run, 'invoice.send', params);
    expect(waiting.status).toBe('waiting_approval');
    expect(waiting.approvalRequestId).toEqual(expect.any(String));
    expect(vendorRequests(app, 'nango')).toHaveLength(0);

    dataOf(await app.gql(RESOLVE_APPROVAL, { key: tenant.keys.expert, variables: { id: waiting.approvalRequestId!, decision: 'APPROVE' } }));
    // Enough 503s queued that any retry would show up as a second create.
    app.sandbox!.injectFault('nango', { kind: 'status', status: 503 }, { times: MAX_RETRIES + 1, pathIncludes: '/invoice' });
    const { answer, raw } = await executeApproved(app, tenant, waiting.toolCallId);
    expect(answer).toMatchObject({ status: 'failed', error: { code: 'VENDOR_ERROR', message: VENDOR_FAILURE_TEXT } });
    expect(raw).not.toContain(SANDBOX_SECRET_DETAIL);

    const call = await inspectCall(app, tenant, waiting.toolCallId);
    expect(call).toMatchObject({ status: 'failed', errorCode: 'VENDOR_ERROR', vendorStatusCode: 503, retryCount: 0, costCents: 0 });
    expect(retriedOf(call)).toEqual([]);
    expect(failedReason(call)).toBe('vendor_error');

    const creates = vendorRequests(app, 'nango', '/invoice');
    expect(creates).toHaveLength(1);
    expect(creates[0]).toMatchObject({ method: 'POST', fault: 'status' });
    expect(creates[0].path).toMatch(/\/invoice$/);
  });
});

describe('a vendor failure never fails the run', () => {
  test('after a failed call the run is still running and the next call succeeds', async () => {
    const run = await startRun(app, tenant);
    app.sandbox!.injectFault('shopify', { kind: 'status', status: 500 });
    const failed = await callTool(app, tenant, run, LOOKUP, ORDER);
    expect(failed.answer.status).toBe('failed');
    app.sandbox!.injectFault('shopify', { kind: 'malformed_json' });
    const unreadable = await callTool(app, tenant, run, LOOKUP, ORDER);
    expect(unreadable.answer.status).toBe('failed');

    const during = dataOf(await app.gql(RUN_OUTCOMES, { key: tenant.keys.admin, variables: { id: run } })).run;
    expect(during.status).toBe('running');
    expect(during.errorCode).toBeNull();

    const next = await callTool(app, tenant, run, LOOKUP, ORDER);
    expect(next.answer).toMatchObject({ status: 'succeeded', error: null, result: { orderNumber: '#12345' } });

    const after = dataOf(await app.gql(RUN_OUTCOMES, { key: tenant.keys.admin, variables: { id: run } })).run;
    expect(after.status).toBe('running');
    expect(after.toolCalls).toEqual([
      { status: 'failed', errorCode: 'VENDOR_ERROR' },
      { status: 'failed', errorCode: 'VENDOR_ERROR' },
      { status: 'succeeded', errorCode: null },
    ]);
    expect(after.ledgerEvents.map((e) => e.type)).not.toContain('run.failed');
  });
});
