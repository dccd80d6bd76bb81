import { SandboxServer } from '../../src/vendors/sandbox/sandbox-server';
import { VendorHttpError, VendorProtocolError, type VendorContext } from '../../src/vendors/vendor-handler';
import { shopifyHandler } from '../../src/vendors/shopify/shopify.handler';
import { orderLookupAction } from '../../src/vendors/shopify/order-lookup.action';
import { getProductAction } from '../../src/vendors/shopify/get-product.action';
import { SHOPIFY_API_VERSION, shopifyGraphql } from '../../src/vendors/shopify/shopify.transport';
import { createShopifySandbox, shopifyDemoCredentials, shopifySandbox } from '../../src/vendors/shopify/shopify.sandbox';
import { requestedQueryCost } from '../../src/vendors/shopify/shopify.sandbox-cost';
import { SHOPIFY_SANDBOX_SDL } from '../../src/vendors/shopify/shopify.sandbox-data';
import { TOOL_CATALOG } from '../../src/catalog/tool-catalog';
import { buildSchema } from 'graphql';
import { toolKey } from '../../src/catalog/tool-key';
import { rejection, useSandboxServer, vendorContext } from './vendor-helpers';

const GRAPHQL_PATH = `/admin/api/${SHOPIFY_API_VERSION}/graphql.json`;
const server = useSandboxServer([shopifySandbox]);

function ctx(overrides: Partial<VendorContext> = {}, target: SandboxServer = server): VendorContext {
  return vendorContext(shopifyDemoCredentials, { admin: target.urlFor('shopify') }, overrides);
}

/** The requests the call made, from the server's record. */
async function recorded<T>(fn: () => Promise<T>): Promise<{ result: T; requests: SandboxServer['requests'] }> {
  const before = server.requests.length;
  const result = await fn();
  return { result, requests: server.requests.slice(before) };
}

function expectGraphqlRequest(request: SandboxServer['requests'][number]) {
  expect(request.vendor).toBe('shopify');
  expect(request.method).toBe('POST');
  expect(request.path).toBe(GRAPHQL_PATH);
  expect(request.path).toContain('/2025-07/');
  expect(request.headers['x-shopify-access-token']).toBe(shopifyDemoCredentials.accessToken);
  expect(request.headers['content-type']).toBe('application/json');
  expect(request.headers.authorization).toBeUndefined();
}

describe('shopify handler', () => {
  test('declares its vendor, credential fields, endpoint and catalog actions', () => {
    expect(shopifyHandler.vendor).toBe('shopify');
    expect(shopifyHandler.credentialSpec).toEqual({ integrationType: 'shopify', required: ['shopDomain', 'accessToken'] });
    expect(shopifyHandler.endpoints.admin.env).toBe('SHOPIFY_ADMIN_URL');
    expect(shopifyHandler.endpoints.admin.production({ shopDomain: 'Demo-Shop.myshopify.com' })).toBe('https://demo-shop.myshopify.com');
    for (const shopDomain of ['evil.example.com', 'x.myshopify.com.evil.com', '169.254.169.254', 'a.myshopify.com/path', undefined]) {
      expect(() => shopifyHandler.endpoints.admin.production({ shopDomain })).toThrow('myshopify.com');
    }
    for (const action of shopifyHandler.actions) {
      expect(action.idempotent).toBe(true);
      expect(action.describeResult.length).toBeGreaterThan(20);
      const entry = TOOL_CATALOG.find((t) => t.toolName === action.toolName && t.action === action.action);
      expect(entry?.vendor).toBe('shopify');
    }
    expect(shopifyHandler.actions.map((a) => toolKey(a.toolName, a.action)).sort()).toEqual(['order_lookup.lookup', 'shopify_query.get_product']);
  });
});

describe('order_lookup.lookup', () => {
  test('a shipped order by number: normalized result and the GraphQL request on the wire', async () => {
    const { result, requests } = await recorded(() => orderLookupAction.execute({ orderId: '12345' }, ctx()));
    expect(result).toEqual({
      orderId: '5987654321001',
      orderNumber: '#12345',
      status: 'open',
      financialStatus: 'paid',
      fulfillmentStatus: 'fulfilled',
      trackingNumbers: ['TRACK-001'],
      trackingCompany: 'UPS',
      items: [
        { name: 'IPod Nano - 8GB - Pink', quantity: 1, sku: 'IPOD2008PINK' },
        { name: 'IPod Touch 8GB - Black', quantity: 1, sku: 'IPOD2009BLACK' },
      ],
      customerEmail: 'bob.norman@example.com',
      shippingAddress: {
        name: 'Bob Norman',
        address1: 'Chestnut Street 92',
        address2: null,
        city: 'Louisville',
        province: 'Kentucky',
        provinceCode: 'KY',
        zip: '40202',
        country: 'United States',
        countryCode: 'US',
      },
      createdAt: '2025-06-10T14:03:11Z',
    });
    expect(requests).toHaveLength(1);
    expectGraphqlRequest(requests[0]);
    const body = requests[0].body as { query: string; variables: Record<string, unknown> };
    expect(body.query).toContain('query OrderLookup');
    expect(body.variables).toEqual({ query: 'name:"#12345"', byName: true, id: 'gid://shopify/Order/0', byId: false });
  });

  test('"#12346" (with the hash) is an unfulfilled order without tracking', async () => {
    const result = await orderLookupAction.execute({ orderId: '#12346' }, ctx());
    expect(result).toMatchObject({ orderNumber: '#12346', fulfillmentStatus: 'unfulfilled', trackingNumbers: [], trackingCompany: null });
    expect(result.items).toEqual([{ name: 'IPod Nano - 8GB - Red', quantity: 2, sku: 'IPOD2008RED' }]);
  });

  test('a partially fulfilled order lists only the tracking of successful fulfillments', async () => {
    const result = await orderLookupAction.execute({ orderId: ' 12347 ' }, ctx());
    expect(result).toMatchObject({
      orderNumber: '#12347',
      financialStatus: 'partially_refunded',
      fulfillmentStatus: 'partially_fulfilled',
      trackingNumbers: ['TRACK-002'],
      trackingCompany: 'FedEx',
    });
  });

  test('a long numeric id or an Order gid is looked up by id in the same request', async () => {
    const { result, requests } = await recorded(() => orderLookupAction.execute({ orderId: '5987654321003' }, ctx()));
    expect(result.orderNumber).toBe('#12347');
    expect(requests).toHaveLength(1);
    expect((requests[0].body as { variables: unknown }).variables).toEqual({
      query: 'name:"#5987654321003"',
      byName: true,
      id: 'gid://shopify/Order/5987654321003',
      byId: true,
    });
    const byGid = await orderLookupAction.execute({ orderId: 'gid://shopify/Order/5987654321001' }, ctx());
    expect(byGid.orderNumber).toBe('#12345');
  });

  test('an unknown order is a 404', async () => {
    const error = await rejection(orderLookupAction.execute({ orderId: '#99999' }, ctx()));
    expect(error).toBeInstanceOf(VendorHttpError);
    expect((error as VendorHttpError).status).toBe(404);
    expect(((await rejection(orderLookupAction.execute({ orderId: '   ' }, ctx()))) as VendorHttpError).status).toBe(404);
  });
});

describe('shopify_query.get_product', () => {
  test('a product with variants: normalized result, lowest price, request on the wire', async () => {
    const { result, requests } = await recorded(() => getProductAction.execute({ productId: '632910392' }, ctx()));
    expect(result).toEqual({
      productId: '632910392',
      title: 'IPod Nano - 8GB',
      status: 'active',
      variants: [
        { id: '808950810', title: 'Pink', sku: 'IPOD2008PINK', price: '199.00', inventoryQuantity: 10 },
        { id: '49148385', title: 'Red', sku: 'IPOD2008RED', price: '199.00', inventoryQuantity: 20 },
        { id: '39072856', title: 'Green', sku: 'IPOD2008GREEN', price: '189.00', inventoryQuantity: 30 },
        { id: '457924702', title: 'Black', sku: 'IPOD2008BLACK', price: '209.00', inventoryQuantity: 40 },
      ],
      price: '189.00',
      totalInventory: 100,
    });
    expect(requests).toHaveLength(1);
    expectGraphqlRequest(requests[0]);
    const body = requests[0].body as { query: string; variables: unknown };
    expect(body.query).toContain('query GetProduct');
    expect(body.variables).toEqual({ id: 'gid://shopify/Product/632910392' });
  });

  test('the second product, by gid', async () => {
    const result = await getProductAction.execute({ productId: 'gid://shopify/Product/921728736' }, ctx());
    expect(result).toMatchObject({ productId: '921728736', title: 'IPod Touch 8GB', price: '199.00', totalInventory: 13 });
  });

  test('an unknown product is a 404; a malformed id is a 404 without a request', async () => {
    const error = await rejection(getProductAction.execute({ productId: '1' }, ctx()));
    expect(error).toBeInstanceOf(VendorHttpError);
    expect((error as VendorHttpError).status).toBe(404);
    const { requests } = await recorded(async () => {
      const malformed = await rejection(getProductAction.execute({ productId: '../orders/1' }, ctx()));
      expect((malformed as VendorHttpError).status).toBe(404);
    });
    expect(requests).toHaveLength(0);
  });
});

describe('shopify sandbox wire behavior', () => {
  test("a wrong access token is a 401 with Shopify's error body", async () => {
    const error = await rejection(
      orderLookupAction.execute({ orderId: '12345' }, ctx({ credentials: { ...shopifyDemoCredentials, accessToken: 'shpat_wrong' } })),
    );
    expect(error).toBeInstanceOf(VendorHttpError);
    expect((error as VendorHttpError).status).toBe(401);
    expect((error as Error).message).not.toContain('shpat');

    const res = await fetch(`${server.urlFor('shopify')}${GRAPHQL_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ product(id: "gid://shopify/Product/1") { title } }' }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' });
  });

  test('an unknown API version path is a 404', async () => {
    const res = await fetch(`${server.urlFor('shopify')}/admin/api/2019-01/graphql.json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-shopify-access-token': shopifyDemoCredentials.accessToken },
      body: JSON.stringify({ query: '{ product(id: "gid://shopify/Product/632910392") { title } }' }),
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ errors: 'Not Found' });
  });

  test('queries are validated against the schema: an unknown field is a protocol error', async () => {
    const error = await rejection(shopifyGraphql(ctx(), '{ shop { name } }', {}));
    expect(error).toBeInstanceOf(VendorProtocolError);
  });

  test("the handler's queries stay under the 1000-point single-query limit; a costlier one is refused", async () => {
    const schema = buildSchema(SHOPIFY_SANDBOX_SDL);
    const { requests } = await recorded(async () => {
      await orderLookupAction.execute({ orderId: '5987654321001' }, ctx());
      await getProductAction.execute({ productId: '632910392' }, ctx());
    });
    const costs = requests.map((r) => {
      const body = r.body as { query: string; variables: Record<string, unknown> };
      return requestedQueryCost(schema, body.query, body.variables);
    });
    // an order: 1 + address 1 + fulfillments 10 × (1 + 5) + lineItems (2 + 50) = 114;
    // orders(first: 3) 2 + 3 × 114 and order(id:) 114; product: 1 + (2 + 100 × 1)
    expect(costs).toEqual([458, 103]);

    const costly = '{ orders(first: 250) { nodes { lineItems(first: 250) { nodes { name } } } } }';
    expect(requestedQueryCost(schema, costly, {})).toBeGreaterThan(1000);
    expect(await rejection(shopifyGraphql(ctx(), costly, {}))).toBeInstanceOf(VendorProtocolError);
  });

  test('an exhausted cost bucket is a 429 with the wait the bucket needs', async () => {
    const throttled = new SandboxServer([createShopifySandbox({ bucket: { maximumAvailable: 15, restoreRate: 1 }, queryCost: 10 })]);
    await throttled.start();
    try {
      await getProductAction.execute({ productId: '632910392' }, ctx({}, throttled));
      const error = await rejection(getProductAction.execute({ productId: '632910392' }, ctx({}, throttled)));
      expect(error).toBeInstanceOf(VendorHttpError);
      expect((error as VendorHttpError).status).toBe(429);
      // (10 requested − 5 available) / 1 point per second
      expect((error as VendorHttpError).retryAfterMs).toBe(5000);
    } finally {
      await throttled.stop();
    }
  });
});

describe('shopify sandbox faults reach the handler as errors', () => {
  test('status 503 → VendorHttpError 503', async () => {
    server.injectFault('shopify', { kind: 'status', status: 503 });
    const error = await rejection(orderLookupAction.execute({ orderId: '12345' }, ctx()));
    expect(error).toBeInstanceOf(VendorHttpError);
    expect((error as VendorHttpError).status).toBe(503);
    expect((error as Error).message).not.toContain('secret_detail');
  });

  test('rate limit with Retry-After seconds → VendorHttpError 429 with retryAfterMs', async () => {
    server.injectFault('shopify', { kind: 'rate_limit', retryAfter: 'seconds', seconds: 2 });
    const error = await rejection(getProductAction.execute({ productId: '632910392' }, ctx()));
    expect(error).toBeInstanceOf(VendorHttpError);
    expect((error as VendorHttpError).status).toBe(429);
    expect((error as VendorHttpError).retryAfterMs).toBe(2000);
  });

  test('malformed JSON → VendorProtocolError', async () => {
    server.injectFault('shopify', { kind: 'malformed_json' });
    const error = await rejection(orderLookupAction.execute({ orderId: '12345' }, ctx()));
    expect(error).toBeInstanceOf(VendorProtocolError);
  });

  test('after a fault the sandbox answers normally again', async () => {
    server.injectFault('shopify', { kind: 'status', status: 500 });
    await rejection(getProductAction.execute({ productId: '632910392' }, ctx()));
    expect((await getProductAction.execute({ productId: '632910392' }, ctx())).title).toBe('IPod Nano - 8GB');
  });
});
