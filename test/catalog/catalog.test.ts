import Ajv from 'ajv';
import { TOOL_CATALOG, catalogOf } from '../../src/catalog/tool-catalog';
import { toolKey } from '../../src/catalog/tool-key';
import { RISK_LEVELS } from '../../src/catalog/risk';
import { createVendorRegistry } from '../../src/executor/vendor-registry';
import { VENDORS, VENDOR_HANDLERS, VENDOR_URL_VARIABLES, SANDBOX_CREDENTIALS, createVendorSandboxes } from '../../src/vendors';
import type { VendorAction, VendorHandler } from '../../src/vendors/vendor-handler';

/** The catalog is derived from the registered vendor handlers; nothing about a tool is declared twice. */

const action = (toolName: string, name: string): VendorAction => ({
  toolName,
  action: name,
  description: `${toolName} ${name}`,
  inputSchema: { type: 'object', additionalProperties: false },
  defaultRisk: 'low',
  costCents: 0,
  idempotent: true,
  describeResult: '{}',
  execute: async () => ({}),
});

const handler = (vendor: string, actions: VendorAction[], env = `${vendor.toUpperCase()}_API_URL`): VendorHandler => ({
  vendor,
  credentialSpec: { integrationType: vendor, required: [] },
  endpoints: { api: { env, production: () => `https://${vendor}.example` } },
  actions,
});

describe('the tool catalog', () => {
  test('is every registered action, in registration order, with its handler as vendor', () => {
    expect(TOOL_CATALOG.map((t) => [toolKey(t.toolName, t.action), t.vendor])).toEqual([
      ['order_lookup.lookup', 'shopify'],
      ['shopify_query.get_product', 'shopify'],
      ['amazon_query.get_order', 'amazon'],
      ['amazon_query.get_catalog_item', 'amazon'],
      ['kyc_check.get_status', 'jumio'],
      ['account_balance.lookup', 'nango'],
      ['invoice.send', 'nango'],
    ]);
    const actions = VENDOR_HANDLERS.flatMap((h) => h.actions);
    for (const [i, entry] of TOOL_CATALOG.entries()) {
      const declared = actions[i];
      expect(entry).toEqual({
        toolName: declared.toolName,
        action: declared.action,
        vendor: entry.vendor,
        description: declared.description,
        defaultRisk: declared.defaultRisk,
        idempotent: declared.idempotent,
        costCents: declared.costCents,
        inputSchema: declared.inputSchema,
        timeoutMs: declared.timeoutMs ?? null,
      });
    }
  });

  test('every action declares a usable description, risk, cost and object input schema', () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    for (const entry of TOOL_CATALOG) {
      expect(entry.description.length).toBeGreaterThan(10);
      expect(RISK_LEVELS).toContain(entry.defaultRisk);
      expect(Number.isInteger(entry.costCents) && entry.costCents >= 0).toBe(true);
      expect(entry.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(() => ajv.compile(entry.inputSchema)).not.toThrow();
    }
    // Only the invoice is a write; it alone is not idempotent and needs an expert by default.
    expect(TOOL_CATALOG.filter((t) => !t.idempotent).map((t) => toolKey(t.toolName, t.action))).toEqual(['invoice.send']);
    expect(TOOL_CATALOG.find((t) => t.toolName === 'invoice')?.defaultRisk).toBe('high');
  });

  test('is plain data (tool_definitions rows; the test database template hashes it)', () => {
    expect(JSON.parse(JSON.stringify(TOOL_CATALOG))).toEqual(TOOL_CATALOG);
  });

  test('a tool action registered twice fails at boot, in the catalog and in the executor', () => {
    const twice = [handler('a', [action('t', 'x')]), handler('b', [action('t', 'x')])];
    expect(() => catalogOf(twice)).toThrow('t.x is registered twice');
    expect(() => createVendorRegistry(twice)).toThrow('t.x is registered twice');
    expect(() => createVendorRegistry([handler('a', []), handler('a', [])])).toThrow('a is registered twice');
  });

  test('a vendor tool named mcp.… fails at boot: those names are imported upstream MCP tools', () => {
    expect(() => catalogOf([handler('a', [action('mcp.weather', 'lookup')])])).toThrow('tool names starting mcp. are reserved');
  });

  test('an endpoint variable must be a NAME_URL of one endpoint only', () => {
    expect(() => createVendorRegistry([handler('a', [], 'DATABASE')])).toThrow('DATABASE');
    expect(() => createVendorRegistry([handler('a', [], 'SHARED_URL'), handler('b', [], 'SHARED_URL')])).toThrow('SHARED_URL');
    expect(createVendorRegistry([handler('a', [action('t', 'x')])]).find(toolKey('t', 'x'))?.handler.vendor).toBe('a');
  });
});

describe('the vendor registrations', () => {
  test('derive the handlers, sandboxes, demo credentials and endpoint variables', () => {
    expect(VENDOR_HANDLERS.map((h) => h.vendor)).toEqual(['shopify', 'amazon', 'jumio', 'nango']);
    expect(createVendorSandboxes().map((s) => s.vendor)).toEqual(['shopify', 'amazon', 'jumio', 'nango']);
    expect(Object.keys(SANDBOX_CREDENTIALS)).toEqual(['shopify', 'amazon', 'jumio', 'nango']);
    expect(VENDOR_URL_VARIABLES).toEqual([
      'SHOPIFY_ADMIN_URL',
      'AMAZON_LWA_URL',
      'AMAZON_SP_API_URL',
      'JUMIO_AUTH_URL',
      'JUMIO_RETRIEVAL_URL',
      'NANGO_API_URL',
    ]);
    expect(() => createVendorRegistry(VENDOR_HANDLERS)).not.toThrow();
  });

  test("a sandbox must answer under its handler's vendor name", () => {
    const [shopify] = VENDORS;
    const misnamed = { handler: handler('acme', []), sandbox: { create: shopify.sandbox!.create, credentials: {} } };
    expect(() => createVendorSandboxes([misnamed])).toThrow('the sandbox of acme is named shopify');
  });
});
