import { randomBytes } from 'node:crypto';
import { systemClock, type Clock } from '../../support/clock';
import type { SandboxRequest, SandboxResponse, VendorSandbox } from '../sandbox/sandbox-server';
import { amazonDemoCredentials, CATALOG_DATASETS, KNOWN_MARKETPLACES, SEED_CATALOG, SEED_ORDER_ITEMS, SEED_ORDERS } from './amazon.sandbox-data';

export { amazonDemoCredentials } from './amazon.sandbox-data';

/**
 * The Amazon sandbox: Login with Amazon's token endpoint (refresh-token grant, its
 * error codes) and the SP-API routes Toolgate reads (Orders v0, Catalog Items
 * 2022-04-01), which accept only access tokens this sandbox issued and has not expired.
 */
export interface AmazonSandboxOptions {
  /** What "expired" is measured against (default the system clock; a test shares its manual clock). */
  clock?: Clock;
  /** expires_in of issued access tokens; LWA's is 3600. */
  accessTokenTtlSeconds?: number;
  /** Order items per getOrderItems page (then NextToken). */
  orderItemsPageSize?: number;
  /** Refresh tokens of further sellers who authorized the demo app. */
  extraRefreshTokens?: string[];
}

const ORDER_ID = /^[0-9A-Z]{3}-\d{7}-\d{7}$/;

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

const spApiError = (status: number, code: string, message: string, details = ''): SandboxResponse => ({
  status,
  headers: { 'x-amzn-requestid': randomBytes(16).toString('hex') },
  json: { errors: [{ code, message, details }] },
});
const lwaError = (status: number, error: string, description: string): SandboxResponse => ({
  status,
  json: { error_description: description, error },
});
const ok = (json: unknown, rateLimit: string): SandboxResponse => ({
  status: 200,
  headers: { 'x-amzn-requestid': randomBytes(16).toString('hex'), 'x-amzn-ratelimit-limit': rateLimit },
  json,
});

export function createAmazonSandbox(options: AmazonSandboxOptions = {}): VendorSandbox {
  const ttlSeconds = options.accessTokenTtlSeconds ?? 3600;
  const clock = options.clock ?? systemClock;
  const pageSize = options.orderItemsPageSize ?? 100;
  const refreshTokens = new Set<string>([amazonDemoCredentials.refreshToken, ...(options.extraRefreshTokens ?? [])]);
  /** Issued access token → when it expires. */
  const issued = new Map<string, number>();

  // https://developer-docs.amazon.com/sp-api/docs/connecting-to-the-selling-partner-api
  function token(req: SandboxRequest): SandboxResponse {
    const form = (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>;
    if (!form.grant_type) return lwaError(400, 'invalid_request', 'The request is missing a required parameter : grant_type');
    if (form.grant_type !== 'refresh_token') return lwaError(400, 'unsupported_grant_type', 'The authorization grant type is not supported');
    if (form.client_id !== amazonDemoCredentials.clientId || form.client_secret !== amazonDemoCredentials.clientSecret) {
      return lwaError(401, 'invalid_client', 'Client authentication failed');
    }
    if (typeof form.refresh_token !== 'string' || !refreshTokens.has(form.refresh_token)) {
      return lwaError(400, 'invalid_grant', 'The request has an invalid grant parameter : refresh_token');
    }
    const accessToken = `Atza|${randomBytes(48).toString('base64url')}`;
    issued.set(accessToken, clock.now() + ttlSeconds * 1000);
    return {
      status: 200,
      json: { access_token: accessToken, refresh_token: form.refresh_token, token_type: 'bearer', expires_in: ttlSeconds },
    };
  }

  /** SP-API's answer to a missing, unknown or expired x-amz-access-token; null when valid. */
  function refused(req: SandboxRequest): SandboxResponse | null {
    const header = req.headers['x-amz-access-token'];
    const expiresAt = typeof header === 'string' ? issued.get(header) : undefined;
    const denied = 'Access to requested resource is denied.';
    if (expiresAt === undefined) return spApiError(403, 'Unauthorized', denied, 'The access token you provided is revoked, malformed or invalid.');
    if (expiresAt <= clock.now()) return spApiError(403, 'Unauthorized', denied, 'The access token you provided has expired.');
    return null;
  }

  /** The seeded order of the route, or the SP-API error for it. */
  function findOrder(req: SandboxRequest): { orderId: string } | SandboxResponse {
    const orderId = decoded(req.params.orderId);
    if (!ORDER_ID.test(orderId)) return spApiError(400, 'InvalidInput', 'Invalid Input');
    if (!SEED_ORDERS[orderId]) return spApiError(404, 'NotFound', 'Requested order not found');
    return { orderId };
  }

  const routes: VendorSandbox['routes'] = [
    { method: 'POST', path: /^\/auth\/o2\/token$/, handle: token },
    {
      method: 'GET',
      path: /^\/orders\/v0\/orders\/(?<orderId>[^/]+)$/,
      handle: (req) => {
        const found = refused(req) ?? findOrder(req);
        return 'status' in found ? found : ok({ payload: SEED_ORDERS[found.orderId] }, '0.5');
      },
    },
    {
      method: 'GET',
      path: /^\/orders\/v0\/orders\/(?<orderId>[^/]+)\/orderItems$/,
      handle: (req) => {
        const found = refused(req) ?? findOrder(req);
        if ('status' in found) return found;
        const items = SEED_ORDER_ITEMS[found.orderId] ?? [];
        const next = req.query.get('NextToken');
        const offset = next ? Number(Buffer.from(next, 'base64url').toString('utf8').split(':')[1]) : 0;
        if (!Number.isInteger(offset) || offset < 0) return spApiError(400, 'InvalidInput', 'Invalid NextToken');
        const page = items.slice(offset, offset + pageSize);
        const more = offset + pageSize < items.length;
        const payload: Record<string, unknown> = { AmazonOrderId: found.orderId, OrderItems: page };
        if (more) payload.NextToken = Buffer.from(`${found.orderId}:${offset + pageSize}`).toString('base64url');
        return ok({ payload }, '0.5');
      },
    },
    {
      method: 'GET',
      path: /^\/catalog\/2022-04-01\/items\/(?<asin>[^/]+)$/,
      handle: (req) => {
        const denied = refused(req);
        if (denied) return denied;
        const marketplaceIds = (req.query.get('marketplaceIds') ?? '').split(',').filter(Boolean);
        if (marketplaceIds.length === 0) return spApiError(400, 'InvalidInput', "Missing required 'marketplaceIds'");
        const unknown = marketplaceIds.find((id) => !KNOWN_MARKETPLACES.has(id));
        if (unknown) return spApiError(400, 'InvalidInput', `Invalid 'marketplaceIds' provided: ${unknown}`);
        const datasets = (req.query.get('includedData') ?? 'summaries').split(',').filter(Boolean);
        const invalid = datasets.find((d) => !CATALOG_DATASETS.has(d));
        if (invalid) return spApiError(400, 'InvalidInput', `Invalid 'includedData' provided: ${invalid}`);
        const asin = decoded(req.params.asin);
        const summaries = SEED_CATALOG[asin]?.filter((s) => marketplaceIds.includes(String(s.marketplaceId)));
        if (!summaries || summaries.length === 0) {
          return spApiError(404, 'NotFound', `Requested item '${asin}' not found in marketplace(s) ${marketplaceIds.join(',')}.`);
        }
        return ok(datasets.includes('summaries') ? { asin, summaries } : { asin }, '2');
      },
    },
  ];
  return { vendor: 'amazon', routes };
}
