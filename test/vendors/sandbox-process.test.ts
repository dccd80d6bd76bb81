import { serveVendorSandboxes, parseFault, type ServedSandboxes } from '../../src/vendors/sandbox/sandbox-process';
import { Egress } from '../../src/egress/egress';
import { SandboxServer } from '../../src/vendors/sandbox/sandbox-server';
import { QBO_DEMO_REALM_ID } from '../../src/vendors/nango/nango.sandbox';
import { servedSandboxes } from './vendor-helpers';
import { SHOPIFY_API_VERSION } from '../../src/vendors/shopify/shopify.transport';
import { callUpstreamTool, listUpstreamTools } from '../../src/upstream/mcp-client';

/**
 * The vendor sandboxes as `toolgate sandboxes` serves them (here in-process, on an
 * ephemeral port): every vendor under /<vendor>/…, and the JSON control API under
 * /_sandbox/ (test/cli/sandboxes.test.ts runs the real process).
 */
let served: ServedSandboxes;
const { control, quickbooks } = servedSandboxes(() => served.url);

beforeAll(async () => {
  served = await serveVendorSandboxes({ port: 0 });
});

afterAll(() => served?.stop());

beforeEach(async () => {
  expect((await control('POST', '/reset')).status).toBe(200);
});

const invoice = (customerId: string) => ({
  Line: [{ DetailType: 'SalesItemLineDetail', Amount: 25, SalesItemLineDetail: { ItemRef: { value: '1' } } }],
  CustomerRef: { value: customerId },
  BillEmail: { Address: 'ap@example.com' },
  PrivateNote: 'toolgate:toolgate-abc',
});

describe('the sandboxes process', () => {
  test('serves every vendor under its prefix', async () => {
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // Shopify's Admin GraphQL endpoint without an access token: Shopify's 401.
    const shopify = await fetch(`${served.url}/shopify/admin/api/${SHOPIFY_API_VERSION}/graphql.json`, { method: 'POST', body: '{}' });
    expect(shopify.status).toBe(401);
    const amazon = await fetch(`${served.url}/amazon/auth/o2/token`, { method: 'POST' });
    expect(amazon.status).toBe(400);
    expect((await control('GET', '/requests')).body.requests.map((r: any) => r.vendor)).toEqual(['shopify', 'amazon']);
    const nango = await quickbooks('GET', '/query', { query: 'select * from Account' });
    expect(nango.status).toBe(200);
    expect(((await nango.json()) as any).QueryResponse.Account).toHaveLength(6);
    expect((await fetch(`${served.url}/nope/x`)).status).toBe(404);
  });

  test('GET /_sandbox/requests: what the vendors saw, with the query and the requestid', async () => {
    await quickbooks('POST', '/invoice', { requestid: 'toolgate-abc' }, invoice('1'));
    await quickbooks('GET', '/query', { query: 'select * from Account' });
    const { status, body } = await control('GET', '/requests');
    expect(status).toBe(200);
    expect(body.requests).toEqual([
      {
        vendor: 'nango',
        method: 'POST',
        path: `/proxy/v3/company/${QBO_DEMO_REALM_ID}/invoice`,
        query: { requestid: 'toolgate-abc', minorversion: '75' },
        fault: null,
        requestId: 'toolgate-abc',
      },
      {
        vendor: 'nango',
        method: 'GET',
        path: `/proxy/v3/company/${QBO_DEMO_REALM_ID}/query`,
        query: { query: 'select * from Account', minorversion: '75' },
        fault: null,
        requestId: null,
      },
    ]);
    // The control API's own requests are not recorded.
    expect((await control('GET', '/requests?vendor=shopify')).body.requests).toEqual([]);
  });

  test('POST /_sandbox/faults aims a fault at the invoice query alone; DELETE clears them', async () => {
    const injected = await control('POST', '/faults', {
      vendor: 'nango',
      fault: { kind: 'status', status: 503 },
      times: 2,
      pathIncludes: 'select * from Invoice',
    });
    expect(injected).toEqual({
      status: 201,
      body: { vendor: 'nango', fault: { kind: 'status', status: 503 }, times: 2, pathIncludes: 'select * from Invoice', bodyIncludes: null },
    });
    expect((await quickbooks('GET', '/query', { query: 'select * from Account' })).status).toBe(200);
    expect((await quickbooks('GET', '/query', { query: "select * from Invoice where CustomerRef = '1'" })).status).toBe(503);
    expect((await control('GET', '/requests')).body.requests.map((r: any) => r.fault)).toEqual([null, 'status']);

    expect((await control('DELETE', '/faults')).status).toBe(200);
    expect((await quickbooks('GET', '/query', { query: "select * from Invoice where CustomerRef = '1'" })).status).toBe(200);
  });

  test('faults are validated', async () => {
    for (const bad of [
      { vendor: 'nope', fault: { kind: 'hang' } },
      { vendor: 'nango', fault: { kind: 'explode' } },
      { vendor: 'nango', fault: { kind: 'status', status: 42 } },
      { vendor: 'nango', fault: { kind: 'hang' }, times: 0 },
      { vendor: 'nango', fault: { kind: 'hang' }, pathIncludes: '' },
      'not an object',
    ]) {
      const { status, body } = await control('POST', '/faults', bad);
      expect({ bad, status }).toEqual({ bad, status: 400 });
      expect(typeof body.error).toBe('string');
    }
    expect(parseFault({ kind: 'rate_limit', retryAfter: 'seconds', seconds: 2 })).toEqual({ kind: 'rate_limit', retryAfter: 'seconds', seconds: 2 });
    expect(parseFault({ kind: 'slow', delayMs: 10, extra: true })).toEqual({ kind: 'slow', delayMs: 10 });
  });

  test('GET /_sandbox/effects: one entry per invoice created; a repeated requestid adds nothing; reset forgets', async () => {
    await quickbooks('POST', '/invoice', { requestid: 'toolgate-abc' }, invoice('1'));
    await quickbooks('POST', '/invoice', { requestid: 'toolgate-abc' }, invoice('1'));
    await quickbooks('POST', '/invoice/130/send', { requestid: 'toolgate-abc-send' });
    await quickbooks('POST', '/invoice/130/send', { requestid: 'toolgate-abc-send' });
    const { status, body } = await control('GET', '/effects');
    expect(status).toBe(200);
    expect(body).toEqual({
      nango: [
        {
          invoiceId: '130',
          docNumber: '1037',
          customerId: '1',
          totalAmount: 25,
          privateNote: 'toolgate:toolgate-abc',
          requestId: 'toolgate-abc',
          emailsSent: 1,
        },
      ],
      mcp: [],
    });

    await control('POST', '/faults', { vendor: 'nango', fault: { kind: 'status', status: 500 } });
    expect(await control('POST', '/reset')).toEqual({ status: 200, body: { reset: true } });
    expect((await control('GET', '/effects')).body).toEqual({ nango: [], mcp: [] });
    expect((await control('GET', '/requests')).body).toEqual({ requests: [] });
    expect((await quickbooks('GET', '/query', { query: 'select * from Account' })).status).toBe(200);
  });

  test('the upstream MCP sandbox at /mcp: the SDK client calls it, bodyIncludes aims a fault at tools/call, effects list its messages', async () => {
    const endpoint = { url: `${served.url}/mcp`, bearerToken: null, fetch: new Egress(['127.0.0.1/32']).fetch };
    const signal = new AbortController().signal;
    expect((await listUpstreamTools(endpoint, signal, 10)).map((t) => t.name)).toEqual(['weather.lookup', 'contact.notify']);
    const injected = await control('POST', '/faults', { vendor: 'mcp', fault: { kind: 'status', status: 502 }, bodyIncludes: 'tools/call' });
    expect(injected.body).toMatchObject({ vendor: 'mcp', times: 1, pathIncludes: null, bodyIncludes: 'tools/call' });
    const notify = { name: 'contact.notify', inputSchema: {} };
    const message = { email: 'ana@example.com', message: 'Hi' };
    await expect(callUpstreamTool(endpoint, notify, message, signal, { maxResultBytes: 65_536 })).rejects.toMatchObject({
      name: 'VendorHttpError',
      status: 502,
    });
    expect(await callUpstreamTool(endpoint, notify, message, signal, { maxResultBytes: 65_536 })).toMatchObject({
      notificationId: 'ntf_1001',
      status: 'sent',
    });
    expect((await control('GET', '/effects')).body.mcp).toEqual([
      { notificationId: 'ntf_1001', email: 'ana@example.com', phone: null, message: 'Hi' },
    ]);
    const faults = (await control('GET', '/requests')).body.requests.filter((r: any) => r.vendor === 'mcp').map((r: any) => r.fault);
    expect(faults.filter(Boolean)).toEqual(['status']);
    expect((await control('POST', '/faults', { vendor: 'mcp', fault: { kind: 'reset' }, bodyIncludes: '' })).status).toBe(400);
  });

  test('an unknown control route is a 404', async () => {
    expect((await control('GET', '/nothing')).status).toBe(404);
    expect((await control('PUT', '/faults', {})).status).toBe(404);
  });

  test('no vendor may take the reserved prefix', () => {
    expect(() => new SandboxServer([{ vendor: '_sandbox', routes: [] }])).toThrow('reserved');
  });
});
