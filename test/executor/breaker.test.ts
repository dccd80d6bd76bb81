import { startTestApp, type TestApp } from '../support/app';
import { ManualClock, timeOutHungAttempts } from '../support/clock';
import type { Fault } from '../../src/vendors/sandbox/sandbox-server';
import { JUMIO_DEMO_ACCOUNT_ID, JUMIO_DEMO_EXECUTIONS } from '../../src/vendors/jumio/jumio.sandbox-data';
import {
  VENDOR_FAILURE_TEXT,
  callTool,
  eventsOf,
  failedReason,
  inspectCall,
  newTenant,
  resetSandbox,
  startRun,
  vendorRequests,
  type Tenant,
} from './executor-helpers';

/**
 * The circuit breaker per org and vendor: THRESHOLD consecutive vendor failures (5xx,
 * timeouts, resets, unreadable answers) open it; an open breaker fails calls with
 * CIRCUIT_OPEN without calling the vendor; after VENDOR_BREAKER_HALF_OPEN_MS one probe goes
 * through and its outcome closes or re-opens it. Retries are off so one call is one
 * attempt; every test uses a fresh org, so no breaker state leaks between tests.
 *
 * The half-open delay and the attempt timeout run on a manual clock: the probe tests
 * advance it by PROBE_AFTER_MS and the hang test by one timeout per attempt instead of
 * sleeping, and the other tests never move it, so no breaker half-opens (and no attempt
 * times out) behind their back however slow the machine.
 */
const THRESHOLD = 3;
const PROBE_AFTER_MS = 60_000;
const TIMEOUT_MS = 800;
const LOOKUP = 'order_lookup.lookup';
const ORDER = { orderId: '12345' };

const clock = new ManualClock();
let app: TestApp;

beforeAll(async () => {
  // The app's vendor executor reads the manual clock: the half-open delay passes only when a test moves it.
  app = await startTestApp(
    {
      VENDOR_MAX_RETRIES: '0',
      VENDOR_TIMEOUT_MS: String(TIMEOUT_MS),
      VENDOR_BREAKER_THRESHOLD: String(THRESHOLD),
      VENDOR_BREAKER_HALF_OPEN_MS: String(PROBE_AFTER_MS),
    },
    { sandboxes: true, clock },
  );
});

afterAll(async () => {
  await app?.close();
});

beforeEach(() => {
  resetSandbox(app);
});

interface Org {
  app: TestApp;
  tenant: Tenant;
  runId: string;
}

/** A new org; by default with order_lookup.lookup only (less to set up), null: every tool of the vendors. */
async function freshOrg(vendors: string[] = ['shopify'], only: string[] | null = [LOOKUP]): Promise<Org> {
  const tenant = await newTenant(app, vendors, {}, only ?? undefined);
  return { app, tenant, runId: await startRun(app, tenant) };
}

/** One call; how many requests reached the vendor during it. */
async function call(org: Org, fault?: Fault, tool = LOOKUP, params: Record<string, unknown> = ORDER) {
  const vendor = tool === LOOKUP || tool.startsWith('shopify') ? 'shopify' : 'jumio';
  if (fault) org.app.sandbox!.injectFault(vendor, fault);
  const before = vendorRequests(org.app, vendor).length;
  const { answer } = await callTool(org.app, org.tenant, org.runId, tool, params);
  return { answer, requests: vendorRequests(org.app, vendor).length - before };
}

const HTTP_503: Fault = { kind: 'status', status: 503 };

async function trip(org: Org, fault: Fault = HTTP_503): Promise<void> {
  for (let i = 0; i < THRESHOLD; i += 1) {
    const { answer, requests } = await call(org, fault);
    expect(answer.status).toBe('failed');
    expect(answer.error?.code).not.toBe('CIRCUIT_OPEN');
    expect(requests).toBe(1);
  }
}

async function expectOpen(org: Org, tool = LOOKUP, params: Record<string, unknown> = ORDER): Promise<void> {
  const { answer, requests } = await call(org, undefined, tool, params);
  expect(answer.error).toEqual({ code: 'CIRCUIT_OPEN', message: VENDOR_FAILURE_TEXT });
  expect(requests).toBe(0);
}

async function expectClosed(org: Org): Promise<void> {
  const { answer, requests } = await call(org);
  expect(answer.status).toBe('succeeded');
  expect(requests).toBe(1);
}

test('THRESHOLD consecutive 503s open the breaker: the next call fails CIRCUIT_OPEN without reaching the vendor', async () => {
  const org = await freshOrg(['shopify', 'jumio'], null);
  await trip(org);

  const { answer, requests } = await call(org);
  expect(answer).toMatchObject({ status: 'failed', result: null, error: { code: 'CIRCUIT_OPEN', message: VENDOR_FAILURE_TEXT } });
  expect(requests).toBe(0);
  const recorded = await inspectCall(org.app, org.tenant, answer.toolCallId);
  expect(recorded).toMatchObject({
    status: 'failed',
    errorCode: 'CIRCUIT_OPEN',
    errorText: VENDOR_FAILURE_TEXT,
    vendorStatusCode: null,
    retryCount: 0,
    costCents: 0,
  });
  expect(failedReason(recorded)).toBe('circuit_open');
  expect(eventsOf(recorded, 'tool_call.failed')[0].metadata).toMatchObject({ errorCode: 'CIRCUIT_OPEN' });

  // The breaker is the vendor's: another Shopify tool is refused too, another vendor is not.
  await expectOpen(org, 'shopify_query.get_product', { productId: '632910392' });
  const kyc = await call(org, undefined, 'kyc_check.get_status', {
    accountId: JUMIO_DEMO_ACCOUNT_ID,
    workflowExecutionId: JUMIO_DEMO_EXECUTIONS.passed,
  });
  expect(kyc.answer.status).toBe('succeeded');
  expect(kyc.requests).toBeGreaterThanOrEqual(1);
});

test('after VENDOR_BREAKER_HALF_OPEN_MS a successful probe closes the breaker', async () => {
  const org = await freshOrg();
  await trip(org);
  await expectOpen(org);
  clock.advance(PROBE_AFTER_MS - 1);
  await expectOpen(org);

  clock.advance(1);
  const probe = await call(org);
  expect(probe.answer.status).toBe('succeeded');
  expect(probe.requests).toBe(1);
  await expectClosed(org);
  await expectClosed(org);
  // Closed means counting from zero again: THRESHOLD - 1 failures do not open it.
  for (let i = 0; i < THRESHOLD - 1; i += 1) expect((await call(org, HTTP_503)).requests).toBe(1);
  await expectClosed(org);
});

test('a failed probe re-opens the breaker for another VENDOR_BREAKER_HALF_OPEN_MS', async () => {
  const org = await freshOrg();
  await trip(org);
  await expectOpen(org);

  clock.advance(PROBE_AFTER_MS);
  const probe = await call(org, HTTP_503);
  expect(probe.answer.error?.code).toBe('VENDOR_ERROR');
  expect(probe.requests).toBe(1);
  await expectOpen(org);
  clock.advance(PROBE_AFTER_MS - 1);
  await expectOpen(org);

  clock.advance(1);
  await expectClosed(org);
  await expectClosed(org);
});

test('the breaker of one org does not affect another org using the same vendor', async () => {
  const a = await freshOrg();
  const b = await freshOrg();
  await trip(a);
  await expectOpen(a);

  await expectClosed(b);
  await expectOpen(a);
  await expectClosed(b);
});

test('4xx answers (unknown order 404, 401, 429) do not open it', async () => {
  const org = await freshOrg();
  for (let i = 0; i < THRESHOLD + 2; i += 1) {
    const { answer, requests } = await call(org, undefined, LOOKUP, { orderId: '99999' });
    expect(answer.error?.code).toBe('VENDOR_ERROR');
    expect(requests).toBe(1);
    const recorded = await inspectCall(org.app, org.tenant, answer.toolCallId);
    expect(recorded.vendorStatusCode).toBe(404);
    expect(failedReason(recorded)).toBe('vendor_error');
  }
  for (let i = 0; i < THRESHOLD; i += 1) {
    expect((await call(org, { kind: 'status', status: 401 })).answer.error?.code).toBe('VENDOR_ERROR');
    expect((await call(org, { kind: 'rate_limit', retryAfter: 'seconds', seconds: 0 })).answer.error?.code).toBe('VENDOR_RATE_LIMITED');
  }
  await expectClosed(org);
});

test('timeouts count as vendor failures: THRESHOLD hangs open it', async () => {
  const org = await freshOrg();
  for (let i = 0; i < THRESHOLD; i += 1) {
    const before = vendorRequests(org.app, 'shopify').length;
    const pending = call(org, { kind: 'hang' });
    await timeOutHungAttempts(clock, TIMEOUT_MS, 1, () => vendorRequests(org.app, 'shopify').length - before);
    const { answer, requests } = await pending;
    expect(answer.error?.code).toBe('VENDOR_TIMEOUT');
    expect(requests).toBe(1);
  }
  await expectOpen(org);
});

test('only consecutive failures count: a success in between resets the count', async () => {
  const org = await freshOrg();
  for (let i = 0; i < THRESHOLD - 1; i += 1) await call(org, HTTP_503);
  await expectClosed(org);
  for (let i = 0; i < THRESHOLD - 1; i += 1) await call(org, HTTP_503);
  await expectClosed(org);
});

/** An answer the vendor gave (a 4xx) between failures resets the consecutive count. */
test('a 4xx answer between vendor failures resets the consecutive count', async () => {
  const org = await freshOrg();
  for (let i = 0; i < THRESHOLD - 1; i += 1) await call(org, HTTP_503);
  expect((await call(org, undefined, LOOKUP, { orderId: '99999' })).requests).toBe(1);
  await call(org, HTTP_503);
  await expectClosed(org);
});
