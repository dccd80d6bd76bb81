import { fetchJson } from '../http';
import type { VendorContext } from '../vendor-handler';

/**
 * The only file that talks HTTP to Nango. QuickBooks Online Accounting API calls go
 * through Nango's proxy (https://nango.dev/docs/reference/backend/http-api/proxy):
 * `{api}/proxy/<QuickBooks path>` with `Authorization: Bearer <Nango secret key>`,
 * `Connection-Id` and `Provider-Config-Key`; Nango injects the QuickBooks OAuth token
 * and forwards QuickBooks' status and body unchanged.
 *
 * Every QuickBooks call carries `minorversion` (Intuit requires 75 or later).
 */
export const QBO_MINOR_VERSION = '75';

const REALM_ID = /^\d{1,32}$/;

export interface NangoCredentials {
  secretKey: string;
  connectionId: string;
  providerConfigKey: string;
  /** The QuickBooks company id (realmId of the Nango connection). */
  realmId: string;
}

export function nangoCredentials(ctx: VendorContext): NangoCredentials {
  const { secretKey, connectionId, providerConfigKey, realmId } = ctx.credentials;
  for (const [field, value] of Object.entries({ secretKey, connectionId, providerConfigKey })) {
    if (typeof value !== 'string' || value === '') throw new Error(`nango credential field ${field} is missing`);
  }
  const realm = typeof realmId === 'number' ? String(realmId) : realmId;
  if (typeof realm !== 'string' || !REALM_ID.test(realm)) throw new Error('nango credential field realmId is invalid');
  return {
    secretKey: secretKey as string,
    connectionId: connectionId as string,
    providerConfigKey: providerConfigKey as string,
    realmId: realm,
  };
}

export interface QuickBooksRequest {
  method: 'GET' | 'POST';
  /** Below the company, e.g. `/query` or `/invoice/130/send`. */
  path: string;
  query?: Record<string, string>;
  /** JSON body; POSTs without one are sent as an empty application/octet-stream. */
  json?: unknown;
}

/** One QuickBooks Online call for the credential's company, through the Nango proxy. */
export async function quickbooksRequest<T = unknown>(ctx: VendorContext, request: QuickBooksRequest): Promise<T> {
  const credentials = nangoCredentials(ctx);
  const base = ctx.urls.api?.replace(/\/+$/, '');
  if (!base) throw new Error('nango endpoint api has no URL');
  const query = new URLSearchParams({ ...(request.query ?? {}), minorversion: QBO_MINOR_VERSION });
  const url = `${base}/proxy/v3/company/${credentials.realmId}${request.path}?${query.toString()}`;
  const headers: Record<string, string> = {
    authorization: `Bearer ${credentials.secretKey}`,
    'connection-id': credentials.connectionId,
    'provider-config-key': credentials.providerConfigKey,
  };
  let body: string | undefined;
  if (request.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(request.json);
  } else if (request.method === 'POST') {
    headers['content-type'] = 'application/octet-stream';
  }
  const response = await fetchJson<T>(url, { method: request.method, headers, body, signal: ctx.signal, clock: ctx.clock });
  return response.body;
}
