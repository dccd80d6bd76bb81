import { createHash } from 'node:crypto';
import { fetchJson } from '../http';
import { VendorHttpError, VendorProtocolError, type VendorContext } from '../vendor-handler';

/**
 * The only file that talks HTTP to Jumio. OAuth2 client credentials against the auth
 * service (POST {auth}/oauth2/token, Basic client_id:client_secret, form
 * grant_type=client_credentials → { access_token, expires_in, token_type }), then the
 * KYX Retrieval API with `Authorization: Bearer <access_token>`.
 *
 * Tokens live in ctx.cache, keyed by a hash of (auth URL, client id, client secret), until
 * shortly before they expire. A 401 on a cached token drops it and retries once with a
 * fresh one (a token revoked early, e.g. after a secret rotation on Jumio's side).
 */

/** Jumio asks every caller to identify itself in User-Agent. */
const USER_AGENT = 'Toolgate/0.1';
/** Jumio documents a 60-minute token lifetime; used when expires_in is absent. */
const DEFAULT_LIFETIME_S = 3600;
/** Refresh this long before expiry; at most half the lifetime for short-lived tokens. */
const EXPIRY_MARGIN_MS = 60_000;

export interface JumioCachedToken {
  accessToken: string;
  /** Epoch ms at which Jumio stops accepting the token. */
  expiresAt: number;
  /** Epoch ms after which the token is no longer used (expiresAt minus the margin). */
  refreshAt: number;
}

interface JumioCredentials {
  clientId: string;
  clientSecret: string;
}

function readCredentials(ctx: VendorContext): JumioCredentials {
  const { clientId, clientSecret } = ctx.credentials;
  if (typeof clientId !== 'string' || clientId === '' || typeof clientSecret !== 'string' || clientSecret === '') {
    throw new Error('jumio credential is missing clientId or clientSecret');
  }
  return { clientId, clientSecret };
}

function baseUrl(ctx: VendorContext, endpoint: 'auth' | 'retrieval'): string {
  const url = ctx.urls[endpoint];
  if (!url) throw new Error(`jumio endpoint ${endpoint} has no URL`);
  return url.replace(/\/+$/, '');
}

/** Where the access token of this credential is cached; never contains the secret itself. */
export function jumioTokenCacheKey(ctx: VendorContext): string {
  const { clientId, clientSecret } = readCredentials(ctx);
  const digest = createHash('sha256')
    .update(`${baseUrl(ctx, 'auth')}\n${clientId}\n${clientSecret}`)
    .digest('hex');
  return `jumio:token:${digest}`;
}

async function requestToken(ctx: VendorContext): Promise<JumioCachedToken> {
  const { clientId, clientSecret } = readCredentials(ctx);
  const basic = Buffer.from(`${clientId}:${clientSecret}`, 'utf8').toString('base64');
  const response = await fetchJson<Record<string, unknown> | null>(`${baseUrl(ctx, 'auth')}/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${basic}`,
      'content-type': 'application/x-www-form-urlencoded',
      'user-agent': USER_AGENT,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials' }).toString(),
    signal: ctx.signal,
    clock: ctx.clock,
  });
  const body = response.body;
  const accessToken = body?.access_token;
  const expiresIn = body?.expires_in ?? DEFAULT_LIFETIME_S;
  const tokenType = body?.token_type ?? 'Bearer';
  if (
    typeof accessToken !== 'string' ||
    accessToken === '' ||
    typeof expiresIn !== 'number' ||
    !(expiresIn > 0) ||
    typeof tokenType !== 'string' ||
    tokenType.toLowerCase() !== 'bearer'
  ) {
    throw new VendorProtocolError(response.status);
  }
  const now = ctx.clock.now();
  const lifetimeMs = expiresIn * 1000;
  const expiresAt = now + lifetimeMs;
  return { accessToken, expiresAt, refreshAt: expiresAt - Math.min(EXPIRY_MARGIN_MS, lifetimeMs / 2) };
}

async function accessToken(ctx: VendorContext, key: string): Promise<{ token: string; fromCache: boolean }> {
  const cached = ctx.cache.get(key) as JumioCachedToken | undefined;
  if (cached && ctx.clock.now() < cached.refreshAt) return { token: cached.accessToken, fromCache: true };
  ctx.cache.delete(key);
  const fresh = await requestToken(ctx);
  ctx.cache.set(key, fresh);
  return { token: fresh.accessToken, fromCache: false };
}

/** GET a Retrieval API path (e.g. `/api/v1/accounts/…`) and return its JSON body. */
export async function jumioRetrievalGet<T = unknown>(ctx: VendorContext, path: string): Promise<T> {
  const key = jumioTokenCacheKey(ctx);
  const get = async (token: string) =>
    (
      await fetchJson<T>(`${baseUrl(ctx, 'retrieval')}${path}`, {
        method: 'GET',
        headers: { authorization: `Bearer ${token}`, 'user-agent': USER_AGENT },
        signal: ctx.signal,
        clock: ctx.clock,
      })
    ).body;

  const first = await accessToken(ctx, key);
  try {
    return await get(first.token);
  } catch (error) {
    if (!(first.fromCache && error instanceof VendorHttpError && error.status === 401)) throw error;
    ctx.cache.delete(key);
    const second = await accessToken(ctx, key);
    return get(second.token);
  }
}
