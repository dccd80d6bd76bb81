import { buildSchema, graphql, GraphQLError } from 'graphql';
import type { SandboxRequest, SandboxResponse, VendorSandbox } from '../sandbox/sandbox-server';
import { SHOPIFY_API_VERSION, toGid } from './shopify.transport';
import { SEED_ORDERS, SEED_PRODUCTS, SHOPIFY_SANDBOX_SDL, type SeedOrder, type SeedProduct } from './shopify.sandbox-data';
import { actualQueryCost, requestedQueryCost } from './shopify.sandbox-cost';

/**
 * The Shopify sandbox: `POST /admin/api/<version>/graphql.json` answered by a real GraphQL
 * executor over a subset of the Admin API schema, with Shopify's auth check, its 401 / 404
 * bodies and its cost-bucket throttling (200 + THROTTLED + extensions.cost).
 */
export const shopifyDemoCredentials = {
  shopDomain: 'demo-shop.myshopify.com',
  accessToken: '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',
} as const;

export interface ShopifySandboxOptions {
  accessToken?: string;
  /** The cost bucket; Shopify's standard plan: 2000 points, restored at 100 per second. */
  bucket?: { maximumAvailable: number; restoreRate: number };
  /** A fixed cost per query instead of the one computed from the query. */
  queryCost?: number;
}

const INVALID_TOKEN = '[API] Invalid API key or access token (unrecognized login or wrong password)';
const MAX_PAGE = 250;
/** Shopify refuses any single query whose requested cost exceeds this. */
const MAX_QUERY_COST = 1000;

export function createShopifySandbox(options: ShopifySandboxOptions = {}): VendorSandbox {
  const token = options.accessToken ?? shopifyDemoCredentials.accessToken;
  const { maximumAvailable, restoreRate } = options.bucket ?? { maximumAvailable: 2000, restoreRate: 100 };
  const schema = buildSchema(SHOPIFY_SANDBOX_SDL);
  const rootValue = createRoot(SEED_ORDERS, SEED_PRODUCTS);
  let available = maximumAvailable;
  let restoredAt = Date.now();

  const costExtension = (requested: number, actual: number | null) => ({
    cost: {
      requestedQueryCost: requested,
      actualQueryCost: actual,
      throttleStatus: { maximumAvailable, currentlyAvailable: Math.floor(available), restoreRate },
    },
  });

  async function handle(req: SandboxRequest): Promise<SandboxResponse> {
    if (req.params.version !== SHOPIFY_API_VERSION) return { status: 404, json: { errors: 'Not Found' } };
    if (req.headers['x-shopify-access-token'] !== token) return { status: 401, json: { errors: INVALID_TOKEN } };
    const body = req.body as { query?: unknown; variables?: unknown; operationName?: unknown } | null;
    if (!body || typeof body !== 'object' || typeof body.query !== 'string') {
      return { status: 400, json: { errors: { query: 'Required parameter missing or invalid' } } };
    }
    const variables = body.variables && typeof body.variables === 'object' ? (body.variables as Record<string, unknown>) : {};
    const operationName = typeof body.operationName === 'string' ? body.operationName : undefined;
    const cost = options.queryCost ?? requestedQueryCost(schema, body.query, variables, operationName);
    const headers = { 'x-shopify-api-version': SHOPIFY_API_VERSION };
    if (cost > MAX_QUERY_COST) {
      const message = `Query cost is ${cost}, which exceeds the single query max cost limit (${MAX_QUERY_COST}).`;
      const error = { message, extensions: { code: 'MAX_COST_EXCEEDED', cost, maxCost: MAX_QUERY_COST } };
      return { status: 200, headers, json: { errors: [error] } };
    }
    const now = Date.now();
    available = Math.min(maximumAvailable, available + ((now - restoredAt) / 1000) * restoreRate);
    restoredAt = now;
    if (available < cost) {
      const throttled = { message: 'Throttled', extensions: { code: 'THROTTLED', documentation: 'https://shopify.dev/api/usage/limits' } };
      return { status: 200, headers, json: { errors: [throttled], extensions: costExtension(cost, null) } };
    }
    available -= cost;
    const result = await graphql({ schema, source: body.query, rootValue, variableValues: variables, operationName });
    const actual = options.queryCost ?? Math.min(cost, actualQueryCost(result.data));
    available = Math.min(maximumAvailable, available + cost - actual);
    return { status: 200, headers, json: { ...result, extensions: costExtension(cost, actual) } };
  }

  return {
    vendor: 'shopify',
    routes: [{ method: 'POST', path: /^\/admin\/api\/(?<version>[^/]+)\/graphql\.json$/, handle }],
  };
}

/** The sandbox every dev setup and test uses unless it needs other options. */
export const shopifySandbox = createShopifySandbox();

interface PageArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

const cursorOf = (index: number) => Buffer.from(`cursor:${index}`).toString('base64url');
function indexOf(cursor: string): number {
  const match = /^cursor:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw new GraphQLError(`Invalid cursor for current pagination sort.`);
  return Number(match[1]);
}

/** A Relay connection as Shopify returns it; first or last is required, at most 250. */
function connection<T>(items: T[], args: PageArgs) {
  if (args.first == null && args.last == null) throw new GraphQLError('you must provide one of first or last');
  if ((args.first ?? 0) > MAX_PAGE || (args.last ?? 0) > MAX_PAGE) throw new GraphQLError(`The maximum page size is ${MAX_PAGE}`);
  let start = args.after ? indexOf(args.after) + 1 : 0;
  let end = args.before ? indexOf(args.before) : items.length;
  if (args.first != null) end = Math.min(end, start + Math.max(0, args.first));
  if (args.last != null) start = Math.max(start, end - Math.max(0, args.last));
  const edges = items.slice(start, Math.max(start, end)).map((node, i) => ({ cursor: cursorOf(start + i), node }));
  return {
    edges,
    nodes: edges.map((e) => e.node),
    pageInfo: {
      hasNextPage: end < items.length,
      hasPreviousPage: start > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
    },
  };
}

function idOfGid(type: string, gid: string): string {
  const match = new RegExp(`^gid://shopify/${type}/(\\d+)$`).exec(gid);
  if (!match) throw new GraphQLError(`Invalid global id '${gid}'`, { extensions: { code: 'argumentLiteralsIncompatible' } });
  return match[1];
}

/** The value of a `name:` term of Shopify's search syntax (`name:#1001`, `name:"#1001"`). */
function nameTerm(query: string | null | undefined): string | null {
  const match = /(?:^|\s)name:(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+))/.exec(query ?? '');
  if (!match) return null;
  return (match[1]?.replace(/\\(.)/g, '$1') ?? match[2] ?? match[3]).replace(/^#/, '').toLowerCase();
}

/**
 * A seed record as the node GraphQL serves: the Admin API's gid as `id`, the numeric id as
 * `legacyResourceId`. Seed fields that the schema does not have are never selected.
 */
function node<T extends { id: string }>(type: string, seed: T) {
  return { ...seed, id: toGid(type, seed.id), legacyResourceId: seed.id };
}

/** name, email, createdAt, cancelledAt, closedAt and shippingAddress are the seed's own. */
function orderView(o: SeedOrder) {
  return {
    ...node('Order', o),
    closed: o.closedAt !== null,
    displayFinancialStatus: o.financial,
    displayFulfillmentStatus: o.fulfillment,
    fulfillments: ({ first }: { first?: number | null }) =>
      o.fulfillments.slice(0, first ?? undefined).map((f) => ({
        ...node('Fulfillment', f),
        trackingInfo: (args: { first?: number | null }) => f.tracking.slice(0, args.first ?? undefined),
      })),
    lineItems: (args: PageArgs) =>
      connection(
        o.lineItems.map((li, i) => ({ id: toGid('LineItem', `${o.id}${i + 1}`), ...li })),
        args,
      ),
  };
}

function productView(p: SeedProduct) {
  return {
    ...node('Product', p),
    totalInventory: p.variants.reduce((sum, v) => sum + v.inventoryQuantity, 0),
    variants: (args: PageArgs) =>
      connection(
        p.variants.map((v) => node('ProductVariant', v)),
        args,
      ),
  };
}

function createRoot(orders: SeedOrder[], products: SeedProduct[]) {
  return {
    order: ({ id }: { id: string }) => {
      const legacyId = idOfGid('Order', id);
      const found = orders.find((o) => o.id === legacyId);
      return found ? orderView(found) : null;
    },
    orders: (args: PageArgs & { query?: string | null; reverse?: boolean | null }) => {
      const name = nameTerm(args.query);
      const matching = orders.filter((o) => name === null || o.name.replace(/^#/, '').toLowerCase() === name);
      const sorted = args.reverse ? [...matching].reverse() : matching;
      return connection(sorted.map(orderView), args);
    },
    product: ({ id }: { id: string }) => {
      const legacyId = idOfGid('Product', id);
      const found = products.find((p) => p.id === legacyId);
      return found ? productView(found) : null;
    },
  };
}
