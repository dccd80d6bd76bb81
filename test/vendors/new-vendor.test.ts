import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../support/app';
import { newOrg } from '../support/factories';
import { callTool, dataOf, inspectCall, startRun, tenantWith, type Tenant } from '../executor/executor-helpers';
import { graphql } from '../gql';
import { loadConfig } from '../../src/config';
import { catalogOf } from '../../src/catalog/tool-catalog';
import { ensureCatalog } from '../../src/catalog/catalog.service';
import { toolKey } from '../../src/catalog/tool-key';
import { ToolRegistry } from '../../src/gateway/tool-registry';
import { toolsForManifest } from '../../src/llm/tool-definitions';
import type { SandboxServer, VendorSandbox } from '../../src/vendors/sandbox/sandbox-server';
import { VendorProtocolError, type VendorAction, type VendorHandler } from '../../src/vendors/vendor-handler';
import { fetchJson } from '../../src/vendors/http';
import { VENDORS, endpointVariables, handlersOf, sandboxCredentials, type VendorRegistration } from '../../src/vendors';

/**
 * Adding a vendor (docs/architecture.md, "Adding a vendor"): a vendor defined in this file —
 * a handler with one action and a one-route sandbox — is registered the way production
 * registers its vendors (one entry in a VendorRegistration list, from which the catalog, the
 * executor's handlers, the sandboxes and the endpoint variables are derived), is listed in
 * the catalog, offered to the model, and executed end to end through executeToolCall.
 */

// --- the vendor: what src/vendors/acme/ would hold ---

interface StockInput {
  sku: string;
}

interface StockResult {
  sku: string;
  available: number;
  warehouse: string;
}

const checkStockAction: VendorAction<StockInput, StockResult> = {
  toolName: 'acme_stock',
  action: 'check',
  description: 'Check how many units of an Acme SKU are in stock.',
  inputSchema: {
    type: 'object',
    properties: { sku: { type: 'string', pattern: '^[A-Z0-9-]{3,32}$', description: 'The SKU, e.g. ANV-100' } },
    required: ['sku'],
    additionalProperties: false,
  },
  defaultRisk: 'medium',
  costCents: 3,
  idempotent: true,
  timeoutMs: 2000,
  describeResult: '{ sku, available: units in stock, warehouse }',
  async execute(input, ctx) {
    const { body } = await fetchJson<Partial<StockResult>>(`${ctx.urls.api}/v1/stock/${encodeURIComponent(input.sku)}`, {
      headers: { authorization: `Bearer ${String(ctx.credentials.apiKey)}` },
      signal: ctx.signal,
      clock: ctx.clock,
    });
    if (typeof body?.available !== 'number' || typeof body.warehouse !== 'string') throw new VendorProtocolError(200);
    return { sku: input.sku, available: body.available, warehouse: body.warehouse };
  },
};

const acmeHandler: VendorHandler = {
  vendor: 'acme',
  credentialSpec: { integrationType: 'acme', required: ['apiKey'] },
  endpoints: { api: { env: 'ACME_API_URL', production: () => 'https://api.acme.example' } },
  actions: [checkStockAction],
};

const ACME_SANDBOX_KEY = 'acme-sandbox-key';

function createAcmeSandbox(): VendorSandbox {
  return {
    vendor: 'acme',
    routes: [
      {
        method: 'GET',
        path: /^\/v1\/stock\/(?<sku>[A-Z0-9-]+)$/,
        handle: (request) =>
          request.headers.authorization === `Bearer ${ACME_SANDBOX_KEY}`
            ? { status: 200, json: { sku: request.params.sku, available: 42, warehouse: 'RNO-1' } }
            : { status: 401, json: { error: 'unauthorized' } },
      },
    ],
  };
}

// --- its registration: the one line src/vendors/index.ts would get ---

const acme: VendorRegistration = { handler: acmeHandler, sandbox: { create: createAcmeSandbox, credentials: { apiKey: ACME_SANDBOX_KEY } } };
const vendors: readonly VendorRegistration[] = [...VENDORS, acme];
const TOOL = toolKey('acme_stock', 'check');

let app: TestApp;
let sandbox: SandboxServer;

beforeAll(async () => {
  // The app composed with `vendors` instead of VENDORS: executor handlers and sandboxes.
  app = await startTestApp({}, { vendors, sandboxes: true });
  sandbox = app.sandbox!;
  // What `toolgate start` does with VENDORS; before the first call loads the gateway's catalog.
  await ensureCatalog(app.em(), catalogOf(handlersOf(vendors)));
});

afterAll(async () => app?.close());

/** A fresh org with the tool-calling flag, the new tool enabled and bound, and the sandbox credential. */
const acmeTenant = (): Promise<Tenant> => tenantWith(app, [{ toolName: 'acme_stock', action: 'check' }], { acme: sandboxCredentials(vendors).acme });

const CATALOG = graphql(`
  query FullCatalog {
    toolCatalog { name toolName action vendor description defaultRisk idempotent inputSchema costCents enabled }
  }
`);
const DECISION = graphql(`
  query CallDecision($id: ID!) {
    toolCall(id: $id) { reviewRequired policyDecision { outcome risk matchedRuleId reason } }
  }
`);

describe('a vendor added by its folder and one registration line', () => {
  test('the catalog lists its action as the action declares it, with the vendor of its handler', async () => {
    const made = await newOrg(app.em());
    const data = dataOf(await app.gql(CATALOG, { key: made.keys.client }));
    expect(data.toolCatalog.find((t) => t.name === TOOL)).toEqual({
      name: TOOL,
      toolName: 'acme_stock',
      action: 'check',
      vendor: 'acme',
      description: checkStockAction.description,
      defaultRisk: 'medium',
      idempotent: true,
      inputSchema: checkStockAction.inputSchema,
      costCents: 3,
      enabled: false,
    });
    // The built-in vendors are still there, in front of it.
    expect(data.toolCatalog.map((t) => t.name)).toEqual(expect.arrayContaining(['order_lookup.lookup', 'invoice.send', TOOL]));
    const [row] = await app
      .em()
      .getConnection()
      .execute<{ timeout_ms: number | null }[]>('select timeout_ms from tool_definitions where tool_name = ? and action = ?', [
        'acme_stock',
        'check',
      ]);
    expect(row.timeout_ms).toBe(2000);
  });

  test('the model is offered it, from the ToolRegistry (the compiled catalog the gateway validates with)', async () => {
    const tools = toolsForManifest(
      [TOOL],
      (await new ToolRegistry().list(app.em(), randomUUID())).map((t) => t.definition),
    );
    expect(tools).toEqual([{ name: 'acme_stock__check', description: checkStockAction.description, input_schema: checkStockAction.inputSchema }]);
  });

  test('executeToolCall runs it end to end: manifest, input schema, policy from its default risk, vendor, ledger, cost', async () => {
    const tenant = await acmeTenant();
    const runId = await startRun(app, tenant);
    sandbox.requests.length = 0;

    const { answer } = await callTool(app, tenant, runId, TOOL, { sku: 'ANV-100' });
    expect(answer).toMatchObject({ status: 'succeeded', error: null, result: { sku: 'ANV-100', available: 42, warehouse: 'RNO-1' } });
    expect(sandbox.requests.map((r) => [r.vendor, r.method, r.path, r.headers.authorization])).toEqual([
      ['acme', 'GET', '/v1/stock/ANV-100', `Bearer ${ACME_SANDBOX_KEY}`],
    ]);

    const call = await inspectCall(app, tenant, answer.toolCallId);
    expect(call).toMatchObject({ status: 'succeeded', costCents: 3, errorCode: null, vendorStatusCode: 200 });
    expect(call.ledgerEvents.map((e) => e.type)).toEqual(['tool_call.requested', 'tool_call.succeeded']);
    expect(call.ledgerEvents.every((e) => e.metadata.tool === TOOL)).toBe(true);
    const decision = dataOf(await app.gql(DECISION, { key: tenant.keys.admin, variables: { id: answer.toolCallId } })).toolCall;
    // No rule matched: the action's default risk (medium) decided, so it ran observed.
    expect(decision).toEqual({
      reviewRequired: true,
      policyDecision: { outcome: 'observe', risk: 'medium', matchedRuleId: null, reason: 'no rule matched; catalog default risk medium' },
    });
  });

  test('its input schema guards it: an invalid input is blocked before the vendor', async () => {
    const tenant = await acmeTenant();
    const runId = await startRun(app, tenant);
    sandbox.requests.length = 0;
    const { answer } = await callTool(app, tenant, runId, TOOL, { sku: 'not a sku', extra: 1 });
    expect(answer).toMatchObject({ status: 'blocked', error: { code: 'INVALID_TOOL_INPUT' } });
    expect(sandbox.requests).toHaveLength(0);
  });

  test('its endpoint variable is accepted by the configuration once it is registered', () => {
    const env = { ACME_API_URL: 'http://127.0.0.1:9/acme/', SHOPIFY_ADMIN_URL: 'https://shop.example/' };
    expect(loadConfig(env, endpointVariables(handlersOf(vendors))).vendorUrls).toEqual({
      ACME_API_URL: 'http://127.0.0.1:9/acme',
      SHOPIFY_ADMIN_URL: 'https://shop.example',
    });
    expect(loadConfig(env).vendorUrls).toEqual({ SHOPIFY_ADMIN_URL: 'https://shop.example' });
    expect(() => loadConfig({ ACME_API_URL: 'ftp://x' }, endpointVariables(handlersOf(vendors)))).toThrow('ACME_API_URL');
  });
});
