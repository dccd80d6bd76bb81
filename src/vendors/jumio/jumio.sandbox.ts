import { randomBytes } from 'node:crypto';
import { systemClock, type Clock } from '../../support/clock';
import type { SandboxRequest, SandboxResponse, VendorSandbox } from '../sandbox/sandbox-server';
import { seedExecutions, type SandboxExecution } from './jumio.sandbox-data';

export { JUMIO_DEMO_ACCOUNT_ID, JUMIO_DEMO_EXECUTIONS } from './jumio.sandbox-data';

/**
 * The Jumio sandbox: the OAuth2 token endpoint of auth.<dc>.jumio.ai and the KYX Retrieval
 * API of retrieval.<dc>.jumio.ai, both under the `/jumio` prefix of the SandboxServer.
 */
export const jumioDemoCredentials = {
  clientId: 'sandbox-jumio-client',
  clientSecret: 'sandbox-jumio-secret',
  datacenter: 'amer-1',
};

const PUBLIC_RETRIEVAL_URL = 'https://retrieval.amer-1.jumio.ai';

export interface JumioSandboxOptions {
  /** What "expired" is measured against (default the system clock; a test shares its manual clock). */
  clock?: Clock;
  /** expires_in of issued tokens, in seconds (Jumio: 3600). */
  tokenExpiresIn?: number;
  clientId?: string;
  clientSecret?: string;
}

export interface JumioSandbox extends VendorSandbox {
  /** How many access tokens the token endpoint has issued. */
  tokensIssued(): number;
  /** Makes every issued token invalid, as if Jumio revoked them. */
  revokeTokens(): void;
}

function parseBasic(header: string | undefined): { id: string; secret: string } | null {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : { id: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

function decodeParam(value: string): string | null {
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}

const notFound = (): SandboxResponse => ({ status: 404, json: { message: 'Not Found' } });

export function createJumioSandbox(options: JumioSandboxOptions = {}): JumioSandbox {
  const clientId = options.clientId ?? jumioDemoCredentials.clientId;
  const clientSecret = options.clientSecret ?? jumioDemoCredentials.clientSecret;
  const expiresIn = options.tokenExpiresIn ?? 3600;
  const clock = options.clock ?? systemClock;
  const tokens = new Map<string, number>();
  const executions = seedExecutions();
  let issued = 0;

  function token(request: SandboxRequest): SandboxResponse {
    const basic = parseBasic(request.headers.authorization);
    if (!basic || basic.id !== clientId || basic.secret !== clientSecret) {
      return {
        status: 401,
        headers: { 'www-authenticate': 'Basic realm="jumio"' },
        json: { error: 'invalid_client', error_description: 'Client authentication failed' },
      };
    }
    if (!request.headers['content-type']?.includes('application/x-www-form-urlencoded')) {
      return { status: 400, json: { error: 'invalid_request', error_description: 'Unsupported content type' } };
    }
    const grantType = (request.body as Record<string, string> | null)?.grant_type;
    if (grantType !== 'client_credentials') {
      return { status: 400, json: { error: 'unsupported_grant_type' } };
    }
    const accessToken = `sbx-jumio-${randomBytes(24).toString('hex')}`;
    tokens.set(accessToken, clock.now() + expiresIn * 1000);
    issued += 1;
    return {
      status: 200,
      headers: { 'cache-control': 'no-store' },
      json: { access_token: accessToken, expires_in: expiresIn, token_type: 'Bearer' },
    };
  }

  /** The execution of a retrieval request, or the 401/404 answer. */
  function find(request: SandboxRequest): SandboxExecution | SandboxResponse {
    const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    const expiresAt = bearer ? tokens.get(bearer) : undefined;
    if (expiresAt === undefined || clock.now() >= expiresAt) {
      return { status: 401, headers: { 'www-authenticate': 'Bearer' }, json: { message: 'Unauthorized' } };
    }
    const accountId = decodeParam(request.params.accountId);
    const executionId = decodeParam(request.params.executionId);
    const execution = executions.find((e) => e.accountId === accountId && e.id === executionId);
    return execution ?? notFound();
  }

  /** A Retrieval API route: `body` of the execution the path names, or find's 401/404 answer. */
  const retrieval =
    (body: (e: SandboxExecution) => unknown) =>
    (request: SandboxRequest): SandboxResponse => {
      const found = find(request);
      return 'definitionKey' in found ? { status: 200, json: body(found) } : found;
    };
  const accountHref = (e: SandboxExecution) => `${PUBLIC_RETRIEVAL_URL}/api/v1/accounts/${e.accountId}`;
  const executionHref = (e: SandboxExecution) => `${accountHref(e)}/workflow-executions/${e.id}`;

  return {
    vendor: 'jumio',
    tokensIssued: () => issued,
    revokeTokens: () => tokens.clear(),
    routes: [
      { method: 'POST', path: /^\/oauth2\/token$/, handle: token },
      {
        method: 'GET',
        path: /^\/api\/v1\/accounts\/(?<accountId>[^/]+)\/workflow-executions\/(?<executionId>[^/]+)\/status$/,
        handle: retrieval((e) => ({
          account: { id: e.accountId, href: accountHref(e) },
          workflowExecution: { id: e.id, href: executionHref(e), definitionKey: e.definitionKey, status: e.status },
        })),
      },
      {
        method: 'GET',
        path: /^\/api\/v1\/accounts\/(?<accountId>[^/]+)\/workflow-executions\/(?<executionId>[^/]+)$/,
        handle: retrieval((e) => ({
          workflow: { id: e.id, status: e.status, definitionKey: e.definitionKey },
          account: { id: e.accountId },
          createdAt: e.createdAt,
          ...(e.startedAt ? { startedAt: e.startedAt } : {}),
          ...(e.completedAt ? { completedAt: e.completedAt } : {}),
          ...(e.decision ? { decision: e.decision } : {}),
          ...(e.capabilities ? { capabilities: e.capabilities } : {}),
          steps: { href: `${executionHref(e)}/steps` },
        })),
      },
    ],
  };
}

/** The sandbox the embedded default and the tests use: the demo client, 1-hour tokens. */
export const jumioSandbox: JumioSandbox = createJumioSandbox();
