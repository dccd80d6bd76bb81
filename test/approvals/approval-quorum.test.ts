import { ManualClock } from '../support/clock';
import { startSsoFlow, type PersonSession, type SsoFlow } from '../support/sso';
import { errorCode } from '../support/app';
import { UPSERT_POLICY_RULE } from '../support/documents';
import { QBO_DEMO_CUSTOMERS } from '../../src/vendors/nango/nango.sandbox-data';
import { escalateDueApprovals } from '../../src/approvals/approval-escalation';
import { createWebhookEndpoint } from '../../src/webhooks/webhook.service';
import { buildWebhookPayload } from '../../src/webhooks/webhook-payload';
import { executeApproved, invoicePosts, ledgerOf, requestInvoice, rowsOf, sql, startRun, WAITING_TRAIL } from './approval-flow';
import type { PolicyRuleInput } from '../gql/graphql';
import { ensurePrincipal } from '../../src/identity/principals';
import { EXPIRE_APPROVALS_TASK, jobTasks } from '../../src/jobs/worker';
import { createLogger } from '../../src/support/logger';
import { expireDueApprovals, resolveApproval } from '../../src/approvals/approval.service';
import { DEMO_PEOPLE, type DevPerson } from '../../src/identity/dev-idp';

/** An expert who is also in the on-call group the ladder escalates to. */
const OSCAR: DevPerson = {
  sub: 'person-oscar',
  login: 'oscar',
  name: 'Oscar Oncall',
  email: 'oscar@acme.test',
  groups: ['toolgate-experts', 'oncall'],
  tenant: 'acme',
};

/**
 * Quorum approvals and escalation ladders (issue 33, items 3 and 4), over HTTP against a
 * real Toolgate: experts are people signed in through the development issuer (grace,
 * edsger) and API keys; the ladder moves on a manual clock.
 */
const TWO_EXPERTS: PolicyRuleInput = {
  name: 'Invoices over $10,000 need two different experts',
  position: 0,
  toolPattern: 'invoice',
  actionPattern: 'send',
  conditions: [{ path: 'amount', op: 'gt', value: 10_000 }],
  risk: 'high',
  decision: 'require_expert_approval',
  quorum: 2,
};

const PAGE_ONCALL: PolicyRuleInput = {
  name: 'If nobody approves within 15 minutes, page the on-call approver group; deny after 2 hours',
  position: 1,
  toolPattern: 'invoice',
  actionPattern: 'send',
  conditions: [{ path: 'amount', op: 'gt', value: 5_000 }],
  risk: 'high',
  decision: 'require_expert_approval',
  escalation: [{ afterSeconds: 900, role: 'expert', group: 'oncall' }],
  expireAfterSeconds: 7200,
};

const BIG = 12_000;
const LADDER = 7_000;

const RESOLVE = `mutation($id: ID!, $decision: ApprovalDecision!, $params: JSONObject) {
  resolveApproval(id: $id, decision: $decision, editedParams: $params) { id status quorum approvals votes { by decision counts personId } }
}`;

const APPROVAL = `query($id: ID!) { toolCall(id: $id) { status approvalRequest {
  status quorum approvals step steps stepEndsAt expiresAt group edited editedParams
  votes { keyId personId by decision counts }
  history { step actorKeyId }
} } }`;

let flow: SsoFlow;
let grace: PersonSession;
let edsger: PersonSession;
/** A second expert API key (the flow's own is the first). */
let expertKey2: string;

beforeAll(async () => {
  flow = await startSsoFlow({ people: [...DEMO_PEOPLE, OSCAR] });
  // The flow's client rule (invoices above 1,000) goes after these two.
  await sql(flow.app, `update policy_rules set position = 10 where org_id = ?`, [flow.orgId]);
  for (const input of [TWO_EXPERTS, PAGE_ONCALL]) {
    const res = await flow.app.gql(UPSERT_POLICY_RULE, { key: flow.keys.admin, variables: { input } });
    expect(res.body.errors).toBeUndefined();
  }
  grace = await flow.signInAs('grace');
  edsger = await flow.signInAs('edsger');
  const key = await flow.app.gql('mutation { createApiKey(role: expert, name: "second expert") { secret } }', { key: flow.keys.admin });
  expertKey2 = key.body.data!.createApiKey.secret;
});
afterAll(async () => {
  await flow?.close();
});

async function waiting(amount: number) {
  const runId = await startRun(flow);
  const call = await requestInvoice(flow, runId, { customerId: QBO_DEMO_CUSTOMERS.amys, amount });
  expect(call.status).toBe('waiting_approval');
  return { runId, toolCallId: call.toolCallId, approvalId: call.approvalRequestId! };
}

const asPerson = (who: PersonSession, id: string, decision: 'APPROVE' | 'REJECT', params?: Record<string, unknown>) =>
  flow.gqlAs(who, RESOLVE as never, { variables: { id, decision, params } as never }) as Promise<{ body: { data?: any; errors?: any[] } }>;
const asKey = (key: string, id: string, decision: 'APPROVE' | 'REJECT', params?: Record<string, unknown>) =>
  flow.app.gql(RESOLVE, { key, variables: { id, decision, params } });
const approvalOf = async (toolCallId: string) =>
  (await flow.app.gql(APPROVAL, { key: flow.keys.admin, variables: { id: toolCallId } })).body.data!.toolCall;

describe('quorum: "Invoices over $10,000 need two different experts"', () => {
  test('two distinct experts are required; the same expert twice does not count; the call runs once', async () => {
    const ids = await waiting(BIG);
    const first = await asPerson(grace, ids.approvalId, 'APPROVE');
    expect(first.body.errors).toBeUndefined();
    expect(first.body.data.resolveApproval).toMatchObject({ status: 'pending', quorum: 2, approvals: 1 });
    expect((await rowsOf(flow.app, ids.toolCallId)).call.status).toBe('waiting_approval');

    // Grace again, in another console session: the same person, refused, nothing written.
    const graceAgain = await flow.signInAs('grace');
    const twice = await asPerson(graceAgain, ids.approvalId, 'APPROVE');
    expect(errorCode(twice as never)).toBe('APPROVAL_ALREADY_VOTED');
    const progress = await approvalOf(ids.toolCallId);
    expect(progress.approvalRequest).toMatchObject({ status: 'pending', quorum: 2, approvals: 1 });
    expect(progress.approvalRequest.votes).toEqual([
      expect.objectContaining({ by: 'Grace Expert', decision: 'approve', counts: true, personId: expect.any(String) }),
    ]);

    const second = await asPerson(edsger, ids.approvalId, 'APPROVE');
    expect(second.body.errors).toBeUndefined();
    expect(second.body.data.resolveApproval).toMatchObject({ status: 'approved', approvals: 2 });

    const before = invoicePosts(flow.app);
    const [a, b] = await Promise.all([executeApproved(flow, ids.toolCallId), executeApproved(flow, ids.toolCallId)]);
    expect([a.body.errors, b.body.errors]).toEqual([undefined, undefined]);
    expect(invoicePosts(flow.app) - before).toBe(1);

    const events = await ledgerOf(flow.app, ids.runId);
    const types = events.map((e) => e.type);
    expect(types.slice(0, 6)).toEqual([...WAITING_TRAIL, 'approval.vote_recorded']);
    expect(types).toContain('tool_call.approved');
    const history = (await approvalOf(ids.toolCallId)).approvalRequest.history.map((h: { step: string }) => h.step);
    expect(history).toEqual(['requested', 'voted', 'approved']);
    const vote = events.find((e) => e.type === 'approval.vote_recorded')!;
    expect(vote.metadata).toMatchObject({ approvals: 1, quorum: 2, person: { subject: 'person-grace' } });
    expect(events.find((e) => e.type === 'tool_call.approved')!.metadata).toMatchObject({
      approvals: 2,
      quorum: 2,
      person: { subject: 'person-edsger' },
    });
  });

  test('a person counts once across principals: a console session, and their principal for an OAuth client', async () => {
    const ids = await waiting(BIG);
    await asPerson(grace, ids.approvalId, 'APPROVE');
    // Grace's principal for an MCP client (what /mcp's OAuth path acts as): another api_keys row, the same person.
    const claims = { issuer: flow.idp.issuer, subject: 'person-grace', name: 'Grace Expert', email: null };
    const viaClient = await ensurePrincipal(flow.app.em().getConnection(), flow.orgId, claims, 'expert', {
      oauthClient: 'mcp-cli',
      recordName: true,
    });
    const session = (await flow.gqlAs(grace, '{ viewer { apiKeyId } }' as never)) as { body: { data?: any } };
    expect(viaClient.keyId).not.toBe(session.body.data.viewer.apiKeyId);
    const caller = { orgId: flow.orgId, role: 'expert' as const, keyId: viaClient.keyId, person: viaClient.person };
    await expect(resolveApproval(flow.app.em(), caller, ids.approvalId, 'approve', null)).rejects.toMatchObject({ code: 'APPROVAL_ALREADY_VOTED' });
    expect((await approvalOf(ids.toolCallId)).approvalRequest).toMatchObject({ status: 'pending', approvals: 1 });
  });

  test('a key counts once too; a key and a person are two approvers', async () => {
    const ids = await waiting(BIG);
    expect((await asKey(flow.keys.expert, ids.approvalId, 'APPROVE')).body.data!.resolveApproval).toMatchObject({ status: 'pending', approvals: 1 });
    expect(errorCode(await asKey(flow.keys.expert, ids.approvalId, 'APPROVE'))).toBe('APPROVAL_ALREADY_VOTED');
    const done = await asPerson(grace, ids.approvalId, 'APPROVE');
    expect(done.body.data.resolveApproval).toMatchObject({ status: 'approved', approvals: 2 });
  });

  test('one rejection ends it, whatever the approvals so far', async () => {
    const ids = await waiting(BIG);
    await asPerson(grace, ids.approvalId, 'APPROVE');
    const no = await asPerson(edsger, ids.approvalId, 'REJECT');
    expect(no.body.data.resolveApproval).toMatchObject({ status: 'rejected' });
    const { call } = await rowsOf(flow.app, ids.toolCallId);
    expect([call.status, call.errorCode]).toEqual(['blocked', 'EXPERT_REJECTED']);
    const late = await asKey(flow.keys.expert, ids.approvalId, 'APPROVE');
    expect(errorCode(late)).toBe('APPROVAL_ALREADY_RESOLVED');
    expect((await approvalOf(ids.toolCallId)).approvalRequest.votes.map((v: { decision: string }) => v.decision)).toEqual(['approve', 'reject']);
  });

  test('an approval with edits restarts the quorum: earlier votes stay as history and no longer count', async () => {
    const ids = await waiting(BIG);
    await asPerson(grace, ids.approvalId, 'APPROVE');
    const edited = { customerId: QBO_DEMO_CUSTOMERS.amys, amount: BIG + 500 };
    const edit = await asPerson(edsger, ids.approvalId, 'APPROVE', edited);
    expect(edit.body.errors).toBeUndefined();
    // Edsger's vote is the first for the edited params: still one of two.
    expect(edit.body.data.resolveApproval).toMatchObject({ status: 'pending', approvals: 1 });
    const view = (await approvalOf(ids.toolCallId)).approvalRequest;
    expect(view.votes.map((v: { by: string; counts: boolean }) => [v.by, v.counts])).toEqual([
      ['Grace Expert', false],
      ['Edsger Expert', true],
    ]);
    expect(view.edited).toBe(true);

    // Grace's earlier vote was for other params: she approves the edited ones, and that completes it.
    const done = await asPerson(grace, ids.approvalId, 'APPROVE');
    expect(done.body.data.resolveApproval).toMatchObject({ status: 'approved', approvals: 2 });
    const before = invoicePosts(flow.app);
    const ran = await executeApproved(flow, ids.toolCallId);
    expect(ran.body.errors).toBeUndefined();
    expect(invoicePosts(flow.app) - before).toBe(1);
    const invoice = flow.app.sandbox!.requests.filter((r) => r.vendor === 'nango' && r.method === 'POST' && r.path.endsWith('/invoice')).at(-1)!;
    expect(JSON.stringify(invoice.body)).toContain(String(BIG + 500));
    const restarted = (await ledgerOf(flow.app, ids.runId)).filter((e) => e.type === 'approval.vote_recorded').at(-1)!;
    expect(restarted.metadata).toMatchObject({ edited: true, restarted: true, approvals: 1 });
  });

  test('race: two experts cast the last vote at once: one completes it, the other finds it resolved, the call runs once', async () => {
    for (let round = 0; round < 3; round++) {
      const ids = await waiting(BIG);
      await asKey(expertKey2, ids.approvalId, 'APPROVE');
      const answers = await Promise.all([asPerson(grace, ids.approvalId, 'APPROVE'), asPerson(edsger, ids.approvalId, 'APPROVE')]);
      const won = answers.filter((a) => a.body.data?.resolveApproval?.status === 'approved');
      expect(won).toHaveLength(1);
      expect(answers.map((a) => errorCode(a as never)).filter(Boolean)).toEqual(['APPROVAL_ALREADY_RESOLVED']);
      const before = invoicePosts(flow.app);
      await Promise.all([executeApproved(flow, ids.toolCallId), executeApproved(flow, ids.toolCallId)]);
      expect(invoicePosts(flow.app) - before).toBe(1);
      const types = (await ledgerOf(flow.app, ids.runId)).map((e) => e.type);
      expect(types.filter((t) => t === 'tool_call.approved')).toHaveLength(1);
    }
  });

  test('race: the first two votes at once still complete it (votes take turns: the second one counts the first)', async () => {
    for (let round = 0; round < 3; round++) {
      const ids = await waiting(BIG);
      const answers = await Promise.all([asPerson(grace, ids.approvalId, 'APPROVE'), asPerson(edsger, ids.approvalId, 'APPROVE')]);
      expect(answers.map((a) => a.body.errors)).toEqual([undefined, undefined]);
      expect(answers.map((a) => a.body.data.resolveApproval.status).sort()).toEqual(['approved', 'pending']);
      expect((await rowsOf(flow.app, ids.toolCallId)).call.status).toBe('approved');
    }
  });
});

describe('escalation: "If nobody approves within 15 minutes, page the on-call approver group; deny after 2 hours"', () => {
  test('the ladder escalates at T1 with approval.escalated, and the request expires (denied) at its end', async () => {
    const admin = { orgId: flow.orgId, role: 'admin' as const, keyId: flow.keyIds.admin };
    const { endpoint } = await createWebhookEndpoint(flow.app.em().fork(), flow.app.services.keyring, flow.app.services.egress, admin, {
      url: 'http://127.0.0.1:9/pager',
      eventTypes: ['approval.escalated', 'approval.expired'],
    });
    const ids = await waiting(LADDER);
    const { approval } = await rowsOf(flow.app, ids.toolCallId);
    const opened = approval!.createdAt.getTime();
    expect(approval!.stepEndsAt!.getTime() - opened).toBeCloseTo(900_000, -3);
    expect(approval!.expiresAt.getTime() - opened).toBeCloseTo(7_200_000, -3);
    const clock = new ManualClock(opened);

    let view = (await approvalOf(ids.toolCallId)).approvalRequest;
    expect(view).toMatchObject({ step: 0, steps: 1, group: null, quorum: 1 });

    clock.advance(899_000);
    expect(await escalateDueApprovals(flow.app.em(), clock)).toEqual([]);
    clock.advance(2_000);
    const escalated = await escalateDueApprovals(flow.app.em(), clock);
    expect(escalated.map((a) => a.id)).toEqual([ids.approvalId]);
    // Once only: the next pass finds nothing due (the last step ends at the expiry).
    expect(await escalateDueApprovals(flow.app.em(), clock)).toEqual([]);

    view = (await approvalOf(ids.toolCallId)).approvalRequest;
    expect(view).toMatchObject({ status: 'pending', step: 1, steps: 1, group: 'oncall' });
    expect(view.stepEndsAt).toBe(view.expiresAt);

    const event = (await ledgerOf(flow.app, ids.runId)).find((e) => e.type === 'approval.escalated')!;
    expect(event.metadata).toMatchObject({ approvalRequestId: ids.approvalId, step: 1, steps: 1, role: 'expert', group: 'oncall' });
    const deliveries = await flow.app
      .em()
      .getConnection()
      .execute<{ event_type: string; ledger_event_id: string }[]>(
        'select event_type, ledger_event_id::text from webhook_deliveries where endpoint_id = ? order by created_at',
        [endpoint.id],
      );
    expect(deliveries.map((d) => d.event_type)).toEqual(['approval.escalated']);
    const payload = await buildWebhookPayload(flow.app.em(), 'approval.escalated', deliveries[0].ledger_event_id);
    expect(payload.data).toMatchObject({ approvalId: ids.approvalId, toolCallId: ids.toolCallId, status: 'pending', step: 1, group: 'oncall' });

    // Not yet at the end of the ladder; then past it: expired, denied.
    clock.advance(7_200_000 - 901_000 - 1_000);
    expect((await expireDueApprovals(flow.app.em(), 100, clock)).map((a) => a.id)).not.toContain(ids.approvalId);
    clock.advance(2_000);
    expect((await expireDueApprovals(flow.app.em(), 100, clock)).map((a) => a.id)).toContain(ids.approvalId);
    const { call, approval: expired } = await rowsOf(flow.app, ids.toolCallId);
    expect([expired!.status, call.status, call.errorCode]).toEqual(['expired', 'blocked', 'APPROVAL_EXPIRED']);
    const after = await flow.app
      .em()
      .getConnection()
      .execute<{ event_type: string }[]>('select event_type from webhook_deliveries where endpoint_id = ? order by created_at', [endpoint.id]);
    expect(after.map((d) => d.event_type)).toEqual(['approval.escalated', 'approval.expired']);
  });

  test('once escalated to a group, only its members resolve: not another expert, not a key', async () => {
    const ids = await waiting(LADDER);
    await sql(flow.app, `update approval_requests set step_ends_at = now() - interval '1 second' where id = ?`, [ids.approvalId]);
    expect((await escalateDueApprovals(flow.app.em(), new ManualClock())).map((a) => a.id)).toContain(ids.approvalId);
    const asGrace = await flow.gqlAs(grace, RESOLVE as never, { variables: { id: ids.approvalId, decision: 'APPROVE' } as never });
    expect(errorCode(asGrace)).toBe('FORBIDDEN');
    expect(asGrace.body.errors?.[0]?.extensions?.group).toBe('oncall');
    const asKey = await flow.app.gql(RESOLVE, { key: flow.keys.expert, variables: { id: ids.approvalId, decision: 'APPROVE' } });
    expect(errorCode(asKey)).toBe('FORBIDDEN');
    expect((await rowsOf(flow.app, ids.toolCallId)).approval!.status).toBe('pending');
    const oscar = await flow.signInAs('oscar');
    const asOscar = await flow.gqlAs(oscar, RESOLVE as never, { variables: { id: ids.approvalId, decision: 'APPROVE' } as never });
    expect(asOscar.body.errors).toBeUndefined();
    expect((await rowsOf(flow.app, ids.toolCallId)).approval!.status).toBe('approved');
  });

  test("the scheduled approval job's task escalates a due step (system clock)", async () => {
    const ids = await waiting(LADDER);
    await sql(flow.app, `update approval_requests set step_ends_at = now() - interval '1 second' where id = ?`, [ids.approvalId]);
    const tasks = jobTasks(flow.app.orm, createLogger(flow.app.config));
    await tasks[EXPIRE_APPROVALS_TASK]!(undefined, undefined as never);
    const { approval } = await rowsOf(flow.app, ids.toolCallId);
    expect([approval!.status, approval!.step, approval!.stepEndsAt]).toEqual(['pending', 1, null]);
  });
});

describe('rule validation', () => {
  const refused = async (input: Partial<PolicyRuleInput>) => {
    const res = await flow.app.gql(UPSERT_POLICY_RULE, { key: flow.keys.admin, variables: { input: { ...TWO_EXPERTS, quorum: 1, ...input } } });
    return [errorCode(res), res.body.errors?.[0]?.extensions?.field];
  };

  test('quorum 1 to 5; ladder at most 5 steps, 60 s to 7 days, increasing, with an end; only on approval rules', async () => {
    expect(await refused({ quorum: 6 })).toEqual(['BAD_USER_INPUT', 'quorum']);
    expect(await refused({ quorum: 0 })).toEqual(['BAD_USER_INPUT', 'quorum']);
    expect(await refused({ decision: 'allow', quorum: 2 })).toEqual(['BAD_USER_INPUT', 'decision']);
    const step = (afterSeconds: number) => ({ afterSeconds, role: 'expert' as const });
    expect(await refused({ escalation: [step(30)], expireAfterSeconds: 600 })).toEqual(['BAD_USER_INPUT', 'escalation[0]']);
    expect(await refused({ escalation: [step(600), step(600)], expireAfterSeconds: 6000 })).toEqual(['BAD_USER_INPUT', 'escalation[1]']);
    expect(await refused({ escalation: [step(8 * 86400)], expireAfterSeconds: 9 * 86400 })).toEqual(['BAD_USER_INPUT', 'escalation[0]']);
    expect(await refused({ escalation: [60, 120, 180, 240, 300, 360].map(step), expireAfterSeconds: 6000 })).toEqual([
      'BAD_USER_INPUT',
      'escalation',
    ]);
    expect(await refused({ escalation: [step(600)] })).toEqual(['BAD_USER_INPUT', 'expireAfterSeconds']);
    expect(await refused({ escalation: [step(600)], expireAfterSeconds: 600 })).toEqual(['BAD_USER_INPUT', 'expireAfterSeconds']);
    expect(await refused({ escalation: [{ afterSeconds: 600, role: 'client' }], expireAfterSeconds: 6000 })).toEqual([
      'BAD_USER_INPUT',
      'escalation[0]',
    ]);
  });
});
