import { DEMO_PEOPLE, type DevIdp, startDevIdp } from '../../src/identity/dev-idp';
import { IdpCookies, signIn } from '../support/idp-login';
import { childEnv, freePort, killChildren, spawnCli, waitFor, withTimeout } from '../support/processes';

/**
 * The development issuer as Toolgate meets it: discovery, the console's code + PKCE flow with
 * openid-client, a self-registered MCP client's JWT for /mcp checked with jose, a refused
 * login, RP-initiated logout, and nothing on the console but oidc-provider's own warning.
 */
// openid-client is ESM only: its types come with resolution-mode (TS1541), the module by a dynamic import.
type OpenIdClient = typeof import('openid-client', { with: { 'resolution-mode': 'import' }});
type ClientConfiguration = import('openid-client', { with: { 'resolution-mode': 'import' }}).Configuration;

const TOOLGATE = 'http://localhost:4999';
const MCP = `${TOOLGATE}/mcp`;

let idp: DevIdp;
let oidc: OpenIdClient;
let consoleOutput: jest.SpyInstance[];

beforeAll(async () => {
  consoleOutput = (['log', 'info', 'warn', 'error'] as const).map((level) => jest.spyOn(console, level).mockImplementation(() => undefined));
  oidc = await import('openid-client');
  idp = await startDevIdp({ toolgateUrl: `${TOOLGATE}/`, port: 0, clientSecret: 'console-secret', accessTokenTtlSeconds: 300 });
});

afterAll(async () => {
  await idp?.close();
  for (const spy of consoleOutput) spy.mockRestore();
});

async function consoleClient(): Promise<ClientConfiguration> {
  return oidc.discovery(new URL(idp.issuer), idp.clientId, idp.clientSecret, oidc.ClientSecretBasic(idp.clientSecret), {
    execute: [oidc.allowInsecureRequests],
  });
}

/** The console's authorization request, as Toolgate's relying party builds it. */
async function consoleAuthorization(config: ClientConfiguration, extra: Record<string, string> = {}) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: `${TOOLGATE}/auth/callback`,
    scope: 'openid profile email',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...extra,
  });
  return { url, checks: { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce } };
}

describe('the development issuer', () => {
  test('discovery: the bound address, PKCE S256, registration, end session, resource indicators', async () => {
    expect(idp.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(idp.issuer).not.toMatch(/:0$/);
    const response = await fetch(`${idp.issuer}/.well-known/openid-configuration`);
    expect(response.status).toBe(200);
    const metadata = (await response.json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: idp.issuer,
      code_challenge_methods_supported: ['S256'],
      registration_endpoint: `${idp.issuer}/reg`,
      end_session_endpoint: `${idp.issuer}/session/end`,
      authorization_response_iss_parameter_supported: true,
    });
    expect(metadata.claims_supported).toEqual(expect.arrayContaining(['sub', 'name', 'email', 'groups', 'tenant']));
    expect(idp.people.map((p) => p.login)).toEqual(['ada', 'grace', 'edsger', 'claude', 'mallory', 'olivia']);
  });

  test('the console signs Ada in with code + PKCE: no consent page, the ID token maps her', async () => {
    const config = await consoleClient();
    const { url, checks } = await consoleAuthorization(config);
    const signedIn = await signIn(url, 'ada');
    expect(signedIn).toMatchObject({ error: null, state: checks.expectedState, prompts: ['login'] });
    expect(signedIn.redirect.origin + signedIn.redirect.pathname).toBe(`${TOOLGATE}/auth/callback`);

    const tokens = await oidc.authorizationCodeGrant(config, signedIn.redirect, checks);
    expect(tokens.claims()).toMatchObject({
      iss: idp.issuer,
      aud: 'toolgate-console',
      sub: 'person-ada',
      name: 'Ada Admin',
      email: 'ada@acme.test',
      groups: ['toolgate-admins'],
      tenant: 'acme',
    });
    // No resource named: the access token is the opaque one for userinfo, not a JWT for Toolgate.
    expect(tokens.access_token.split('.')).toHaveLength(1);
    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, 'person-ada');
    expect(userinfo).toEqual({ sub: 'person-ada', name: 'Ada Admin', email: 'ada@acme.test', groups: ['toolgate-admins'], tenant: 'acme' });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).toEqual(expect.any(String));
  });

  test('a self-registered public MCP client gets a JWT for /mcp: audience, scope, and the person', async () => {
    const jose = await import('jose');
    const redirectUri = 'http://127.0.0.1:33418/callback';
    const registered = await oidc.dynamicClientRegistration(
      new URL(idp.issuer),
      {
        redirect_uris: [redirectUri],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        client_name: 'an MCP client',
      },
      oidc.None(),
      { execute: [oidc.allowInsecureRequests] },
    );
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(registered, {
      redirect_uri: redirectUri,
      scope: 'toolgate:agent',
      resource: MCP,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    const signedIn = await signIn(url, 'grace');
    expect(signedIn).toMatchObject({ error: null, prompts: ['login', 'consent'] });
    const tokens = await oidc.authorizationCodeGrant(
      registered,
      signedIn.redirect,
      { pkceCodeVerifier: verifier, expectedState: state },
      { resource: MCP },
    );
    expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'toolgate:agent', expires_in: 300 });

    const metadata = registered.serverMetadata();
    const keys = jose.createRemoteJWKSet(new URL(metadata.jwks_uri!));
    const { payload, protectedHeader } = await jose.jwtVerify(tokens.access_token, keys, { issuer: idp.issuer, audience: MCP });
    expect(protectedHeader).toMatchObject({ alg: 'RS256', typ: 'at+jwt' });
    expect(payload).toMatchObject({
      sub: 'person-grace',
      aud: MCP,
      scope: 'toolgate:agent',
      client_id: registered.clientMetadata().client_id,
      name: 'Grace Expert',
      email: 'grace@acme.test',
      groups: ['toolgate-experts'],
      tenant: 'acme',
    });
    expect(payload.exp! - payload.iat!).toBe(300);

    // Refreshed: a new JWT for the same resource and scope.
    const refreshed = await oidc.refreshTokenGrant(registered, tokens.refresh_token!, { resource: MCP });
    const again = await jose.jwtVerify(refreshed.access_token, keys, { issuer: idp.issuer, audience: MCP });
    expect(again.payload).toMatchObject({ sub: 'person-grace', scope: 'toolgate:agent', tenant: 'acme' });
  });

  test('the console may ask for a JWT for /graphql instead (scope toolgate:api, still the ID token)', async () => {
    const jose = await import('jose');
    const config = await consoleClient();
    const graphql = `${TOOLGATE}/graphql`;
    const { url, checks } = await consoleAuthorization(config, { resource: graphql, scope: 'openid profile email toolgate:api' });
    const signedIn = await signIn(url, 'claude');
    expect(signedIn.prompts).toEqual(['login']);
    // The resource named in the authorization request is enough at the token endpoint.
    const tokens = await oidc.authorizationCodeGrant(config, signedIn.redirect, checks);
    expect(tokens.claims()).toMatchObject({ sub: 'person-claude', groups: ['toolgate-clients'] });
    const keys = jose.createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!));
    const { payload } = await jose.jwtVerify(tokens.access_token, keys, { issuer: idp.issuer, audience: graphql });
    expect(payload).toMatchObject({ sub: 'person-claude', scope: 'toolgate:api', groups: ['toolgate-clients'], tenant: 'acme' });
    await expect(jose.jwtVerify(tokens.access_token, keys, { issuer: idp.issuer, audience: MCP })).rejects.toThrow(/aud/);
  });

  test('PKCE is required of the confidential console too', async () => {
    const config = await consoleClient();
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: `${TOOLGATE}/auth/callback`, scope: 'openid', state: 'no-pkce' });
    const refused = await signIn(url, 'ada');
    expect(refused).toMatchObject({ error: 'invalid_request', code: null, prompts: [] });
    expect(refused.errorDescription).toContain('PKCE');
  });

  test('asking /mcp for none of its scopes: refused without openid; with openid, a JWT for /mcp with no scope (so Toolgate must check it)', async () => {
    const jose = await import('jose');
    const config = await consoleClient();
    // No nonce: without openid it is an invalid_request before any login.
    const bare = await consoleAuthorization(config, { resource: MCP, scope: 'toolgate:api', nonce: '' });
    expect(await signIn(bare.url, 'ada')).toMatchObject({ error: 'access_denied', code: null, prompts: ['login'] });

    const { url, checks } = await consoleAuthorization(config, { resource: MCP, scope: 'openid toolgate:api' });
    const tokens = await oidc.authorizationCodeGrant(config, (await signIn(url, 'ada')).redirect, checks);
    const { payload } = await jose.jwtVerify(tokens.access_token, jose.createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!)), {
      issuer: idp.issuer,
      audience: MCP,
    });
    expect(payload.sub).toBe('person-ada');
    expect(payload.scope).toBeUndefined();
  });

  test("a resource that is not one of Toolgate's is refused (invalid_target)", async () => {
    const config = await consoleClient();
    const { url } = await consoleAuthorization(config, { resource: 'https://elsewhere.example/api' });
    const refused = await signIn(url, 'ada');
    expect(refused.error).toBe('invalid_target');
    expect(refused.code).toBeNull();
  });

  test('an unknown login is refused: access_denied back to the client, no code', async () => {
    const config = await consoleClient();
    const { url, checks } = await consoleAuthorization(config);
    const refused = await signIn(url, 'eve');
    expect(refused).toMatchObject({ code: null, error: 'access_denied', state: checks.expectedState, prompts: ['login'] });
    expect(refused.errorDescription).toContain('"eve"');
    // A sub is not a login either.
    expect((await signIn((await consoleAuthorization(config)).url, 'person-ada')).error).toBe('access_denied');
  });

  test('RP-initiated logout ends the session and returns to the console', async () => {
    const config = await consoleClient();
    const cookies = new IdpCookies();
    const first = await consoleAuthorization(config);
    const tokens = await oidc.authorizationCodeGrant(config, (await signIn(first.url, 'edsger', { cookies })).redirect, first.checks);
    // Signed in at the issuer: the next authorization needs no login form.
    expect((await signIn((await consoleAuthorization(config)).url, 'edsger', { cookies })).prompts).toEqual([]);

    const endSession = oidc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: `${TOOLGATE}/console/` });
    const page = await fetch(endSession, { headers: { cookie: cookies.header(endSession) } });
    cookies.take(page);
    const html = await page.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)![1];
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)![1];
    const confirm = new URL(action, endSession);
    const confirmed = await fetch(confirm, {
      method: 'POST',
      headers: { cookie: cookies.header(confirm), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ xsrf, logout: 'yes' }).toString(),
      redirect: 'manual',
    });
    cookies.take(confirmed);
    expect(confirmed.headers.get('location')).toBe(`${TOOLGATE}/console/`);
    // Signed out: the login form shows again.
    expect((await signIn((await consoleAuthorization(config)).url, 'edsger', { cookies })).prompts).toEqual(['login']);
  });

  test("the only console output is oidc-provider's warning about its development interactions", () => {
    const lines = consoleOutput.flatMap((spy) => spy.mock.calls.map((call) => String(call[0])));
    expect(lines).toEqual([expect.stringContaining('devInteractions is enabled')]);
  });
});

test('DEMO_PEOPLE: stable subs, emails by tenant', () => {
  expect(DEMO_PEOPLE.map((p) => [p.sub, p.email, p.groups.join(), p.tenant])).toEqual([
    ['person-ada', 'ada@acme.test', 'toolgate-admins', 'acme'],
    ['person-grace', 'grace@acme.test', 'toolgate-experts', 'acme'],
    ['person-edsger', 'edsger@acme.test', 'toolgate-experts', 'acme'],
    ['person-claude', 'claude@acme.test', 'toolgate-clients', 'acme'],
    ['person-mallory', 'mallory@acme.test', 'visitors', 'acme'],
    ['person-olivia', 'olivia@globex.test', 'toolgate-experts', 'globex'],
  ]);
});

describe('toolgate dev-idp (the compiled CLI, no database)', () => {
  afterAll(async () => {
    await killChildren();
  });

  test('prints the issuer, the people and the OIDC_ISSUERS setting; serves until SIGTERM, then exits 0', async () => {
    const port = await freePort();
    const issuer = `http://127.0.0.1:${port}`;
    const env = childEnv({ PUBLIC_URL: TOOLGATE, DEV_IDP_CLIENT_SECRET: 'kept-secret', DATABASE_URL: undefined, MASTER_ENCRYPTION_KEY: undefined });
    const running = spawnCli(['dev-idp', '--port', String(port)], env);
    await waitFor('the how-to', async () => (running.stdout().includes('Ctrl-C') ? true : undefined), 20_000, running);

    const out = running.stdout();
    expect(out).toContain(`Development identity provider (OpenID Connect) at ${issuer}\n`);
    expect(out).toContain('  ada      Ada Admin        toolgate-admins   acme\n');
    expect(out).toContain('  olivia   Olivia Expert    toolgate-experts  globex\n');
    expect(out).toContain(`   OIDC_ISSUERS='[{"name":"dev","issuer":"${issuer}","clientId":"toolgate-console","clientSecret":"kept-secret"}]'\n`);
    expect(out).not.toContain('new at every start');
    expect(out).toContain('toolgate identity bind --org <org> --issuer dev --tenant-claim tenant --tenant acme --role admin=toolgate-admins');
    expect(out).toContain(`resource=${MCP} (scope toolgate:agent)`);
    const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as { issuer: string };
    expect(discovery.issuer).toBe(issuer);

    running.child.kill('SIGTERM');
    const exited = await withTimeout(running.exited, 10_000, () => `did not exit on SIGTERM\nstderr: ${running.stderr()}`);
    expect({ code: exited.code, signal: exited.signal }).toEqual({ code: 0, signal: null });
    expect(exited.stderr.trim().split('\n')).toEqual([expect.stringContaining('devInteractions is enabled')]);
    await expect(fetch(`${issuer}/.well-known/openid-configuration`)).rejects.toThrow();
  });

  test('a --toolgate-url that is not http(s) is a usage error (exit 2)', async () => {
    const bad = spawnCli(['dev-idp', '--port', '0', '--toolgate-url', 'localhost:4000'], childEnv({}));
    const result = await withTimeout(bad.exited, 20_000, () => 'toolgate dev-idp did not exit');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--toolgate-url must be an http(s) URL');
  });
});
