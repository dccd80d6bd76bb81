import { SandboxServer, type SandboxRequest, type VendorSandbox } from '../../src/vendors/sandbox/sandbox-server';
import { VendorProtocolError, type VendorContext } from '../../src/vendors/vendor-handler';
import { ManualClock } from '../support/clock';
import { httpError, rejection, useSandboxServer, vendorContext } from './vendor-helpers';
import { amazonHandler } from '../../src/vendors/amazon/amazon.handler';
import { getOrderAction } from '../../src/vendors/amazon/get-order.action';
import { getCatalogItemAction } from '../../src/vendors/amazon/get-catalog-item.action';
import { tokenCacheKey } from '../../src/vendors/amazon/amazon.transport';
import { amazonDemoCredentials, createAmazonSandbox } from '../../src/vendors/amazon/amazon.sandbox';
import { TOOL_CATALOG } from '../../src/catalog/tool-catalog';

const SHIPPED = '902-3159896-1390916';
const PENDING = '113-5810427-6614650';
const SECOND_SELLER = 'Atzr|IwEBIsecond-seller-refresh-token';

/** Every request the sandbox routes saw, with its query string (the server records no query). */
const seen: SandboxRequest[] = [];
function capturing(sandbox: VendorSandbox): VendorSandbox {
  return {
    vendor: sandbox.vendor,
    routes: sandbox.routes.map((route) => ({
      ...route,
      handle: (req: SandboxRequest) => {
        seen.push(req);
        return route.handle(req);
      },
    })),
  };
}

const server = useSandboxServer([capturing(createAmazonSandbox({ extraRefreshTokens: [SECOND_SELLER] }))]);

function ctx(overrides: Partial<VendorContext> = {}, target: SandboxServer = server): VendorContext {
  const url = target.urlFor('amazon');
  return vendorContext(amazonDemoCredentials, { lwa: url, spApi: url }, overrides);
}

async function recorded<T>(fn: () => Promise<T>, target: SandboxServer = server) {
  const before = target.requests.length;
  const seenBefore = seen.length;
  const result = await fn();
  return { result, requests: target.requests.slice(before), seen: seen.slice(seenBefore) };
}

const tokenExchanges = (requests: SandboxServer['requests']) => requests.filter((r) => r.path === '/auth/o2/token').length;

describe('amazon handler', () => {
  test('declares its vendor, credential fields, endpoints and catalog actions', () => {
    expect(amazonHandler.vendor).toBe('amazon');
    expect(amazonHandler.credentialSpec).toEqual({
      integrationType: 'amazon',
      required: ['clientId', 'clientSecret', 'refreshToken', 'marketplaceId'],
    });
    expect(amazonHandler.endpoints.lwa.env).toBe('AMAZON_LWA_URL');
    expect(amazonHandler.endpoints.lwa.production({})).toBe('https://api.amazon.com');
    expect(amazonHandler.endpoints.spApi.env).toBe('AMAZON_SP_API_URL');
    expect(amazonHandler.endpoints.spApi.production({})).toBe('https://sellingpartnerapi-na.amazon.com');
    for (const action of amazonHandler.actions) {
      expect(action.idempotent).toBe(true);
      expect(action.describeResult.length).toBeGreaterThan(20);
      const entry = TOOL_CATALOG.find((t) => t.toolName === action.toolName && t.action === action.action);
      expect(entry).toMatchObject({ vendor: 'amazon', defaultRisk: 'low', idempotent: true });
    }
    const catalogItem = TOOL_CATALOG.find((t) => t.toolName === 'amazon_query' && t.action === 'get_catalog_item');
    expect(catalogItem?.inputSchema).toMatchObject({ required: ['asin'], additionalProperties: false });
  });
});

describe('amazon_query.get_order', () => {
  test('a shipped order: token exchange, getOrder and getOrderItems on the wire, normalized result', async () => {
    const { result, requests } = await recorded(() => getOrderAction.execute({ orderId: SHIPPED }, ctx()));
    expect(result).toEqual({
      orderId: SHIPPED,
      status: 'Shipped',
      purchaseDate: '2025-06-02T17:04:11Z',
      fulfillmentChannel: 'MFN',
      orderTotal: { amount: '64.97', currencyCode: 'USD' },
      items: [
        {
          asin: 'B07FZ8S74R',
          sellerSku: 'ECHO-DOT-3-CHARCOAL',
          title: 'Echo Dot (3rd Gen) - Smart speaker with Alexa - Charcoal',
          quantityOrdered: 2,
          quantityShipped: 2,
        },
        {
          asin: 'B0791TX5P5',
          sellerSku: 'FIRE-TV-STICK-4K',
          title: 'Fire TV Stick 4K streaming device with Alexa Voice Remote',
          quantityOrdered: 1,
          quantityShipped: 1,
        },
      ],
      shippingAddress: {
        name: null,
        addressLine1: null,
        addressLine2: null,
        city: 'SEATTLE',
        stateOrRegion: 'WA',
        postalCode: '98109-5210',
        countryCode: 'US',
      },
    });

    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /auth/o2/token',
      `GET /orders/v0/orders/${SHIPPED}`,
      `GET /orders/v0/orders/${SHIPPED}/orderItems`,
    ]);
    const [lwa, order, items] = requests;
    expect(lwa.headers['content-type']).toBe('application/x-www-form-urlencoded;charset=UTF-8');
    expect(lwa.body).toEqual({
      grant_type: 'refresh_token',
      refresh_token: amazonDemoCredentials.refreshToken,
      client_id: amazonDemoCredentials.clientId,
      client_secret: amazonDemoCredentials.clientSecret,
    });
    expect(lwa.headers['x-amz-access-token']).toBeUndefined();
    const token = order.headers['x-amz-access-token'];
    expect(token).toMatch(/^Atza\|/);
    expect(items.headers['x-amz-access-token']).toBe(token);
    expect(order.headers['user-agent']).toMatch(/^Toolgate\/[\d.]+ \(Language=TypeScript\)$/);
    expect(order.headers.authorization).toBeUndefined();
  });

  test('a pending order: no total and no address yet', async () => {
    const result = await getOrderAction.execute({ orderId: PENDING }, ctx());
    expect(result).toEqual({
      orderId: PENDING,
      status: 'Pending',
      purchaseDate: '2025-06-15T22:41:03Z',
      fulfillmentChannel: 'AFN',
      orderTotal: null,
      items: [
        {
          asin: 'B09B8V1LZ3',
          sellerSku: 'ECHO-DOT-5-CHARCOAL',
          title: 'Echo Dot (5th Gen) smart speaker with Alexa - Charcoal',
          quantityOrdered: 1,
          quantityShipped: 0,
        },
      ],
      shippingAddress: null,
    });
  });

  test('order items are followed through NextToken pages', async () => {
    const paged = new SandboxServer([capturing(createAmazonSandbox({ orderItemsPageSize: 1 }))]);
    await paged.start();
    try {
      const { result, seen: routed } = await recorded(() => getOrderAction.execute({ orderId: SHIPPED }, ctx({}, paged)), paged);
      expect(result.items.map((i) => i.asin)).toEqual(['B07FZ8S74R', 'B0791TX5P5']);
      const itemPages = routed.filter((r) => r.path.endsWith('/orderItems'));
      expect(itemPages).toHaveLength(2);
      expect(itemPages[0].query.get('NextToken')).toBeNull();
      expect(itemPages[1].query.get('NextToken')).toEqual(expect.any(String));
    } finally {
      await paged.stop();
    }
  });

  test('an unknown order is a 404 (SP-API error shape); a malformed id is a 404 without a request', async () => {
    expect((await httpError(getOrderAction.execute({ orderId: '111-1111111-1111111' }, ctx()))).status).toBe(404);
    const { requests } = await recorded(async () => {
      expect((await httpError(getOrderAction.execute({ orderId: '../../catalog' }, ctx()))).status).toBe(404);
    });
    expect(requests).toHaveLength(0);
  });
});

describe('amazon_query.get_catalog_item', () => {
  test('an item by ASIN: path, query parameters, token, normalized result', async () => {
    const { result, requests, seen: routed } = await recorded(() => getCatalogItemAction.execute({ asin: 'b07fz8s74r' }, ctx()));
    expect(result).toEqual({
      asin: 'B07FZ8S74R',
      title: 'Echo Dot (3rd Gen) - Smart speaker with Alexa - Charcoal',
      brand: 'Amazon',
      marketplaceId: 'ATVPDKIKX0DER',
    });
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /auth/o2/token', 'GET /catalog/2022-04-01/items/B07FZ8S74R']);
    expect(requests[1].headers['x-amz-access-token']).toMatch(/^Atza\|/);
    const query = routed[1].query;
    expect([...query.keys()].sort()).toEqual(['includedData', 'marketplaceIds']);
    expect(query.get('marketplaceIds')).toBe('ATVPDKIKX0DER');
    expect(query.get('includedData')).toBe('summaries');
  });

  test('an unknown ASIN is a 404', async () => {
    expect((await httpError(getCatalogItemAction.execute({ asin: 'B000000000' }, ctx()))).status).toBe(404);
  });
});

describe('Login with Amazon token exchange', () => {
  test('two calls share one token exchange; another credential gets its own token', async () => {
    const shared = ctx();
    const { requests } = await recorded(async () => {
      await getCatalogItemAction.execute({ asin: 'B07FZ8S74R' }, shared);
      await getCatalogItemAction.execute({ asin: 'B0791TX5P5' }, shared);
    });
    expect(tokenExchanges(requests)).toBe(1);

    const other = { ...shared, credentials: { ...amazonDemoCredentials, refreshToken: SECOND_SELLER } };
    expect(tokenCacheKey(other)).not.toBe(tokenCacheKey(shared));
    const { requests: otherRequests } = await recorded(() => getCatalogItemAction.execute({ asin: 'B07FZ8S74R' }, other));
    expect(tokenExchanges(otherRequests)).toBe(1);
    expect(otherRequests[1].headers['x-amz-access-token']).not.toBe(requests[1].headers['x-amz-access-token']);
    expect(shared.cache.size).toBe(2);
    for (const key of shared.cache.keys()) expect(key).not.toContain(amazonDemoCredentials.clientSecret);
  });

  test('the token is exchanged again once it expires (sandbox expires_in 1 s)', async () => {
    const clock = new ManualClock();
    const shortLived = new SandboxServer([createAmazonSandbox({ accessTokenTtlSeconds: 1, clock })]);
    await shortLived.start();
    try {
      const context = ctx({ clock }, shortLived);
      await getCatalogItemAction.execute({ asin: 'B07FZ8S74R' }, context);
      await getCatalogItemAction.execute({ asin: 'B07FZ8S74R' }, context);
      expect(tokenExchanges(shortLived.requests)).toBe(1);
      const firstToken = shortLived.requests[1].headers['x-amz-access-token'] as string;

      clock.advance(1100);
      await getCatalogItemAction.execute({ asin: 'B07FZ8S74R' }, context);
      expect(tokenExchanges(shortLived.requests)).toBe(2);

      const stale = await fetch(`${shortLived.urlFor('amazon')}/catalog/2022-04-01/items/B07FZ8S74R?marketplaceIds=ATVPDKIKX0DER`, {
        headers: { 'x-amz-access-token': firstToken },
      });
      expect(stale.status).toBe(403);
      expect(((await stale.json()) as { errors: { code: string; details: string }[] }).errors[0]).toMatchObject({
        code: 'Unauthorized',
        details: 'The access token you provided has expired.',
      });
    } finally {
      await shortLived.stop();
    }
  });

  test('a cached token SP-API refuses is dropped and replaced once', async () => {
    const context = ctx();
    await getCatalogItemAction.execute({ asin: 'B07FZ8S74R' }, context);
    const key = tokenCacheKey(context);
    context.cache.set(key, { ...(context.cache.get(key) as object), accessToken: 'Atza|revoked' });
    const { result, requests } = await recorded(() => getCatalogItemAction.execute({ asin: 'B07FZ8S74R' }, context));
    expect(result.asin).toBe('B07FZ8S74R');
    expect(requests.map((r) => `${r.method} ${r.path} ${r.headers['x-amz-access-token'] === 'Atza|revoked' ? 'revoked' : ''}`.trim())).toEqual([
      'GET /catalog/2022-04-01/items/B07FZ8S74R revoked',
      'POST /auth/o2/token',
      'GET /catalog/2022-04-01/items/B07FZ8S74R',
    ]);
  });

  test("LWA refusals surface with LWA's status: invalid_client 401, invalid_grant 400", async () => {
    const badSecret = ctx({ credentials: { ...amazonDemoCredentials, clientSecret: 'amzn1.oa2-cs.v1.wrong' } });
    const clientError = await httpError(getOrderAction.execute({ orderId: SHIPPED }, badSecret));
    expect(clientError.status).toBe(401);
    expect(clientError.message).not.toContain('amzn1');
    const badGrant = ctx({ credentials: { ...amazonDemoCredentials, refreshToken: 'Atzr|unknown' } });
    expect((await httpError(getOrderAction.execute({ orderId: SHIPPED }, badGrant))).status).toBe(400);

    const post = (form: Record<string, string>) =>
      fetch(`${server.urlFor('amazon')}/auth/o2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
    const { clientId, clientSecret, refreshToken } = amazonDemoCredentials;
    const invalidClient = await post({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, client_secret: 'x' });
    expect(invalidClient.status).toBe(401);
    expect(await invalidClient.json()).toMatchObject({ error: 'invalid_client' });
    const invalidGrant = await post({ grant_type: 'refresh_token', refresh_token: 'Atzr|x', client_id: clientId, client_secret: clientSecret });
    expect(invalidGrant.status).toBe(400);
    expect(await invalidGrant.json()).toMatchObject({ error: 'invalid_grant' });
    const granted = await post({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, client_secret: clientSecret });
    expect(await granted.json()).toEqual({
      access_token: expect.stringMatching(/^Atza\|/),
      refresh_token: refreshToken,
      token_type: 'bearer',
      expires_in: 3600,
    });
  });

  test("SP-API without a valid x-amz-access-token is a 403 with SP-API's error shape", async () => {
    const res = await fetch(`${server.urlFor('amazon')}/orders/v0/orders/${SHIPPED}`);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      errors: [
        {
          code: 'Unauthorized',
          message: 'Access to requested resource is denied.',
          details: 'The access token you provided is revoked, malformed or invalid.',
        },
      ],
    });
    server.injectFault('amazon', { kind: 'status', status: 403 }, { pathIncludes: '/orders/' });
    expect((await httpError(getOrderAction.execute({ orderId: SHIPPED }, ctx()))).status).toBe(403);
  });
});

describe('amazon sandbox faults reach the handler as errors', () => {
  test('status 503 on SP-API → VendorHttpError 503; on LWA → 503 too', async () => {
    server.injectFault('amazon', { kind: 'status', status: 503 }, { pathIncludes: '/orders/' });
    expect((await httpError(getOrderAction.execute({ orderId: SHIPPED }, ctx()))).status).toBe(503);
    server.injectFault('amazon', { kind: 'status', status: 503 }, { pathIncludes: '/auth/o2/token' });
    expect((await httpError(getOrderAction.execute({ orderId: SHIPPED }, ctx()))).status).toBe(503);
  });

  test('rate limit with Retry-After seconds → VendorHttpError 429 with retryAfterMs', async () => {
    server.injectFault('amazon', { kind: 'rate_limit', retryAfter: 'seconds', seconds: 2 }, { pathIncludes: '/catalog/' });
    const error = await httpError(getCatalogItemAction.execute({ asin: 'B07FZ8S74R' }, ctx()));
    expect(error.status).toBe(429);
    expect(error.retryAfterMs).toBe(2000);
  });

  test('malformed JSON from SP-API or from LWA → VendorProtocolError, and no token is cached from a broken answer', async () => {
    server.injectFault('amazon', { kind: 'malformed_json' }, { pathIncludes: '/orders/' });
    expect(await rejection(getOrderAction.execute({ orderId: SHIPPED }, ctx()))).toBeInstanceOf(VendorProtocolError);
    const context = ctx();
    server.injectFault('amazon', { kind: 'malformed_json' }, { pathIncludes: '/auth/o2/token' });
    expect(await rejection(getOrderAction.execute({ orderId: SHIPPED }, context))).toBeInstanceOf(VendorProtocolError);
    expect(context.cache.size).toBe(0);
  });
});
