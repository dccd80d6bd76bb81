import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../support/app';
import { graphql } from '../gql';
import { SANDBOX_CREDENTIALS } from '../../src/vendors';
import { JUMIO_DEMO_ACCOUNT_ID, JUMIO_DEMO_EXECUTIONS } from '../../src/vendors/jumio/jumio.sandbox-data';
import {
  callTool,
  dataOf,
  demoTenant,
  eventsOf,
  failedReason,
  inspectCall,
  newTenant,
  resetSandbox,
  sql,
  startRun,
  vendorRequests,
  type Tenant,
} from './executor-helpers';

const RUN_COST = graphql(`
  query RunCost($id: ID!) {
    run(id: $id) { toolCostCents }
  }
`);

/**
 * Wire behaviour seen through the executor (token caching, per-tool timeouts), the cost
 * of calls, and the logs: one app with captured logs at trace level, retries off.
 */
const DEFAULT_TIMEOUT_MS = 1000;
/**
 * tool_definitions.timeout_ms written before the app's first call (the catalog is loaded once)
 * and after the demo seed's ensureCatalog (which writes each action's own timeout, here none).
 */
const LOOKUP_TIMEOUT_MS = 150;
const PRODUCT_TIMEOUT_MS = 4000;
const AMAZON_ORDER = { orderId: '902-3159896-1390916' };
const KYC = { accountId: JUMIO_DEMO_ACCOUNT_ID, workflowExecutionId: JUMIO_DEMO_EXECUTIONS.passed };

let app: TestApp;
let demo: Tenant;

beforeAll(async () => {
  app = await startTestApp({ VENDOR_TIMEOUT_MS: String(DEFAULT_TIMEOUT_MS), VENDOR_MAX_RETRIES: '0' }, { sandboxes: true, captureLogs: true });
  demo = await demoTenant(app);
  await sql(app, "update tool_definitions set timeout_ms = ? where tool_name = 'order_lookup' and action = 'lookup'", [LOOKUP_TIMEOUT_MS]);
  await sql(app, "update tool_definitions set timeout_ms = ? where tool_name = 'shopify_query' and action = 'get_product'", [PRODUCT_TIMEOUT_MS]);
});

afterAll(async () => app?.close());

beforeEach(() => resetSandbox(app));

describe('wire behaviour through the executor', () => {
  test('the Amazon LWA access token is exchanged once for two calls', async () => {
    const runId = await startRun(app, demo);
    const first = await callTool(app, demo, runId, 'amazon_query.get_order', AMAZON_ORDER);
    const second = await callTool(app, demo, runId, 'amazon_query.get_order', AMAZON_ORDER);
    expect(first.answer.status).toBe('succeeded');
    expect(second.answer.status).toBe('succeeded');
    expect(second.answer.result).toMatchObject({ orderId: AMAZON_ORDER.orderId });

    const tokens = vendorRequests(app, 'amazon', '/auth/o2/token');
    expect(tokens).toHaveLength(1);
    expect(tokens[0].body).toMatchObject({ grant_type: 'refresh_token', refresh_token: SANDBOX_CREDENTIALS.amazon.refreshToken });
    const spApi = vendorRequests(app, 'amazon', '/orders/v0/orders/');
    expect(spApi.length).toBeGreaterThanOrEqual(2);
    const sent = new Set(spApi.map((r) => r.headers['x-amz-access-token']));
    expect(sent.size).toBe(1);
    expect([...sent][0]).toMatch(/^Atza\|/);
  });

  test("another org's different Amazon credential never gets the cached token: its own exchange, refused", async () => {
    const other = await newTenant(app, ['amazon'], {
      amazon: { ...SANDBOX_CREDENTIALS.amazon, refreshToken: 'Atzr|some-other-seller-refresh-token' },
    });
    const { answer } = await callTool(app, other, await startRun(app, other), 'amazon_query.get_order', AMAZON_ORDER);
    expect(answer.status).toBe('failed');
    expect(answer.error?.code).toBe('VENDOR_ERROR');
    expect(vendorRequests(app, 'amazon', '/auth/o2/token')).toHaveLength(1);
    expect(vendorRequests(app, 'amazon', '/orders/')).toHaveLength(0);
  });

  test("a tool's catalog timeout_ms overrides VENDOR_TIMEOUT_MS, shorter or longer", async () => {
    const runId = await startRun(app, demo);

    // order_lookup.lookup: 150 ms, so a 600 ms answer (well within the 1 s default) times out.
    app.sandbox!.injectFault('shopify', { kind: 'slow', delayMs: 600 });
    const lookup = await callTool(app, demo, runId, 'order_lookup.lookup', { orderId: '12345' });
    expect(lookup.answer.error?.code).toBe('VENDOR_TIMEOUT');
    const lookupCall = await inspectCall(app, demo, lookup.answer.toolCallId);
    expect(failedReason(lookupCall)).toBe('vendor_timeout');
    expect(lookupCall.durationMs!).toBeGreaterThanOrEqual(LOOKUP_TIMEOUT_MS - 10);

    // shopify_query.get_product: 4 s, so a 1.4 s answer (beyond the default) succeeds.
    app.sandbox!.injectFault('shopify', { kind: 'slow', delayMs: 1400 });
    const product = await callTool(app, demo, runId, 'shopify_query.get_product', { productId: '632910392' });
    expect(product.answer.status).toBe('succeeded');
    expect((await inspectCall(app, demo, product.answer.toolCallId)).durationMs!).toBeGreaterThanOrEqual(1400);

    // Control: a tool without timeout_ms keeps the default.
    app.sandbox!.injectFault('jumio', { kind: 'slow', delayMs: 1400 }, { pathIncludes: '/workflow-executions/' });
    const kyc = await callTool(app, demo, runId, 'kyc_check.get_status', KYC);
    expect(kyc.answer.error?.code).toBe('VENDOR_TIMEOUT');
  });
});

describe('cost', () => {
  test('a succeeded kyc_check.get_status costs 5 cents, failed calls cost 0, the run adds them up', async () => {
    const runId = await startRun(app, demo);
    const costOf = async (toolCallId: string) => (await inspectCall(app, demo, toolCallId)).costCents;
    const runCost = async () => dataOf(await app.gql(RUN_COST, { key: demo.keys.admin, variables: { id: runId } })).run.toolCostCents;

    const first = await callTool(app, demo, runId, 'kyc_check.get_status', KYC);
    expect(first.answer.status).toBe('succeeded');
    const firstCall = await inspectCall(app, demo, first.answer.toolCallId);
    expect(firstCall.costCents).toBe(5);
    expect(eventsOf(firstCall, 'tool_call.succeeded')[0].metadata).toMatchObject({ costCents: 5 });
    expect(await runCost()).toBe(5);

    app.sandbox!.injectFault('jumio', { kind: 'status', status: 503 }, { pathIncludes: '/workflow-executions/' });
    const failed = await callTool(app, demo, runId, 'kyc_check.get_status', KYC);
    expect(failed.answer.status).toBe('failed');
    expect(await costOf(failed.answer.toolCallId)).toBe(0);
    expect(await runCost()).toBe(5);

    const second = await callTool(app, demo, runId, 'kyc_check.get_status', KYC);
    expect(await costOf(second.answer.toolCallId)).toBe(5);
    const balance = await callTool(app, demo, runId, 'account_balance.lookup', {});
    expect(balance.answer.status).toBe('succeeded');
    expect(await costOf(balance.answer.toolCallId)).toBe(1);
    expect(await runCost()).toBe(11);

    app.sandbox!.injectFault('nango', { kind: 'hang' });
    const timedOut = await callTool(app, demo, runId, 'account_balance.lookup', {});
    expect(timedOut.answer.error?.code).toBe('VENDOR_TIMEOUT');
    expect(await costOf(timedOut.answer.toolCallId)).toBe(0);
    expect(await runCost()).toBe(11);
  });
});

describe('logs', () => {
  test('a canary in org credentials appears in no log line, whether calls succeed or fail', async () => {
    const canary = `canary-${randomUUID()}`;
    const logsBefore = app.logs.length;
    const tenant = await newTenant(app, ['shopify', 'jumio', 'nango'], {
      // Extra field of a working credential: succeeding and failing calls carry it.
      shopify: { ...SANDBOX_CREDENTIALS.shopify, canaryNote: canary },
      // A secret the vendor refuses: sent on the wire, answered 401.
      jumio: { ...SANDBOX_CREDENTIALS.jumio, clientSecret: canary },
      // An unusable realm: the handler throws before any request (logged as a handler failure).
      nango: { ...SANDBOX_CREDENTIALS.nango, secretKey: canary, realmId: 'not-a-realm' },
    });
    const runId = await startRun(app, tenant);

    const outcomes: string[] = [];
    const call = async (tool: string, params: Record<string, unknown>) => {
      const { answer, raw } = await callTool(app, tenant, runId, tool, params);
      outcomes.push(answer.status);
      return raw;
    };
    const answers = [await call('order_lookup.lookup', { orderId: '12345' })];
    app.sandbox!.injectFault('shopify', { kind: 'status', status: 500 });
    answers.push(await call('order_lookup.lookup', { orderId: '12345' }));
    app.sandbox!.injectFault('shopify', { kind: 'malformed_json' });
    answers.push(await call('shopify_query.get_product', { productId: '632910392' }));
    answers.push(await call('order_lookup.lookup', { orderId: '99999' }));
    answers.push(await call('kyc_check.get_status', KYC));
    answers.push(await call('account_balance.lookup', {}));
    expect(outcomes).toEqual(['succeeded', 'failed', 'failed', 'failed', 'failed', 'failed']);

    // The canary did travel: Jumio saw it in the Basic credentials of the token request.
    const basic = Buffer.from(`${SANDBOX_CREDENTIALS.jumio.clientId}:${canary}`).toString('base64');
    expect(vendorRequests(app, 'jumio', '/oauth2/token').map((r) => r.headers.authorization)).toContain(`Basic ${basic}`);

    const lines = app.logs.slice(logsBefore);
    expect(lines.some((line) => line.includes('vendor handler failed'))).toBe(true);
    expect(lines.some((line) => line.includes('graphql operation'))).toBe(true);
    for (const line of app.logs) {
      expect(line).not.toContain(canary);
      expect(line).not.toContain(basic);
    }
    // Nor in what the API answered or stored.
    for (const raw of answers) expect(raw).not.toContain(canary);
    const stored = await sql(
      app,
      `select (select coalesce(string_agg(row_to_json(t)::text, ''), '') from tool_calls t where org_id = ?) ||
              (select coalesce(string_agg(row_to_json(e)::text, ''), '') from ledger_events e where org_id = ?) as text`,
      [tenant.orgId, tenant.orgId],
    );
    expect(String(stored[0].text)).not.toContain(canary);
  });
});
