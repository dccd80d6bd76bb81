import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../support/app';
import type { ExecutionRequest, LookupOutcome, ToolExecutor } from '../../src/executor/executor.types';
import type { NangoSandbox } from '../../src/vendors/nango/nango.sandbox';
import { QBO_DEMO_CUSTOMERS } from '../../src/vendors/nango/nango.sandbox-data';
import { SANDBOX_CREDENTIALS } from '../../src/vendors';
import { newTenant, resetSandbox, vendorRequests, type Tenant } from './executor-helpers';

/**
 * VendorExecutor.lookup: asks the vendor, with the call's idempotency key
 * (`toolgate-<toolCallId>`), whether a call happened. Never throws; every failure is
 * `unknown` with its reason. Retries are on (a lookup is a read), with short delays.
 */
const MAX_RETRIES = 2;
const INVOICE_QUERY = 'select * from Invoice';
const PARAMS = { customerId: QBO_DEMO_CUSTOMERS.amys, amount: 75.25, currency: 'USD', email: 'ap@amys.example' };

let app: TestApp;
let executor: ToolExecutor;
let nango: NangoSandbox;

beforeAll(async () => {
  app = await startTestApp(
    { VENDOR_MAX_RETRIES: String(MAX_RETRIES), VENDOR_RETRY_BASE_MS: '10', VENDOR_RETRY_MAX_DELAY_MS: '50', VENDOR_TIMEOUT_MS: '2000' },
    { sandboxes: true },
  );
  executor = app.services.executor;
  nango = app.sandbox!.sandbox<NangoSandbox>('nango')!;
});

afterAll(async () => app?.close());

beforeEach(() => {
  resetSandbox(app);
  nango.reset();
});

function invoiceRequest(tenant: Tenant, toolCallId = randomUUID(), params: Record<string, unknown> = PARAMS): ExecutionRequest {
  return {
    orgId: tenant.orgId,
    runId: randomUUID(),
    toolCallId,
    tool: { toolName: 'invoice', action: 'send', timeoutMs: null },
    params,
  };
}

const lookup = (request: ExecutionRequest): Promise<LookupOutcome> => executor.lookup!(request);

describe('VendorExecutor.lookup', () => {
  test('a performed call: performed, with the data execute returned', async () => {
    const tenant = await newTenant(app, ['nango']);
    const request = invoiceRequest(tenant);
    const executed = await executor.execute(request);
    expect(executed).toMatchObject({ ok: true, data: { emailStatus: 'EmailSent', sentTo: 'ap@amys.example' } });
    const creates = vendorRequests(app, 'nango', '/invoice').filter((r) => r.path.endsWith('/invoice'));
    expect(creates.map((r) => r.query.get('requestid'))).toEqual([`toolgate-${request.toolCallId}`]);

    const outcome = await lookup(request);
    expect(outcome).toEqual({ kind: 'performed', data: (executed as { data: unknown }).data, vendorStatusCode: 200 });
    expect(nango.effects()).toEqual([expect.objectContaining({ requestId: `toolgate-${request.toolCallId}`, emailsSent: 1 })]);
  });

  test('a call that never reached the vendor: not_performed', async () => {
    const tenant = await newTenant(app, ['nango']);
    await executor.execute(invoiceRequest(tenant));
    expect(await lookup(invoiceRequest(tenant))).toEqual({ kind: 'not_performed' });
  });

  test('created but not emailed: the lookup finishes it, once', async () => {
    const tenant = await newTenant(app, ['nango']);
    const request = invoiceRequest(tenant);
    // Refused on the call's send and on each of its resumes (the executor's lookup, with its retries).
    app.sandbox!.injectFault('nango', { kind: 'status', status: 503 }, { pathIncludes: '/send', times: MAX_RETRIES + 2 });
    expect(await executor.execute(request)).toMatchObject({
      ok: true,
      data: { emailStatus: 'NotSet', sentTo: null, partial: 'created_not_emailed' },
      metadata: { partial: 'created_not_emailed', resumed: false },
      reviewRequired: true,
    });
    expect(nango.effects()).toEqual([expect.objectContaining({ emailsSent: 0 })]);

    const first = await lookup(request);
    expect(first).toMatchObject({ kind: 'performed', data: { emailStatus: 'EmailSent', sentTo: 'ap@amys.example' } });
    expect(await lookup(request)).toEqual(first);
    expect(nango.effects()).toEqual([expect.objectContaining({ emailsSent: 1 })]);
    const sends = vendorRequests(app, 'nango', '/send').filter((r) => r.fault === null);
    expect(vendorRequests(app, 'nango', '/send')).toHaveLength(MAX_RETRIES + 3);
    expect(sends.map((r) => r.query.get('requestid'))).toEqual([`toolgate-${request.toolCallId}-send`]);
  });

  test('transient failures of the lookup are retried like a read', async () => {
    const tenant = await newTenant(app, ['nango']);
    const request = invoiceRequest(tenant);
    await executor.execute(request);
    resetSandbox(app);
    app.sandbox!.injectFault('nango', { kind: 'status', status: 503 }, { times: MAX_RETRIES, pathIncludes: INVOICE_QUERY });
    expect(await lookup(request)).toMatchObject({ kind: 'performed' });
    expect(vendorRequests(app, 'nango', '/query').map((r) => r.fault)).toEqual([...Array(MAX_RETRIES).fill('status'), null]);
  });

  test('the vendor cannot tell (503 on every attempt): unknown vendor_error, after the retries', async () => {
    const tenant = await newTenant(app, ['nango']);
    const request = invoiceRequest(tenant);
    app.sandbox!.injectFault('nango', { kind: 'status', status: 503 }, { times: MAX_RETRIES + 1, pathIncludes: INVOICE_QUERY });
    expect(await lookup(request)).toEqual({ kind: 'unknown', reason: 'vendor_error' });
    expect(vendorRequests(app, 'nango', '/query')).toHaveLength(MAX_RETRIES + 1);
  });

  test('a 400 is not retried; unreadable answers and timeouts are unknown with their reason', async () => {
    const tenant = await newTenant(app, ['nango']);
    app.sandbox!.injectFault('nango', { kind: 'status', status: 400 }, { pathIncludes: INVOICE_QUERY });
    expect(await lookup(invoiceRequest(tenant))).toEqual({ kind: 'unknown', reason: 'vendor_error' });
    expect(vendorRequests(app, 'nango', '/query')).toHaveLength(1);

    const other = await newTenant(app, ['nango']);
    app.sandbox!.injectFault('nango', { kind: 'malformed_json' }, { pathIncludes: INVOICE_QUERY });
    expect(await lookup(invoiceRequest(other))).toEqual({ kind: 'unknown', reason: 'vendor_malformed_response' });

    const slow = await newTenant(app, ['nango']);
    const request = invoiceRequest(slow);
    app.sandbox!.injectFault('nango', { kind: 'hang' }, { times: MAX_RETRIES + 1, pathIncludes: INVOICE_QUERY });
    expect(await lookup({ ...request, tool: { ...request.tool, timeoutMs: 150 } })).toEqual({ kind: 'unknown', reason: 'vendor_timeout' });
  });

  test('no lookup for the action, no handler: unknown no_lookup, nothing sent', async () => {
    const tenant = await newTenant(app, ['nango']);
    const balance = { ...invoiceRequest(tenant, randomUUID(), {}), tool: { toolName: 'account_balance', action: 'lookup', timeoutMs: null } };
    expect(await lookup(balance)).toEqual({ kind: 'unknown', reason: 'no_lookup' });
    const unknownTool = { ...balance, tool: { ...balance.tool, toolName: 'nothing', action: 'here' } };
    expect(await lookup(unknownTool)).toEqual({ kind: 'unknown', reason: 'no_lookup' });
    expect(vendorRequests(app, 'nango')).toHaveLength(0);
  });

  test('credentials missing or incomplete: unknown credentials_missing, nothing sent', async () => {
    const without = await newTenant(app, ['shopify']);
    expect(await lookup(invoiceRequest(without))).toEqual({ kind: 'unknown', reason: 'credentials_missing' });
    const partial = await newTenant(app, ['nango'], { nango: { ...SANDBOX_CREDENTIALS.nango, realmId: '' } });
    expect(await lookup(invoiceRequest(partial))).toEqual({ kind: 'unknown', reason: 'credentials_missing' });
    expect(vendorRequests(app, 'nango')).toHaveLength(0);
  });

  test('an open circuit breaker: unknown circuit_open, the vendor is not asked', async () => {
    const tenant = await newTenant(app, ['nango']);
    // Default threshold 5: 5 consecutive 503s (two lookups of 3 attempts) open it.
    app.sandbox!.injectFault('nango', { kind: 'status', status: 503 }, { times: 2 * (MAX_RETRIES + 1), pathIncludes: INVOICE_QUERY });
    expect(await lookup(invoiceRequest(tenant))).toEqual({ kind: 'unknown', reason: 'vendor_error' });
    const second = await lookup(invoiceRequest(tenant));
    expect(second).toMatchObject({ kind: 'unknown' });
    const before = vendorRequests(app, 'nango').length;
    expect(await lookup(invoiceRequest(tenant))).toEqual({ kind: 'unknown', reason: 'circuit_open' });
    expect(vendorRequests(app, 'nango')).toHaveLength(before);
  });
});
