import { ManualClock } from '../support/clock';
import { errorCode } from '../support/app';
import { socket, runOverSocket } from '../support/graphql-http';
import { startSsoFlow, type SsoFlow } from '../support/sso';
import { signIn } from '../support/idp-login';
import { newOrg } from '../support/factories';
import { loadOpenIdClient } from '../../src/identity/issuers';

/**
 * People outside the console: a script with the provider's access token at /graphql, a
 * console session on graphql-ws (cookie on the upgrade, CSRF token in the connection
 * parameters), and an admin setting the org's binding with refusals that change nothing.
 */
describe('people: access tokens, websockets, bindings', () => {
  let flow: SsoFlow;
  const clock = new ManualClock();

  beforeAll(async () => {
    flow = await startSsoFlow({ app: { accessClock: clock } });
  });
  afterAll(async () => {
    await flow?.close();
  });

  /** A person's access token for one of Toolgate's resources, through the console client's code flow. */
  async function accessToken(login: string, resource: string): Promise<string> {
    const oidc = await loadOpenIdClient();
    const config = await oidc.discovery(new URL(flow.idp.issuer), flow.idp.clientId, flow.idp.clientSecret, undefined, {
      execute: [oidc.allowInsecureRequests],
    });
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: `${flow.publicUrl}/auth/callback`,
      scope: 'openid profile email',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      resource,
    });
    const answer = await signIn(url, login);
    const tokens = await oidc.authorizationCodeGrant(config, answer.redirect, { pkceCodeVerifier: verifier, expectedState: state }, { resource });
    return tokens.access_token;
  }

  const viewer = (token: string, headers: Record<string, string> = {}) =>
    flow.app.gql('{ viewer { role org { id } person { subject name } } }', { key: token, headers });

  test('a person calls /graphql with an access token for it: their org, role and name', async () => {
    const token = await accessToken('grace', `${flow.publicUrl}/graphql`);
    const res = await viewer(token);
    expect(res.body.data?.viewer).toEqual({ role: 'expert', org: { id: flow.orgId }, person: { subject: 'person-grace', name: 'Grace Expert' } });
  });

  test('a token for another resource, an expired one, and a person without a role are refused, with the metadata pointer', async () => {
    const metadata = `resource_metadata="${flow.publicUrl}/.well-known/oauth-protected-resource/graphql"`;
    const forMcp = await viewer(await accessToken('grace', `${flow.publicUrl}/mcp`));
    expect([forMcp.status, errorCode(forMcp)]).toEqual([401, 'UNAUTHENTICATED']);
    expect(forMcp.headers.get('www-authenticate')).toContain(metadata);
    expect(forMcp.headers.get('www-authenticate')).toContain('error="invalid_token"');

    const nobody = await viewer(await accessToken('mallory', `${flow.publicUrl}/graphql`));
    expect([nobody.status, errorCode(nobody)]).toEqual([403, 'FORBIDDEN']);
    expect(nobody.headers.get('www-authenticate')).toContain(metadata);
    expect(nobody.headers.get('www-authenticate')).not.toContain('error=');

    const stranger = await viewer(await accessToken('olivia', `${flow.publicUrl}/graphql`));
    expect([stranger.status, errorCode(stranger)]).toEqual([403, 'FORBIDDEN']);
  });

  test('a role the person does not have cannot be asked for', async () => {
    const token = await accessToken('grace', `${flow.publicUrl}/graphql`);
    const asAdmin = await viewer(token, { 'x-toolgate-role': 'admin' });
    expect([asAdmin.status, errorCode(asAdmin)]).toEqual([403, 'FORBIDDEN']);
  });

  test('a console session on graphql-ws: needs its CSRF token, and closes at sign-out', async () => {
    const grace = await flow.signInAs('grace');
    const query = { query: '{ viewer { role person { subject } } }' };
    const bare = socket(flow.app.wsUrl, null, { headers: { cookie: grace.cookie } });
    try {
      const refused = await runOverSocket(bare.client, query);
      expect(refused.kind).toBe('closed');
      expect((await bare.closed).code).toBe(4403);
    } finally {
      await bare.close();
    }
    const live = socket(flow.app.wsUrl, null, { headers: { cookie: grace.cookie }, connectionParams: { csrfToken: grace.csrfToken } });
    try {
      const answered = await runOverSocket(live.client, query);
      expect(answered.kind === 'result' && answered.result.data).toEqual({ viewer: { role: 'expert', person: { subject: 'person-grace' } } });
      // A live subscription holds the socket open; sign-out must close it (4403) on every node.
      const outcome = runOverSocket(live.client, { query: 'subscription { approvalRequests { sequence } }' }, 10_000);
      // Polls for the subscriber the server has registered (no timed wait).
      while (flow.app.fanout.liveLedgerMembers() < 1) await new Promise((resolve) => setTimeout(resolve, 5));
      const out = await fetch(`${flow.publicUrl}/auth/logout`, { method: 'POST', headers: grace.headers() });
      expect(out.status).toBe(200);
      expect(await outcome).toMatchObject({ kind: 'closed', code: 4403 });
    } finally {
      await live.close();
    }
  });

  test("the org's binding: set by an admin, refused input changes nothing, another org cannot take the same tenant", async () => {
    const set = (key: string, input: Record<string, unknown>) =>
      flow.app.gql(
        'mutation($input: IdentityBindingInput!) { setIdentityBinding(input: $input) { issuerName issuer tenantValue expert agentScope } }',
        {
          key,
          variables: { input },
        },
      );
    const before = await flow.app.gql('{ identityBinding { issuerName tenantValue expert } }', { key: flow.keys.admin });
    for (const [input, field] of [
      [{ issuerName: 'nope', expert: ['x'] }, 'issuerName'],
      [{ issuerName: 'dev', tenantClaim: 'tenant' }, 'tenantValue'],
      [{ issuerName: 'dev', roleClaim: 'has space' }, 'roleClaim'],
      [{ issuerName: 'dev', expert: [''] }, 'roleMap.expert'],
      [{ issuerName: 'dev', agentScope: 'two words' }, 'agentScope'],
    ] as const) {
      const res = await set(flow.keys.admin, input);
      expect([errorCode(res), res.body.errors?.[0]?.extensions?.field]).toEqual(['BAD_USER_INPUT', field]);
    }
    expect((await set(flow.keys.expert, { issuerName: 'dev' })).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const after = await flow.app.gql('{ identityBinding { issuerName tenantValue expert } }', { key: flow.keys.admin });
    expect(after.body.data).toEqual(before.body.data);
    expect(after.body.data?.identityBinding).toEqual({ issuerName: 'dev', tenantValue: 'acme', expert: ['toolgate-experts'] });

    // A second org on the same issuer: the same tenant, or no tenant at all, would be ambiguous.
    const other = await newOrg(flow.app.em());
    for (const input of [
      { issuerName: 'dev', tenantClaim: 'tenant', tenantValue: 'acme', expert: ['toolgate-experts'] },
      { issuerName: 'dev', expert: ['toolgate-experts'] },
      // Another claim that also matches acme's people would leave them in no org.
      { issuerName: 'dev', tenantClaim: 'email', tenantValue: 'grace@acme.test', expert: ['toolgate-experts'] },
    ]) {
      expect(errorCode(await set(other.keys.admin, input))).toBe('CONFLICT');
    }
    const globex = await set(other.keys.admin, { issuerName: 'dev', tenantClaim: 'tenant', tenantValue: 'globex', expert: ['toolgate-experts'] });
    expect(globex.body.data?.setIdentityBinding).toEqual({
      issuerName: 'dev',
      issuer: flow.idp.issuer,
      tenantValue: 'globex',
      expert: ['toolgate-experts'],
      agentScope: null,
    });
    // Olivia (tenant globex) now lands in that org, never in the demo org.
    const token = await accessToken('olivia', `${flow.publicUrl}/graphql`);
    expect((await viewer(token)).body.data?.viewer).toMatchObject({ role: 'expert', org: { id: other.org.id } });
  });

  // Last: the access clock moves past every token's expiry.
  test('an expired access token is refused with the metadata pointer', async () => {
    const token = await accessToken('grace', `${flow.publicUrl}/graphql`);
    expect((await viewer(token)).status).toBe(200);
    clock.advance(3_600_000);
    const expired = await viewer(token);
    expect([expired.status, errorCode(expired)]).toEqual([401, 'UNAUTHENTICATED']);
    expect(expired.body.errors?.[0]?.message).toContain('expired');
    expect(expired.headers.get('www-authenticate')).toContain(`resource_metadata="${flow.publicUrl}/.well-known/oauth-protected-resource/graphql"`);
  });
});
