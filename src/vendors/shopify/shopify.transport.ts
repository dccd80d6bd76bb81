import { fetchJson } from '../http';
import { VendorHttpError, VendorProtocolError, type VendorContext } from '../vendor-handler';

/**
 * Shopify transport: the only place that does HTTP for Shopify. It speaks the GraphQL
 * Admin API (`POST /admin/api/<version>/graphql.json`, `X-Shopify-Access-Token`), the
 * API Shopify builds on since the REST Admin API became legacy (2024-10-01) and the REST
 * `/products` and `/variants` endpoints were deprecated (2024-04).
 * https://shopify.dev/docs/api/admin-graphql · https://shopify.dev/docs/api/usage/authentication
 */

/** The pinned Admin API release: a stable quarterly version, supported for 12 months. */
export const SHOPIFY_API_VERSION = '2025-07';

/** Only `<shop>.myshopify.com` hosts: the access token is never sent anywhere else. */
const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]{0,62}\.myshopify\.com$/i;

/** The production base URL of a shop; refuses anything that is not a myshopify.com host. */
export function shopifyAdminUrl(credentials: Record<string, unknown>): string {
  const domain = credentials.shopDomain;
  if (typeof domain !== 'string' || !SHOP_DOMAIN.test(domain)) {
    throw new Error('shopify credential shopDomain must be a <shop>.myshopify.com host');
  }
  return `https://${domain.toLowerCase()}`;
}

interface GraphqlError {
  message?: unknown;
  extensions?: { code?: unknown };
}

interface GraphqlEnvelope<T> {
  data?: T | null;
  errors?: unknown;
  extensions?: {
    cost?: {
      requestedQueryCost?: unknown;
      throttleStatus?: { currentlyAvailable?: unknown; restoreRate?: unknown };
    };
  };
}

/**
 * Runs one GraphQL query against the shop and returns `data`. HTTP failures throw
 * VendorHttpError (fetchJson); a 200 carrying `errors` is mapped: THROTTLED → 429 with the
 * wait the cost bucket needs, ACCESS_DENIED → 403, anything else → VendorProtocolError.
 */
export async function shopifyGraphql<T>(ctx: VendorContext, query: string, variables: Record<string, unknown>): Promise<T> {
  const token = ctx.credentials.accessToken;
  if (typeof token !== 'string' || token.length === 0) throw new Error('shopify credential accessToken is missing');
  const base = ctx.urls.admin;
  if (!base) throw new Error('shopify endpoint admin is not configured');

  const { status, body } = await fetchJson<GraphqlEnvelope<T>>(`${base.replace(/\/+$/, '')}/admin/api/${SHOPIFY_API_VERSION}/graphql.json`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-shopify-access-token': token },
    body: JSON.stringify({ query, variables }),
    signal: ctx.signal,
    clock: ctx.clock,
  });
  if (!body || typeof body !== 'object') throw new VendorProtocolError(status);
  if (body.errors !== undefined && body.errors !== null) throw mapGraphqlErrors(body, status);
  if (!body.data || typeof body.data !== 'object') throw new VendorProtocolError(status);
  return body.data;
}

function mapGraphqlErrors(body: GraphqlEnvelope<unknown>, status: number): Error {
  const errors: GraphqlError[] = Array.isArray(body.errors) ? body.errors : [];
  const codes = errors.map((e) => (e && typeof e === 'object' ? e.extensions?.code : undefined));
  if (codes.includes('THROTTLED')) return new VendorHttpError(429, throttleWaitMs(body));
  if (codes.includes('ACCESS_DENIED')) return new VendorHttpError(403);
  return new VendorProtocolError(status);
}

/**
 * How long until the cost bucket holds the requested points again:
 * (requestedQueryCost − currentlyAvailable) / restoreRate seconds.
 * https://shopify.dev/docs/api/usage/limits#graphql-admin-api-rate-limits
 */
function throttleWaitMs(body: GraphqlEnvelope<unknown>): number | null {
  const cost = body.extensions?.cost;
  const requested = cost?.requestedQueryCost;
  const available = cost?.throttleStatus?.currentlyAvailable;
  const rate = cost?.throttleStatus?.restoreRate;
  if (typeof requested !== 'number' || typeof available !== 'number' || typeof rate !== 'number' || rate <= 0) {
    return null;
  }
  return Math.max(0, Math.ceil(((requested - available) / rate) * 1000));
}

/** `gid://shopify/<Type>/<id>` for a numeric id, or the numeric id of such a gid. */
export const toGid = (type: string, id: string) => `gid://shopify/${type}/${id}`;

export function numericIdOf(type: string, value: string): string | null {
  const trimmed = value.trim();
  if (/^\d{1,20}$/.test(trimmed)) return trimmed;
  const match = new RegExp(`^gid://shopify/${type}/(\\d{1,20})$`).exec(trimmed);
  return match ? match[1] : null;
}
