import { SandboxServer, type VendorSandbox } from '../../src/vendors/sandbox/sandbox-server';
import { VendorHttpError, type VendorContext } from '../../src/vendors/vendor-handler';
import { systemClock } from '../../src/support/clock';
import { QBO_DEMO_REALM_ID, nangoDemoCredentials } from '../../src/vendors/nango/nango.sandbox';

/**
 * Helpers of the vendor handler suites, which call a handler's actions directly against
 * that vendor's sandbox (no app, no database).
 */

/**
 * The suite's sandbox server: built now, listening from beforeAll to afterAll, its faults
 * and recorded requests cleared before each test.
 */
export function useSandboxServer(sandboxes: VendorSandbox[]): SandboxServer {
  const server = new SandboxServer(sandboxes);
  beforeAll(() => server.start());
  afterAll(() => server.stop());
  beforeEach(() => {
    server.clearFaults();
    server.requests.length = 0;
  });
  return server;
}

/** What an action gets to run: these credentials and vendor urls, a fresh token cache, the system clock. */
export function vendorContext(
  credentials: Record<string, unknown>,
  urls: Record<string, string>,
  overrides: Partial<VendorContext> = {},
): VendorContext {
  return {
    credentials: { ...credentials },
    urls,
    signal: new AbortController().signal,
    idempotencyKey: 'tc-1',
    effectKey: 'effect-1',
    lookForEarlierEffect: true,
    cache: new Map(),
    clock: systemClock,
    ...overrides,
  };
}

/** What `promise` rejected with (fails when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** The VendorHttpError `promise` rejected with (fails on anything else). */
export async function httpError(promise: Promise<unknown>): Promise<VendorHttpError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(VendorHttpError);
  return error as VendorHttpError;
}

/**
 * HTTP clients of the sandboxes as `toolgate sandboxes` serves them at `baseUrl()`: the JSON
 * control API under /_sandbox/, and QuickBooks through the Nango proxy as Toolgate calls it.
 */
export function servedSandboxes(baseUrl: () => string) {
  const company = `/nango/proxy/v3/company/${QBO_DEMO_REALM_ID}`;
  const nangoHeaders = {
    authorization: `Bearer ${nangoDemoCredentials.secretKey}`,
    'connection-id': nangoDemoCredentials.connectionId,
    'provider-config-key': nangoDemoCredentials.providerConfigKey,
  };
  return {
    async control(method: string, path: string, json?: unknown): Promise<{ status: number; body: any }> {
      const response = await fetch(`${baseUrl()}/_sandbox${path}`, {
        method,
        headers: json === undefined ? {} : { 'content-type': 'application/json' },
        body: json === undefined ? undefined : JSON.stringify(json),
      });
      return { status: response.status, body: await response.json() };
    },
    quickbooks(method: 'GET' | 'POST', path: string, query: Record<string, string>, json?: unknown): Promise<Response> {
      const search = new URLSearchParams({ ...query, minorversion: '75' });
      return fetch(`${baseUrl()}${company}${path}?${search.toString()}`, {
        method,
        headers: { ...nangoHeaders, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
        body: json === undefined ? undefined : JSON.stringify(json),
      });
    },
  };
}
