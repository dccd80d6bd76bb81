import type { SandboxRequest, SandboxResponse, VendorSandbox } from '../sandbox/sandbox-server';
import { QBO_DEMO_REALM_ID } from './nango.sandbox-data';
import { QuickBooksCompany, type InvoiceEffect } from './nango.quickbooks-sandbox';
import type { QboEntity } from './nango.sandbox-data';

export { QBO_DEMO_CUSTOMERS, QBO_DEMO_REALM_ID } from './nango.sandbox-data';
export type { InvoiceEffect } from './nango.quickbooks-sandbox';

/**
 * The Nango sandbox: Nango's proxy (`/proxy/*`) in front of one QuickBooks Online company.
 * It checks what Nango checks, in Nango's order and with Nango's answers: the secret key
 * (401 missing_auth_header / invalid_secret_key_format / unknown_account), the
 * Provider-Config-Key and Connection-Id headers (400 invalid_headers), the integration
 * (404 unknown_provider_config) and the connection (400 "Failed to get connection"); then
 * forwards to the company, whose status and body come back unchanged.
 */
export const nangoDemoCredentials = {
  /** Nango secret keys are UUID v4. */
  secretKey: '6f1c2a9e-4b7d-4e3a-9c5f-8d2e1b0a7c34',
  connectionId: 'demo-quickbooks',
  providerConfigKey: 'quickbooks',
  realmId: QBO_DEMO_REALM_ID,
};

export interface NangoSandbox extends VendorSandbox {
  /** Invoices created through the proxy since the sandbox was made (or reset), oldest first. */
  createdInvoices(): QboEntity[];
  /**
   * One entry per invoice created since the sandbox was made (or reset), oldest first: what
   * the vendor did (its create requestid, emails sent), so that "no duplicate effect" can be
   * asserted.
   */
  effects(): InvoiceEffect[];
  /** A fresh QuickBooks company: seeded data only, no created invoices. */
  reset(): void;
}

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

function nangoError(status: number, code: string, message: string): SandboxResponse {
  return { status, json: { error: { code, message } } };
}

function header(request: SandboxRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function createNangoSandbox(): NangoSandbox {
  let company = new QuickBooksCompany();
  const integrations = new Set([nangoDemoCredentials.providerConfigKey]);
  const connections = new Map([[`${nangoDemoCredentials.providerConfigKey}/${nangoDemoCredentials.connectionId}`, QBO_DEMO_REALM_ID]]);

  function proxy(request: SandboxRequest): SandboxResponse {
    const authorization = header(request, 'authorization');
    if (!authorization) {
      return {
        status: 401,
        json: {
          error: {
            message: 'Authentication failed. The request is missing the Authorization header.',
            payload: {},
            code: 'missing_auth_header',
          },
        },
      };
    }
    const secret = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1] ?? '';
    if (!UUID_V4.test(secret)) {
      return nangoError(401, 'invalid_secret_key_format', 'Authentication failed. The provided secret key is not a UUID v4.');
    }
    if (secret !== nangoDemoCredentials.secretKey) {
      return nangoError(401, 'unknown_account', 'Authentication failed. The provided authorization header does not match any account.');
    }

    const providerConfigKey = header(request, 'provider-config-key');
    const connectionId = header(request, 'connection-id');
    if (!providerConfigKey || !connectionId) {
      const missing = [!providerConfigKey && 'provider-config-key', !connectionId && 'connection-id'].filter(Boolean);
      const errors = missing.map((name) => ({
        code: 'invalid_type',
        message: 'Invalid input: expected string, received undefined',
        path: [name],
      }));
      return { status: 400, json: { error: { code: 'invalid_headers', errors } } };
    }
    if (!integrations.has(providerConfigKey)) {
      return nangoError(
        404,
        'unknown_provider_config',
        'Provider config not found for the given provider config key. Please make sure the provider config exists in the Nango dashboard.',
      );
    }
    const realmId = connections.get(`${providerConfigKey}/${connectionId}`);
    if (!realmId) return nangoError(400, 'server_error', 'Failed to get connection');

    // The QuickBooks side: the connection's token only opens its own company.
    const target = /^\/proxy\/v3\/company\/([^/]+)(\/.*)$/.exec(request.path);
    if (!target || target[1] !== realmId) {
      return {
        status: 403,
        json: {
          fault: {
            error: [{ message: 'message=ApplicationAuthorizationFailed; errorCode=003100; statusCode=403', code: '3100' }],
            type: 'SERVICE',
          },
        },
      };
    }
    return company.handle({ method: request.method, path: target[2], query: request.query, body: request.body });
  }

  return {
    vendor: 'nango',
    createdInvoices: () => company.invoices.map((invoice) => structuredClone(invoice)),
    effects: () => company.effects(),
    reset: () => {
      company = new QuickBooksCompany();
    },
    routes: [
      { method: 'GET', path: /^\/proxy\/.*$/, handle: proxy },
      { method: 'POST', path: /^\/proxy\/.*$/, handle: proxy },
    ],
  };
}

/** The sandbox the embedded default and the tests use. */
export const nangoSandbox: NangoSandbox = createNangoSandbox();
