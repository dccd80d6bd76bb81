import {
  Client,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  auth,
} from '@modelcontextprotocol/client';
import { SetFeatureFlagDocument } from '../../gql/graphql';
import { TOOL_CALLING_FLAG } from '../../src/orgs/feature-flag.entity';
import { setIdentityBinding } from '../../src/identity/identity-bindings';
import { newOrg, type TestOrg } from '../support/factories';
import { ManualClock } from '../support/clock';
import { signIn } from '../support/idp-login';
import { DEMO_BINDING, startSsoFlow, type SsoFlow } from '../support/sso';
import { ledgerOf } from '../approvals/approval-flow';
import { callState } from '../mcp/mcp-helpers';

/**
 * OAuth 2.1 at /mcp as an MCP client meets it: the MCP SDK's own OAuth support (discovery from
 * the 401's resource_metadata, dynamic registration, PKCE, the resource indicator) against the
 * development issuer and a real Toolgate; the agent acts as a person's principal, and every
 * token that is not for this resource, this scope, this org or this moment is refused with
 * the challenge that names the metadata.
 */
const REDIRECT = 'http://127.0.0.1:33418/callback';

/**
 * A person's MCP client, as the SDK wants it: it keeps what the SDK hands it, and "redirects"
 * to the issuer by signing the person in over HTTP, keeping the callback's parameters.
 */
class SignedInAgent implements OAuthClientProvider {
  readonly redirectUrl: string;
  readonly authorizationUrls: URL[] = [];
  callback: URLSearchParams | null = null;
  registered: StoredOAuthClientInformation | undefined;
  private saved: StoredOAuthTokens | undefined;
  private verifier = '';
  private discovery: OAuthDiscoveryState | undefined;
  validateResourceURL?: (serverUrl: string | URL, resource?: string) => Promise<URL | undefined>;

  constructor(
    private readonly login: string,
    options: {
      /** Another resource indicator than the metadata's (a token for another audience). */
      resource?: string;
      /** A client registered beforehand (no dynamic registration), with its redirect URI. */
      client?: { id: string; secret: string; redirectUri: string; issuer: string };
    } = {},
  ) {
    const { resource, client } = options;
    if (resource) this.validateResourceURL = async () => new URL(resource);
    this.redirectUrl = client?.redirectUri ?? REDIRECT;
    if (client) this.registered = { client_id: client.id, client_secret: client.secret, issuer: client.issuer };
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: `${this.login}'s agent`,
      redirect_uris: [this.redirectUrl],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    };
  }
  clientInformation() {
    return this.registered;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.registered = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  async redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url);
    const answer = await signIn(url, this.login);
    if (!answer.code) throw new Error(`the issuer refused ${this.login}: ${answer.error} ${answer.errorDescription}`);
    this.callback = answer.redirect.searchParams;
  }
  get accessToken(): string {
    if (!this.saved) throw new Error('no token yet');
    return this.saved.access_token;
  }
}

let flow: SsoFlow;
const clock = new ManualClock();
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  flow = await startSsoFlow({ app: { accessClock: clock } });
});
afterAll(async () => {
  for (const close of closers) await close().catch(() => undefined);
  await flow?.close();
});

const specialistUrl = () => new URL(`/mcp/specialists/${flow.specialistId}`, flow.publicUrl);
const metadataUrl = () => `${flow.publicUrl}/.well-known/oauth-protected-resource/mcp`;

/** The SDK client, OAuth through `provider`: the first connect redirects (a sign-in), finishAuth, then the real connect. */
async function connectWithOAuth(provider: SignedInAgent, url = specialistUrl()): Promise<Client> {
  const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
  const refused = await new Client({ name: 'oauth-test', version: '1.0.0' }).connect(first).then(
    () => null,
    (error: unknown) => error,
  );
  expect(refused).toBeInstanceOf(UnauthorizedError);
  expect(provider.callback?.get('code')).toEqual(expect.any(String));
  await first.finishAuth(provider.callback!);
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
  closers.push(() => client.close());
  return client;
}

/**
 * A token through the SDK's own `auth` (discovery, registration, PKCE). A token for another
 * scope or resource is asked for as the console (a registered client): the issuer registers
 * MCP clients for /mcp's scope only.
 */
async function tokenOf(login: string, options: { scope?: string; resource?: string } = {}): Promise<string> {
  const asConsole = options.scope !== undefined || options.resource !== undefined;
  const client = asConsole
    ? { id: flow.idp.clientId, secret: flow.idp.clientSecret, redirectUri: `${flow.publicUrl}/auth/callback`, issuer: flow.idp.issuer }
    : undefined;
  const provider = new SignedInAgent(login, { resource: options.resource, client });
  const serverUrl = specialistUrl();
  expect(await auth(provider, { serverUrl, scope: options.scope })).toBe('REDIRECT');
  const callback = provider.callback!;
  const code = callback.get('code')!;
  expect(await auth(provider, { serverUrl, scope: options.scope, authorizationCode: code, iss: callback.get('iss') ?? undefined })).toBe(
    'AUTHORIZED',
  );
  return provider.accessToken;
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** One raw POST (initialize unless told), with a bearer credential or none. */
async function post(path: string, credential?: string, body: unknown = INITIALIZE) {
  const response = await fetch(new URL(path, flow.publicUrl), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(credential ? { authorization: `Bearer ${credential}` } : {}),
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const json = response.headers.get('content-type')?.includes('application/json') ? (JSON.parse(text) as Record<string, unknown>) : null;
  return {
    status: response.status,
    challenge: response.headers.get('www-authenticate'),
    code: (json?.error as { data?: { code?: string } } | undefined)?.data?.code ?? null,
    text,
  };
}

const specialistPath = () => `/mcp/specialists/${flow.specialistId}`;

/** Every refusal names the metadata, so a client can start (or restart) its OAuth flow. */
const expectChallenge = (challenge: string | null) => {
  expect(challenge).toMatch(/^Bearer /);
  expect(challenge).toContain(`resource_metadata="${metadataUrl()}"`);
};

describe('an MCP client with the SDK’s OAuth', () => {
  let grace: SignedInAgent;
  let demoRunId: string;

  test('discovers, registers, signs the person in with PKCE and the resource, lists tools and calls one through the gateway', async () => {
    grace = new SignedInAgent('grace');
    const client = await connectWithOAuth(grace);

    // What the SDK asked the issuer for: the resource, the metadata's scope, PKCE.
    const [asked] = grace.authorizationUrls;
    expect(asked.origin).toBe(flow.idp.issuer);
    expect(asked.searchParams.get('resource')).toBe(`${flow.publicUrl}/mcp`);
    expect(asked.searchParams.get('scope')?.split(' ')).toContain('toolgate:agent');
    expect(asked.searchParams.get('code_challenge_method')).toBe('S256');
    expect(asked.searchParams.get('code_challenge')).toEqual(expect.any(String));
    expect(asked.searchParams.get('client_id')).toBe(grace.registered?.client_id);

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('order_lookup.lookup');
    const result = await client.callTool({ name: 'order_lookup.lookup', arguments: { orderId: '12345' } });
    expect(result.isError).toBeFalsy();
    const state = callState(result);
    expect(state.status).toBe('succeeded');

    // The gateway recorded the call, done by the person's OAuth principal.
    const [call] = await flow.app
      .em()
      .getConnection()
      .execute<{ run_id: string }[]>('select run_id from tool_calls where id = ?', [state.toolCallId]);
    demoRunId = call.run_id;
    const event = (await ledgerOf(flow.app, demoRunId)).find((e) => e.type === 'tool_call.requested' && e.resourceId === state.toolCallId);
    expect(event).toBeDefined();
    expect((event!.metadata.person as { subject?: string }).subject).toBe('person-grace');
    const [principal] = await flow.app
      .em()
      .getConnection()
      .execute<{ role: string; person_id: string | null; oauth_client: string | null; subject: string }[]>(
        'select k.role, k.person_id, k.oauth_client, p.subject from api_keys k join people p on p.id = k.person_id where k.id = ?',
        [event!.actorKeyId],
      );
    expect(principal).toMatchObject({ role: 'agent', oauth_client: grace.registered?.client_id, subject: 'person-grace' });
    expect(principal.person_id).toEqual(expect.any(String));
  });

  test('no token passthrough: nothing the vendor sandboxes received, nor the ledger, carries the access token', async () => {
    const token = grace.accessToken;
    const requests = flow.app.sandbox!.requests;
    expect(requests.length).toBeGreaterThan(0);
    for (const request of requests) expect(JSON.stringify(request)).not.toContain(token);
    const [{ n }] = await flow.app
      .em()
      .getConnection()
      .execute<{ n: number }[]>('select count(*)::int as n from ledger_events where metadata::text like ?', [`%${token.slice(-40)}%`]);
    expect(n).toBe(0);
  });

  test('an API key keeps working beside OAuth', async () => {
    const client = new Client({ name: 'key-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(specialistUrl(), { requestInit: { headers: { authorization: `Bearer ${flow.keys.agent}` } } }),
    );
    closers.push(() => client.close());
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('order_lookup.lookup');
  });

  describe('refusals carry the challenge that names the metadata', () => {
    test('no Authorization: 401', async () => {
      const answer = await post(specialistPath());
      expect([answer.status, answer.code]).toEqual([401, 'UNAUTHENTICATED']);
      expectChallenge(answer.challenge);
    });

    test('a token for another audience (/graphql): 401 invalid_token', async () => {
      const token = await tokenOf('grace', { resource: `${flow.publicUrl}/graphql`, scope: 'openid toolgate:api' });
      const answer = await post(specialistPath(), token);
      expect([answer.status, answer.code]).toEqual([401, 'UNAUTHENTICATED']);
      expectChallenge(answer.challenge);
      expect(answer.challenge).toContain('error="invalid_token"');
    });

    test('a token without the agent scope: 403 insufficient_scope', async () => {
      const token = await tokenOf('grace', { scope: 'openid toolgate:api' });
      const answer = await post(specialistPath(), token);
      expect([answer.status, answer.code]).toEqual([403, 'FORBIDDEN']);
      expectChallenge(answer.challenge);
      expect(answer.challenge).toContain('error="insufficient_scope"');
      expect(answer.challenge).toContain('scope="toolgate:agent"');
    });

    test('a person of a tenant no org is bound to: 403, and no scope is offered (none would help)', async () => {
      const token = await tokenOf('olivia');
      const answer = await post(specialistPath(), token);
      expect([answer.status, answer.code]).toEqual([403, 'FORBIDDEN']);
      expectChallenge(answer.challenge);
      expect(answer.challenge).not.toContain('insufficient_scope');
      expect(answer.challenge).toContain('error_description="No organization is bound');
    });

    test('a person whose groups map to no role gets no agent either, whatever the scope: 403', async () => {
      const token = await tokenOf('mallory');
      const answer = await post(specialistPath(), token);
      expect([answer.status, answer.code]).toEqual([403, 'FORBIDDEN']);
      expectChallenge(answer.challenge);
      expect(answer.challenge).not.toContain('insufficient_scope');
      expect(answer.challenge).toContain('error_description="This person has no role');
    });

    test('so the SDK client gives up at once: no step-up re-authorization, no refresh', async () => {
      const olivia = new SignedInAgent('olivia');
      const tokenRequests: string[] = [];
      const counting: typeof fetch = async (input, init) => {
        const url = new URL(input instanceof Request ? input.url : String(input));
        if (url.origin === flow.idp.issuer && url.pathname === '/token')
          tokenRequests.push(new URLSearchParams(String(init?.body)).get('grant_type') ?? '?');
        return fetch(input, init);
      };
      const first = new StreamableHTTPClientTransport(specialistUrl(), { authProvider: olivia, fetch: counting });
      await expect(new Client({ name: 'oauth-test', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
      await first.finishAuth(olivia.callback!);
      const second = new StreamableHTTPClientTransport(specialistUrl(), { authProvider: olivia, fetch: counting });
      const refused = await new Client({ name: 'oauth-test', version: '1.0.0' }).connect(second).then(
        () => null,
        (error: unknown) => error as Error,
      );
      expect(refused?.message).toContain('"code":"FORBIDDEN"');
      expect(refused?.message).toContain('No organization is bound to this identity');
      expect(olivia.authorizationUrls).toHaveLength(1);
      expect(tokenRequests).toEqual(['authorization_code']);
    });

    describe('another org bound to tenant globex', () => {
      let globex: TestOrg;
      beforeAll(async () => {
        globex = await newOrg(flow.app.em(), 'Globex');
        await setIdentityBinding(flow.app.em(), flow.app.services.identity.issuers, globex.org.id, null, {
          ...DEMO_BINDING,
          tenantValue: 'globex',
        });
        const flag = await flow.app.gql(SetFeatureFlagDocument, { key: globex.keys.admin, variables: { key: TOOL_CALLING_FLAG, enabled: true } });
        if (flag.body.errors) throw new Error(JSON.stringify(flag.body.errors));
      });

      test('olivia’s agent acts in globex, and cannot reach the demo org’s run or specialist', async () => {
        const olivia = new SignedInAgent('olivia');
        const own = await connectWithOAuth(olivia, new URL(`/mcp/specialists/${globex.specialist.id}`, flow.publicUrl));
        expect((await own.listTools()).tools).toEqual(expect.any(Array));

        const run = await post(`/mcp/runs/${demoRunId}`, olivia.accessToken);
        expect([run.status, run.code]).toEqual([404, 'NOT_FOUND']);
        const specialist = await post(specialistPath(), olivia.accessToken);
        expect([specialist.status, specialist.code]).toEqual([404, 'NOT_FOUND']);
      });

      test('an org whose agents need another scope: 403 insufficient_scope naming that scope', async () => {
        const bind = (agentScope: string) =>
          setIdentityBinding(flow.app.em(), flow.app.services.identity.issuers, globex.org.id, null, {
            ...DEMO_BINDING,
            tenantValue: 'globex',
            agentScope,
          });
        const token = await tokenOf('olivia');
        await bind('globex:agent');
        try {
          const answer = await post(`/mcp/specialists/${globex.specialist.id}`, token);
          expect([answer.status, answer.code]).toEqual([403, 'FORBIDDEN']);
          expectChallenge(answer.challenge);
          expect(answer.challenge).toContain('error="insufficient_scope"');
          expect(answer.challenge).toContain('scope="globex:agent"');
        } finally {
          await bind('toolgate:agent');
        }
      });
    });

    // Last: the clock moves past the tokens' expiry for the rest of the file.
    describe('on the access clock', () => {
      test('an expired token: 401 invalid_token', async () => {
        const token = grace.accessToken;
        expect((await post(specialistPath(), token)).status).toBe(200);
        const { exp } = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { exp: number };
        clock.advance(exp * 1000 - clock.now() + 1000);
        const answer = await post(specialistPath(), token);
        expect([answer.status, answer.code]).toEqual([401, 'UNAUTHENTICATED']);
        expectChallenge(answer.challenge);
        expect(answer.challenge).toContain('error="invalid_token"');
        expect(answer.challenge).toMatch(/error_description="[^"]*expired/);
      });
    });
  });
});

describe('protected resource metadata (RFC 9728)', () => {
  test.each(['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp'])('%s describes /mcp', async (path) => {
    const response = await fetch(new URL(path, flow.publicUrl));
    expect(response.status).toBe(200);
    const metadata = (await response.json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      resource: `${flow.publicUrl}/mcp`,
      authorization_servers: [flow.idp.issuer],
      bearer_methods_supported: ['header'],
    });
    expect(metadata.scopes_supported).toContain('toolgate:agent');
  });
});
