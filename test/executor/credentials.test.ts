import { startTestApp, type TestApp } from '../support/app';
import { SANDBOX_CREDENTIALS } from '../../src/vendors';
import {
  NOT_CONFIGURED_TEXT,
  callTool,
  eventsOf,
  failedReason,
  inspectCall,
  newTenant,
  putCredential,
  resetSandbox,
  sql,
  startRun,
  storedTextOf,
  vendorRequests,
} from './executor-helpers';

/**
 * The executor reads the org's credential for the vendor on every call: a missing one is
 * CREDENTIALS_NOT_FOUND, one that does not decrypt for this org is CREDENTIALS_UNREADABLE;
 * either way the vendor is never called and nothing of the credential is recorded.
 */
const LOOKUP = 'order_lookup.lookup';
const ORDER = { orderId: '12345' };

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ VENDOR_TIMEOUT_MS: '2000', VENDOR_RETRY_BASE_MS: '5' }, { sandboxes: true });
});

afterAll(async () => app?.close());

beforeEach(() => resetSandbox(app));

test('a working credential reaches the vendor (the baseline of the cases below)', async () => {
  const tenant = await newTenant(app);
  const { answer } = await callTool(app, tenant, await startRun(app, tenant), LOOKUP, ORDER);
  expect(answer.status).toBe('succeeded');
  expect(vendorRequests(app, 'shopify')).toHaveLength(1);
});

test('no credential for the vendor: CREDENTIALS_NOT_FOUND, reason credentials_missing, vendor not called', async () => {
  const tenant = await newTenant(app);
  const runId = await startRun(app, tenant);
  const deleted = await sql(app, "delete from integration_credentials where org_id = ? and integration_type = 'shopify' returning id", [
    tenant.orgId,
  ]);
  expect(deleted).toHaveLength(1);

  const { answer } = await callTool(app, tenant, runId, LOOKUP, ORDER);
  expect(answer).toMatchObject({ status: 'failed', result: null, error: { code: 'CREDENTIALS_NOT_FOUND', message: NOT_CONFIGURED_TEXT } });
  const call = await inspectCall(app, tenant, answer.toolCallId);
  expect(call).toMatchObject({
    status: 'failed',
    errorCode: 'CREDENTIALS_NOT_FOUND',
    errorText: NOT_CONFIGURED_TEXT,
    vendorStatusCode: null,
    retryCount: 0,
    costCents: 0,
  });
  expect(failedReason(call)).toBe('credentials_missing');
  expect(eventsOf(call, 'tool_call.failed')[0].metadata).toMatchObject({ errorCode: 'CREDENTIALS_NOT_FOUND', tool: LOOKUP });
  expect(vendorRequests(app, 'shopify')).toHaveLength(0);

  // The run goes on: a credential put back is used by the next call.
  await putCredential(app, tenant.keys.admin, 'shopify', { ...SANDBOX_CREDENTIALS.shopify });
  expect((await callTool(app, tenant, runId, LOOKUP, ORDER)).answer.status).toBe('succeeded');
});

test('a credential lacking a required field counts as not configured', async () => {
  const tenant = await newTenant(app, ['shopify'], { shopify: { shopDomain: 'demo-shop.myshopify.com' } });
  const { answer } = await callTool(app, tenant, await startRun(app, tenant), LOOKUP, ORDER);
  expect(answer.error).toEqual({ code: 'CREDENTIALS_NOT_FOUND', message: NOT_CONFIGURED_TEXT });
  const call = await inspectCall(app, tenant, answer.toolCallId);
  expect(failedReason(call)).toBe('credentials_missing');
  expect(vendorRequests(app, 'shopify')).toHaveLength(0);
});

/** A null required field is not configured: CREDENTIALS_NOT_FOUND, not a handler error. */
test('a required field set to null counts as not configured', async () => {
  const tenant = await newTenant(app, ['shopify'], { shopify: { shopDomain: 'demo-shop.myshopify.com', accessToken: null } });
  const { answer } = await callTool(app, tenant, await startRun(app, tenant), LOOKUP, ORDER);
  expect(answer.error).toEqual({ code: 'CREDENTIALS_NOT_FOUND', message: NOT_CONFIGURED_TEXT });
});

test("another org's ciphertext does not decrypt: CREDENTIALS_UNREADABLE, vendor not called", async () => {
  const a = await newTenant(app);
  const b = await newTenant(app);
  const copied = await sql(
    app,
    `update integration_credentials b set encrypted_config = a.encrypted_config
       from integration_credentials a
      where a.org_id = ? and a.integration_type = 'shopify' and b.org_id = ? and b.integration_type = 'shopify'
      returning b.id`,
    [a.orgId, b.orgId],
  );
  expect(copied).toHaveLength(1);

  const { answer, raw } = await callTool(app, b, await startRun(app, b), LOOKUP, ORDER);
  expect(answer).toMatchObject({ status: 'failed', error: { code: 'CREDENTIALS_UNREADABLE', message: NOT_CONFIGURED_TEXT } });
  const call = await inspectCall(app, b, answer.toolCallId);
  expect(call).toMatchObject({ status: 'failed', errorCode: 'CREDENTIALS_UNREADABLE', errorText: NOT_CONFIGURED_TEXT, retryCount: 0 });
  expect(failedReason(call)).toBe('credentials_unreadable');
  expect(vendorRequests(app, 'shopify')).toHaveLength(0);

  // Nothing of the secret surfaces, decrypted or not.
  const stored = await storedTextOf(app, answer.toolCallId);
  for (const text of [raw, call.raw, stored]) {
    expect(text).not.toContain(SANDBOX_CREDENTIALS.shopify.accessToken as string);
    expect(text).not.toContain('ciphertext');
  }

  // Org A's own credential still works.
  expect((await callTool(app, a, await startRun(app, a), LOOKUP, ORDER)).answer.status).toBe('succeeded');
});
