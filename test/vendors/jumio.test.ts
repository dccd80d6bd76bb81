import { SandboxServer, type RecordedRequest } from '../../src/vendors/sandbox/sandbox-server';
import { VendorHttpError, VendorProtocolError, type VendorContext } from '../../src/vendors/vendor-handler';
import { ManualClock } from '../support/clock';
import { jumioHandler } from '../../src/vendors/jumio/jumio.handler';
import { getStatusAction } from '../../src/vendors/jumio/get-status.action';
import { jumioTokenCacheKey, type JumioCachedToken } from '../../src/vendors/jumio/jumio.transport';
import {
  JUMIO_DEMO_ACCOUNT_ID,
  JUMIO_DEMO_EXECUTIONS,
  createJumioSandbox,
  jumioDemoCredentials,
  jumioSandbox,
} from '../../src/vendors/jumio/jumio.sandbox';
import { TOOL_CATALOG } from '../../src/catalog/tool-catalog';
import { rejection, useSandboxServer, vendorContext } from './vendor-helpers';

const server = useSandboxServer([jumioSandbox]);

function context(overrides: Partial<VendorContext> = {}, target: SandboxServer = server): VendorContext {
  return vendorContext(jumioDemoCredentials, { auth: target.urlFor('jumio'), retrieval: target.urlFor('jumio') }, overrides);
}

const executionPath = (id: string, account = JUMIO_DEMO_ACCOUNT_ID) => `/api/v1/accounts/${account}/workflow-executions/${id}`;
const tokenRequests = (requests: RecordedRequest[] = server.requests) => requests.filter((r) => r.path === '/oauth2/token');
const retrievalRequests = () => server.requests.filter((r) => r.path.startsWith('/api/v1/'));
const basic = `Basic ${Buffer.from(`${jumioDemoCredentials.clientId}:${jumioDemoCredentials.clientSecret}`).toString('base64')}`;

describe('kyc_check.get_status against the Jumio sandbox', () => {
  test('a PASSED execution: token exchange, status, then details; normalized result', async () => {
    const ctx = context();
    const input = { accountId: JUMIO_DEMO_ACCOUNT_ID, workflowExecutionId: JUMIO_DEMO_EXECUTIONS.passed };
    const result = await getStatusAction.execute(input, ctx);

    expect(result).toEqual({
      accountId: JUMIO_DEMO_ACCOUNT_ID,
      workflowExecutionId: JUMIO_DEMO_EXECUTIONS.passed,
      status: 'PROCESSED',
      definitionKey: '10013',
      decision: { type: 'PASSED', label: 'PASSED', riskScore: 12.5 },
      completedAt: '2025-03-24T11:37:34.253Z',
      checks: [
        { name: 'usability', decision: 'PASSED', label: 'OK' },
        { name: 'usability', decision: 'PASSED', label: 'OK' },
        { name: 'imageChecks', decision: 'PASSED', label: 'OK' },
        { name: 'extraction', decision: 'PASSED', label: 'OK' },
        { name: 'dataChecks', decision: 'PASSED', label: 'OK' },
        { name: 'liveness', decision: 'PASSED', label: 'OK' },
        { name: 'similarity', decision: 'PASSED', label: 'MATCH' },
        { name: 'watchlistScreening', decision: 'PASSED', label: 'OK' },
      ],
    });

    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /oauth2/token',
      `GET ${executionPath(JUMIO_DEMO_EXECUTIONS.passed)}/status`,
      `GET ${executionPath(JUMIO_DEMO_EXECUTIONS.passed)}`,
    ]);
    const [token, status, details] = server.requests;
    expect(token.headers.authorization).toBe(basic);
    expect(token.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(token.body).toEqual({ grant_type: 'client_credentials' });
    const cached = ctx.cache.get(jumioTokenCacheKey(ctx)) as JumioCachedToken;
    for (const request of [status, details]) {
      expect(request.headers.authorization).toBe(`Bearer ${cached.accessToken}`);
      expect(request.headers['user-agent']).toMatch(/^Toolgate\//);
    }
  });

  test('a REJECTED execution carries the decision label, risk score and failed checks', async () => {
    const input = { accountId: JUMIO_DEMO_ACCOUNT_ID, workflowExecutionId: JUMIO_DEMO_EXECUTIONS.rejected };
    const result = await getStatusAction.execute(input, context());
    expect(result.status).toBe('PROCESSED');
    expect(result.decision).toEqual({ type: 'REJECTED', label: 'DIGITAL_COPY', riskScore: 100 });
    expect(result.completedAt).toBe('2025-04-02T09:15:52.004Z');
    expect(result.checks).toContainEqual({ name: 'imageChecks', decision: 'REJECTED', label: 'DIGITAL_COPY' });
    expect(result.checks).toContainEqual({ name: 'extraction', decision: 'NOT_EXECUTED', label: 'PRECONDITION_NOT_FULFILLED' });
    expect(result.checks).toContainEqual({ name: 'similarity', decision: 'WARNING', label: 'NOT_POSSIBLE' });
  });

  test('an INITIATED execution has no decision yet and its details are not fetched', async () => {
    const input = { accountId: JUMIO_DEMO_ACCOUNT_ID, workflowExecutionId: JUMIO_DEMO_EXECUTIONS.initiated };
    const result = await getStatusAction.execute(input, context());
    expect(result).toEqual({
      accountId: JUMIO_DEMO_ACCOUNT_ID,
      workflowExecutionId: JUMIO_DEMO_EXECUTIONS.initiated,
      status: 'INITIATED',
      definitionKey: '10013',
      decision: null,
      completedAt: null,
      checks: [],
    });
    expect(retrievalRequests().map((r) => r.path)).toEqual([`${executionPath(JUMIO_DEMO_EXECUTIONS.initiated)}/status`]);
  });

  test('an unknown execution, or a known one under another account, is a 404', async () => {
    const unknown = await rejection(
      getStatusAction.execute({ accountId: JUMIO_DEMO_ACCOUNT_ID, workflowExecutionId: '00000000-0000-4000-8000-000000000000' }, context()),
    );
    expect(unknown).toBeInstanceOf(VendorHttpError);
    expect((unknown as VendorHttpError).status).toBe(404);

    const otherAccount = await rejection(
      getStatusAction.execute({ accountId: '11111111-1111-4111-8111-111111111111', workflowExecutionId: JUMIO_DEMO_EXECUTIONS.passed }, context()),
    );
    expect((otherAccount as VendorHttpError).status).toBe(404);
  });

  test('path parameters are URL-encoded', async () => {
    const error = await rejection(getStatusAction.execute({ accountId: 'a/../b', workflowExecutionId: 'x?y' }, context()));
    expect((error as VendorHttpError).status).toBe(404);
    expect(retrievalRequests()[0].path).toBe('/api/v1/accounts/a%2F..%2Fb/workflow-executions/x%3Fy/status');
  });

  test('a wrong client secret is a 401 from the token endpoint, and nothing is retrieved', async () => {
    const ctx = context({ credentials: { ...jumioDemoCredentials, clientSecret: 'wrong-secret' } });
    const input = { accountId: JUMIO_DEMO_ACCOUNT_ID, workflowExecutionId: JUMIO_DEMO_EXECUTIONS.passed };
    const error = await rejection(getStatusAction.execute(input, ctx));
    expect(error).toBeInstanceOf(VendorHttpError);
    expect((error as VendorHttpError).status).toBe(401);
    expect((error as Error).message).not.toContain('wrong-secret');
    expect(retrievalRequests()).toHaveLength(0);
    expect(ctx.cache.size).toBe(0);
  });

  test('the sandbox refuses retrieval without a valid bearer token', async () => {
    const url = `${server.urlFor('jumio')}${executionPath(JUMIO_DEMO_EXECUTIONS.passed)}/status`;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: 'Bearer not-issued' } })).status).toBe(401);
    const token = await fetch(`${server.urlFor('jumio')}/oauth2/token`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=password',
    });
    expect(token.status).toBe(400);
    expect(await token.json()).toEqual({ error: 'unsupported_grant_type' });
  });
});

describe('Jumio access tokens', () => {
  const input = { accountId: JUMIO_DEMO_ACCOUNT_ID, workflowExecutionId: JUMIO_DEMO_EXECUTIONS.initiated };

  test('one token serves two calls; an expired cache entry is exchanged again', async () => {
    const ctx = context();
    await getStatusAction.execute(input, ctx);
    await getStatusAction.execute(input, ctx);
    expect(tokenRequests()).toHaveLength(1);

    const key = jumioTokenCacheKey(ctx);
    const first = ctx.cache.get(key) as JumioCachedToken;
    expect(key).not.toContain(jumioDemoCredentials.clientSecret);
    expect(first.expiresAt - Date.now()).toBeGreaterThan(3_500_000);
    expect(first.refreshAt).toBe(first.expiresAt - 60_000);

    ctx.cache.set(key, { ...first, refreshAt: Date.now() - 1, expiresAt: Date.now() + 1000 });
    await getStatusAction.execute(input, ctx);
    expect(tokenRequests()).toHaveLength(2);
    const second = ctx.cache.get(key) as JumioCachedToken;
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(retrievalRequests().at(-1)?.headers.authorization).toBe(`Bearer ${second.accessToken}`);
  });

  test('tokens are cached per credential', async () => {
    const cache = new Map<string, unknown>();
    await getStatusAction.execute(input, context({ cache }));
    const other = context({ cache, credentials: { ...jumioDemoCredentials, clientSecret: 'wrong-secret' } });
    expect(((await rejection(getStatusAction.execute(input, other))) as VendorHttpError).status).toBe(401);
    expect(tokenRequests()).toHaveLength(2);
  });

  test('a short-lived token is refreshed before it expires (sandbox expires_in = 1)', async () => {
    const clock = new ManualClock();
    const shortLived = new SandboxServer([createJumioSandbox({ tokenExpiresIn: 1, clock })]);
    await shortLived.start();
    try {
      const ctx = context({ clock }, shortLived);
      await getStatusAction.execute(input, ctx);
      clock.advance(499);
      await getStatusAction.execute(input, ctx);
      expect(tokenRequests(shortLived.requests)).toHaveLength(1);
      // Refreshed at half the lifetime: 500 ms in, while the sandbox still accepts the token.
      clock.advance(1);
      await getStatusAction.execute(input, ctx);
      expect(tokenRequests(shortLived.requests)).toHaveLength(2);
    } finally {
      await shortLived.stop();
    }
  });

  test('a cached token Jumio no longer accepts is replaced once', async () => {
    const sandbox = createJumioSandbox();
    const revoking = new SandboxServer([sandbox]);
    await revoking.start();
    try {
      const ctx = context({}, revoking);
      await getStatusAction.execute(input, ctx);
      sandbox.revokeTokens();
      const result = await getStatusAction.execute(input, ctx);
      expect(result.status).toBe('INITIATED');
      expect(sandbox.tokensIssued()).toBe(2);
      expect(revoking.requests.map((r) => `${r.method} ${r.path.split('/').at(-1)}`)).toEqual([
        'POST token',
        'GET status',
        'GET status',
        'POST token',
        'GET status',
      ]);
    } finally {
      await revoking.stop();
    }
  });
});

describe('Jumio faults', () => {
  const input = { accountId: JUMIO_DEMO_ACCOUNT_ID, workflowExecutionId: JUMIO_DEMO_EXECUTIONS.passed };

  test('a 500 from the retrieval API is a VendorHttpError 500', async () => {
    server.injectFault('jumio', { kind: 'status', status: 500 }, { pathIncludes: '/workflow-executions/' });
    const error = await rejection(getStatusAction.execute(input, context()));
    expect(error).toBeInstanceOf(VendorHttpError);
    expect((error as VendorHttpError).status).toBe(500);
    expect((error as Error).message).not.toContain('vendor-internal-trace-xyz');
  });

  test('a 503 from the token endpoint is a VendorHttpError 503', async () => {
    server.injectFault('jumio', { kind: 'status', status: 503 }, { pathIncludes: '/oauth2/token' });
    const error = await rejection(getStatusAction.execute(input, context()));
    expect((error as VendorHttpError).status).toBe(503);
  });

  test('a rate limit with an HTTP-date Retry-After is a 429 with retryAfterMs ≈ 3000', async () => {
    server.injectFault('jumio', { kind: 'rate_limit', retryAfter: 'http_date', seconds: 3 }, { pathIncludes: '/status' });
    const error = await rejection(getStatusAction.execute(input, context()));
    expect(error).toBeInstanceOf(VendorHttpError);
    expect((error as VendorHttpError).status).toBe(429);
    const retryAfterMs = (error as VendorHttpError).retryAfterMs ?? -1;
    expect(Math.abs(retryAfterMs - 3000)).toBeLessThanOrEqual(1500);
  });

  test('malformed JSON is a VendorProtocolError', async () => {
    server.injectFault('jumio', { kind: 'malformed_json' }, { pathIncludes: '/workflow-executions/' });
    expect(await rejection(getStatusAction.execute(input, context()))).toBeInstanceOf(VendorProtocolError);
  });

  test('an unreadable token answer is a VendorProtocolError and nothing is cached', async () => {
    server.injectFault('jumio', { kind: 'malformed_json' }, { pathIncludes: '/oauth2/token' });
    const ctx = context();
    expect(await rejection(getStatusAction.execute(input, ctx))).toBeInstanceOf(VendorProtocolError);
    expect(ctx.cache.size).toBe(0);
  });
});

describe('jumioHandler', () => {
  test('declares its endpoints, credential and actions in line with the catalog', () => {
    expect(jumioHandler.vendor).toBe('jumio');
    expect(jumioHandler.credentialSpec).toEqual({ integrationType: 'jumio', required: ['clientId', 'clientSecret'] });
    expect(jumioHandler.endpoints.auth.env).toBe('JUMIO_AUTH_URL');
    expect(jumioHandler.endpoints.retrieval.env).toBe('JUMIO_RETRIEVAL_URL');
    expect(jumioHandler.endpoints.auth.production({})).toBe('https://auth.amer-1.jumio.ai');
    expect(jumioHandler.endpoints.retrieval.production({ datacenter: 'emea-1' })).toBe('https://retrieval.emea-1.jumio.ai');
    expect(() => jumioHandler.endpoints.auth.production({ datacenter: 'evil.example/x#' })).toThrow();

    for (const action of jumioHandler.actions) {
      const entry = TOOL_CATALOG.find((e) => e.toolName === action.toolName && e.action === action.action);
      expect(entry?.vendor).toBe('jumio');
      expect(action.idempotent).toBe(entry?.idempotent);
      expect(action.describeResult.length).toBeGreaterThan(20);
    }
  });
});
