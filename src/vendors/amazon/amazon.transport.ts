import { createHash } from 'node:crypto';
import { fetchJson } from '../http';
import { VendorHttpError, VendorProtocolError, type VendorContext } from '../vendor-handler';

/**
 * Amazon transport: the only place that does HTTP for Amazon. A Login with Amazon
 * refresh-token grant (`POST /auth/o2/token`, form-encoded) yields an access token that
 * every Selling Partner API call carries in `x-amz-access-token` (no AWS SigV4 since 2023).
 * https://developer-docs.amazon.com/sp-api/docs/connecting-to-the-selling-partner-api
 */

/** SP-API asks callers to identify themselves: `<app>/<version> (Language=<language>)`. */
const USER_AGENT = 'Toolgate/0.1 (Language=TypeScript)';
/** Refresh this long before expiry (at most a tenth of the token's lifetime). */
const EXPIRY_MARGIN_MS = 60_000;

interface CachedToken {
  accessToken: string;
  expiresAt: number;
}

interface LwaTokenResponse {
  access_token?: unknown;
  token_type?: unknown;
  expires_in?: unknown;
}

function credential(ctx: VendorContext, field: string): string {
  const value = ctx.credentials[field];
  if (typeof value !== 'string' || value.length === 0) throw new Error(`amazon credential ${field} is missing`);
  return value;
}

function endpoint(ctx: VendorContext, name: 'lwa' | 'spApi'): string {
  const url = ctx.urls[name];
  if (!url) throw new Error(`amazon endpoint ${name} is not configured`);
  return url.replace(/\/+$/, '');
}

/**
 * The cache key of a credential's access token: a hash of the LWA endpoint, client and
 * refresh token, so different credentials never share a token and no secret is a key.
 */
export function tokenCacheKey(ctx: VendorContext): string {
  const material = [endpoint(ctx, 'lwa'), credential(ctx, 'clientId'), credential(ctx, 'clientSecret'), credential(ctx, 'refreshToken')];
  return `amazon:lwa:${createHash('sha256').update(material.join('\n')).digest('hex')}`;
}

/** A valid access token: the cached one, or a fresh one from LWA (then cached). */
async function accessToken(ctx: VendorContext): Promise<{ token: string; cached: boolean }> {
  const key = tokenCacheKey(ctx);
  const cached = ctx.cache.get(key) as CachedToken | undefined;
  if (cached && ctx.clock.now() < cached.expiresAt) return { token: cached.accessToken, cached: true };

  const form = new URLSearchParams({
    grant_type: 'refresh_token',
    refresh_token: credential(ctx, 'refreshToken'),
    client_id: credential(ctx, 'clientId'),
    client_secret: credential(ctx, 'clientSecret'),
  });
  const { status, body } = await fetchJson<LwaTokenResponse>(`${endpoint(ctx, 'lwa')}/auth/o2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' },
    body: form.toString(),
    signal: ctx.signal,
    clock: ctx.clock,
  });
  const token = body?.access_token;
  const expiresIn = body?.expires_in;
  if (
    typeof token !== 'string' ||
    token.length === 0 ||
    typeof body?.token_type !== 'string' ||
    body.token_type.toLowerCase() !== 'bearer' ||
    typeof expiresIn !== 'number' ||
    !(expiresIn > 0)
  ) {
    throw new VendorProtocolError(status);
  }
  const lifetimeMs = expiresIn * 1000;
  ctx.cache.set(key, { accessToken: token, expiresAt: ctx.clock.now() + lifetimeMs - Math.min(EXPIRY_MARGIN_MS, lifetimeMs / 10) });
  return { token, cached: false };
}

/**
 * GET an SP-API path (already encoded) with query parameters. A 403 on a cached token
 * (revoked or expired early) drops it and retries once with a fresh one.
 */
export async function spApiGet<T>(ctx: VendorContext, path: string, query: Record<string, string> = {}): Promise<T> {
  const qs = new URLSearchParams(query).toString();
  const url = `${endpoint(ctx, 'spApi')}${path}${qs ? `?${qs}` : ''}`;
  const call = async (token: string) =>
    fetchJson<T>(url, { headers: { 'x-amz-access-token': token, 'user-agent': USER_AGENT }, signal: ctx.signal, clock: ctx.clock });

  const first = await accessToken(ctx);
  try {
    return (await call(first.token)).body;
  } catch (error) {
    if (!(error instanceof VendorHttpError) || error.status !== 403 || !first.cached) throw error;
    ctx.cache.delete(tokenCacheKey(ctx));
    return (await call((await accessToken(ctx)).token)).body;
  }
}
