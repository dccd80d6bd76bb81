import { graphql } from '../gql';
import { ManualClock } from '../support/clock';
import { errorCode } from '../support/app';
import { DEMO_BINDING, startSsoFlow, type SsoFlow } from '../support/sso';
import { setIdentityBinding } from '../../src/identity/identity-bindings';
import { signIn } from '../support/idp-login';
import { waitingCall, ledgerOf } from '../approvals/approval-flow';
import { buildWebhookPayload } from '../../src/webhooks/webhook-payload';
import { ApprovalRequest } from '../../src/approvals/approval-request.entity';

const RESOLVE = graphql(`
  mutation PersonResolves($id: ID!, $decision: ApprovalDecision!, $reason: String) {
    resolveApproval(id: $id, decision: $decision, reason: $reason) {
      id
      status
      resolvedBy
      resolvedByName
      resolvedByPerson { issuer subject name }
    }
  }
`);

const WHO_AM_I = graphql(`
  query PersonViewer {
    viewer { role apiKeyId org { id } person { issuer subject name } }
  }
`);

/**
 * People sign in to the console through the org's OpenID Connect issuer (the development
 * issuer, in process) and resolve approvals; the ledger, the webhook payload and the API name
 * the person, and everything that is not the console's own request is refused.
 */
describe('single sign-on: people, not keys', () => {
  let flow: SsoFlow;
  const clock = new ManualClock();

  beforeAll(async () => {
    flow = await startSsoFlow({ app: { accessClock: clock } });
  });
  afterAll(async () => {
    await flow?.close();
  });

  test('an expert signs in through the issuer and the session says who they are', async () => {
    const grace = await flow.signInAs('grace');
    const session = await (await fetch(`${flow.publicUrl}/auth/session`, { headers: { cookie: grace.cookie } })).json();
    expect(session).toMatchObject({
      person: { name: 'Grace Expert', email: 'grace@acme.test', issuer: flow.idp.issuer, subject: 'person-grace' },
      org: { id: flow.orgId, slug: 'demo' },
      role: 'expert',
      issuer: 'dev',
    });
    const viewer = await flow.gqlAs(grace, WHO_AM_I);
    expect(viewer.body.data?.viewer).toMatchObject({
      role: 'expert',
      org: { id: flow.orgId },
      person: { subject: 'person-grace', name: 'Grace Expert' },
    });
  });

  test('a person approves: the approval, the ledger and the webhook name them', async () => {
    const grace = await flow.signInAs('grace');
    const { runId, approvalId } = await waitingCall(flow, 'expert');
    const res = await flow.gqlAs(grace, RESOLVE, { variables: { id: approvalId, decision: 'APPROVE', reason: 'checked the order' } });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data?.resolveApproval).toMatchObject({
      status: 'approved',
      resolvedByName: 'Grace Expert',
      resolvedByPerson: { issuer: flow.idp.issuer, subject: 'person-grace', name: 'Grace Expert' },
    });
    const approved = (await ledgerOf(flow.app, runId)).find((e) => e.type === 'tool_call.approved')!;
    expect(approved.actorRole).toBe('expert');
    expect(approved.actorKeyId).toBe(res.body.data!.resolveApproval.resolvedBy);
    expect(approved.metadata.person).toEqual({ issuer: flow.idp.issuer, subject: 'person-grace', name: 'Grace Expert' });
    const payload = await buildWebhookPayload(flow.app.em(), 'approval.resolved', approved.id);
    expect(payload.data.resolvedBy).toEqual({
      type: 'person',
      issuer: flow.idp.issuer,
      subject: 'person-grace',
      name: 'Grace Expert',
      role: 'expert',
    });
  });

  test("an admin's changes — policy, permission, flag, keys — name the admin in the ledger", async () => {
    const ada = await flow.signInAs('ada');
    const ask = async (query: string, variables: Record<string, unknown> = {}) => {
      const res = await flow.app.gql(query, { variables, headers: ada.headers() });
      expect(res.body.errors).toBeUndefined();
      return res.body.data!;
    };
    await ask('mutation { setFeatureFlag(key: "tool_calling_enabled", enabled: true) { key } }');
    await ask('mutation { setToolPermission(toolName: "invoice", action: "send", enabled: true) { enabled } }');
    await ask('mutation($input: PolicyRuleInput!) { upsertPolicyRule(input: $input) { id } }', {
      input: { name: 'Ada rule', position: 90, toolPattern: 'order', actionPattern: 'lookup', risk: 'low', decision: 'allow' },
    });
    const created = await ask('mutation { createApiKey(role: agent, name: "ada bot") { apiKey { id } } }');
    await ask('mutation($id: ID!) { revokeApiKey(id: $id) { id } }', { id: created.createApiKey.apiKey.id });
    const events = await flow.app
      .em()
      .execute<{ type: string; person: unknown }[]>(
        "select type, metadata->'person' as person from ledger_events where org_id = ? and type in ('feature_flag.changed', 'permission.changed', 'policy.changed', 'api_key.created', 'api_key.revoked') order by sequence desc limit 5",
        [flow.orgId],
      );
    expect(events.map((e) => e.type).sort()).toEqual([
      'api_key.created',
      'api_key.revoked',
      'feature_flag.changed',
      'permission.changed',
      'policy.changed',
    ]);
    for (const event of events) expect(event.person).toEqual({ issuer: flow.idp.issuer, subject: 'person-ada', name: 'Ada Admin' });
  });

  test('an org that records no names: the ledger and the webhook keep issuer and subject only', async () => {
    await setIdentityBinding(flow.app.em(), flow.app.services.identity.issuers, flow.orgId, null, { ...DEMO_BINDING, recordNames: false });
    try {
      const grace = await flow.signInAs('grace');
      const { runId, approvalId } = await waitingCall(flow, 'expert');
      const res = await flow.gqlAs(grace, RESOLVE, { variables: { id: approvalId, decision: 'APPROVE' } });
      expect(res.body.data?.resolveApproval.status).toBe('approved');
      const approved = (await ledgerOf(flow.app, runId)).find((e) => e.type === 'tool_call.approved')!;
      expect(approved.metadata.person).toEqual({ issuer: flow.idp.issuer, subject: 'person-grace' });
      const payload = await buildWebhookPayload(flow.app.em(), 'approval.resolved', approved.id);
      expect(payload.data.resolvedBy).toEqual({ type: 'person', issuer: flow.idp.issuer, subject: 'person-grace', role: 'expert' });
    } finally {
      await setIdentityBinding(flow.app.em(), flow.app.services.identity.issuers, flow.orgId, null, DEMO_BINDING);
    }
  });

  test('a key-made decision keeps naming the key', async () => {
    const { runId, approvalId } = await waitingCall(flow, 'expert');
    const res = await flow.app.gql(RESOLVE, { key: flow.keys.expert, variables: { id: approvalId, decision: 'REJECT' } });
    expect(res.body.data?.resolveApproval).toMatchObject({ status: 'rejected', resolvedByPerson: null, resolvedBy: flow.keyIds.expert });
    const rejected = (await ledgerOf(flow.app, runId)).find((e) => e.type === 'tool_call.rejected')!;
    expect(rejected.metadata.person).toBeUndefined();
    const payload = await buildWebhookPayload(flow.app.em(), 'approval.resolved', rejected.id);
    expect(payload.data.resolvedBy).toMatchObject({ type: 'key', keyId: flow.keyIds.expert, role: 'expert' });
  });

  test('two people resolving one approval at once: one wins, the other is told it is resolved', async () => {
    const [grace, edsger] = await Promise.all([flow.signInAs('grace'), flow.signInAs('edsger')]);
    const { approvalId } = await waitingCall(flow, 'expert');
    const answers = await Promise.all([grace, edsger].map((who) => flow.gqlAs(who, RESOLVE, { variables: { id: approvalId, decision: 'APPROVE' } })));
    const won = answers.filter((a) => a.body.data?.resolveApproval);
    expect(won).toHaveLength(1);
    expect(answers.map(errorCode).filter(Boolean)).toEqual(['APPROVAL_ALREADY_RESOLVED']);
    const row = await flow.app.em().findOneOrFail(ApprovalRequest, { id: approvalId });
    expect(row.resolvedBy).toBe(won[0].body.data!.resolveApproval.resolvedBy);
  });

  test('a person whose groups map to no role is refused (403), and so is one of another tenant', async () => {
    for (const login of ['mallory', 'olivia']) {
      const back = await flow.attemptSignIn(login);
      expect(back.status).toBe(403);
      expect(back.headers.get('set-cookie') ?? '').not.toContain('toolgate_session');
      expect(await back.text()).toContain('FORBIDDEN');
    }
  });

  test('an org without single sign-on, or none by that name, is not found', async () => {
    const back = await fetch(`${flow.publicUrl}/auth/login?org=no-such-org`, { redirect: 'manual' });
    expect(back.status).toBe(404);
  });

  test('a cross-site POST with the session cookie is refused and changes nothing (CSRF)', async () => {
    const grace = await flow.signInAs('grace');
    const { approvalId } = await waitingCall(flow, 'expert');
    const variables = { id: approvalId, decision: 'APPROVE' as const };
    // The cookie alone, as a browser would attach it to a forged request: no CSRF token.
    const bare = await flow.app.gql(RESOLVE, { variables, headers: { cookie: grace.cookie } });
    // The token too (say it leaked), from another site's page.
    const elsewhere = await flow.gqlAs(grace, RESOLVE, { variables, headers: { origin: 'https://evil.example' } });
    for (const refused of [bare, elsewhere]) expect([refused.status, errorCode(refused)]).toEqual([403, 'CSRF_REFUSED']);
    const row = await flow.app.em().findOneOrFail(ApprovalRequest, { id: approvalId });
    expect(row.status).toBe('pending');
  });

  test('a sign-in answered twice, or in another browser, is refused', async () => {
    const start = await fetch(`${flow.publicUrl}/auth/login?org=demo`, { redirect: 'manual' });
    const answer = await signIn(start.headers.get('location')!, 'grace');
    // Another browser: no login cookie.
    const stolen = await fetch(answer.redirect, { redirect: 'manual' });
    expect(stolen.status).toBe(400);
    expect(await stolen.text()).toContain('SIGN_IN_FAILED');
    // The state is spent: the rightful browser cannot replay it either.
    const browser = start.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const replay = await fetch(answer.redirect, { redirect: 'manual', headers: { cookie: browser } });
    expect(replay.status).toBe(400);
  });

  test('sign-out ends the session; the logout URL is the issuer’s', async () => {
    const grace = await flow.signInAs('grace');
    const refused = await fetch(`${flow.publicUrl}/auth/logout`, { method: 'POST', headers: { cookie: grace.cookie } });
    expect(refused.status).toBe(403);
    const out = await fetch(`${flow.publicUrl}/auth/logout`, { method: 'POST', headers: grace.headers() });
    const body = (await out.json()) as { logoutUrl: string };
    expect(out.status).toBe(200);
    expect(new URL(body.logoutUrl).origin).toBe(new URL(flow.idp.issuer).origin);
    expect(new URL(body.logoutUrl).searchParams.get('post_logout_redirect_uri')).toBe(`${flow.publicUrl}/console/`);
    const after = await flow.gqlAs(grace, WHO_AM_I);
    expect([after.status, errorCode(after)]).toEqual([401, 'UNAUTHENTICATED']);
  });

  test('a session expires on the clock', async () => {
    const grace = await flow.signInAs('grace');
    clock.advance(flow.app.config.identity.sessionTtlSeconds * 1000 + 1);
    const after = await flow.gqlAs(grace, WHO_AM_I);
    expect([after.status, errorCode(after)]).toEqual([401, 'UNAUTHENTICATED']);
  });
});
