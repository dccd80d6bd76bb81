import { newOrg } from '../support/factories';
import { graphql } from '../gql';
import { QBO_DEMO_CUSTOMERS } from '../../src/vendors/nango/nango.sandbox-data';
import {
  EXPERT_AMOUNT,
  errorCode,
  ledgerOf,
  ledgerTypes,
  requestInvoice,
  resolve,
  rowsOf,
  startRun,
  useFlow,
  WAITING_TRAIL,
  waitingCall,
} from './approval-flow';

const APPROVAL_COUNT = graphql(`
  query ApprovalCount {
    approvalRequests { totalCount }
  }
`);
const RUN_APPROVALS = graphql(`
  query RunApprovals($id: ID!) {
    run(id: $id) { status pendingApprovalCount }
  }
`);

/** Who may resolve which approval, exactly once; and a run with two approvals pending. */
const flow = useFlow();

async function expectStillPending(toolCallId: string): Promise<void> {
  const { call, approval, run } = await rowsOf(flow.app, toolCallId);
  expect(approval!.status).toBe('pending');
  expect(approval!.resolvedBy).toBeNull();
  expect(approval!.resolvedAt).toBeNull();
  expect(call.status).toBe('waiting_approval');
  expect(run.status).toBe('waiting_approval');
  expect(run.pendingApprovalCount).toBe(1);
}

describe('roles', () => {
  test('a client key cannot resolve an expert approval; admin, agent and partner keys resolve none', async () => {
    const { toolCallId, approvalId, runId } = await waitingCall(flow, 'expert');
    const eventsBefore = (await ledgerOf(flow.app, runId)).length;
    for (const decision of ['APPROVE', 'REJECT'] as const) {
      expect(errorCode(await resolve(flow, flow.keys.client, approvalId, decision))).toBe('FORBIDDEN');
      for (const role of ['admin', 'agent', 'partner'] as const) {
        expect(errorCode(await resolve(flow, flow.keys[role], approvalId, decision))).toBe('FORBIDDEN');
      }
    }
    await expectStillPending(toolCallId);
    expect((await ledgerOf(flow.app, runId)).length).toBe(eventsBefore);
    // The right key still can.
    expect((await resolve(flow, flow.keys.expert, approvalId, 'APPROVE')).body.data!.resolveApproval.status).toBe('approved');
  });

  test('an expert key cannot resolve a client approval', async () => {
    const { toolCallId, approvalId } = await waitingCall(flow, 'client');
    expect(errorCode(await resolve(flow, flow.keys.expert, approvalId, 'APPROVE'))).toBe('FORBIDDEN');
    expect(errorCode(await resolve(flow, flow.keys.expert, approvalId, 'REJECT'))).toBe('FORBIDDEN');
    for (const role of ['admin', 'agent', 'partner'] as const) {
      expect(errorCode(await resolve(flow, flow.keys[role], approvalId, 'APPROVE'))).toBe('FORBIDDEN');
    }
    await expectStillPending(toolCallId);
    expect((await resolve(flow, flow.keys.client, approvalId, 'APPROVE')).body.data!.resolveApproval.status).toBe('approved');
  });

  test("another org's keys get NOT_FOUND for this org's approval; so do unknown and malformed ids", async () => {
    const { toolCallId, approvalId } = await waitingCall(flow, 'expert');
    const other = await newOrg(flow.app.em());
    expect(errorCode(await resolve(flow, other.keys.expert, approvalId, 'APPROVE'))).toBe('NOT_FOUND');
    expect(errorCode(await resolve(flow, other.keys.client, approvalId, 'REJECT'))).toBe('NOT_FOUND');
    const listed = await flow.app.gql(APPROVAL_COUNT, { key: other.keys.expert });
    expect(listed.body.data!.approvalRequests.totalCount).toBe(0);
    expect(errorCode(await resolve(flow, flow.keys.expert, '00000000-0000-4000-8000-000000000000', 'APPROVE'))).toBe('NOT_FOUND');
    expect(errorCode(await resolve(flow, flow.keys.expert, 'nope', 'APPROVE'))).toBe('NOT_FOUND');
    expect(errorCode(await resolve(flow, flow.keys.expert, toolCallId, 'APPROVE'))).toBe('NOT_FOUND');
    expect(errorCode(await resolve(flow, null as unknown as string, approvalId, 'APPROVE'))).toBe('UNAUTHENTICATED');
    await expectStillPending(toolCallId);
  });

  test('a reason over 2000 characters is BAD_USER_INPUT and resolves nothing', async () => {
    const { toolCallId, approvalId } = await waitingCall(flow, 'expert');
    expect(errorCode(await resolve(flow, flow.keys.expert, approvalId, 'APPROVE', 'x'.repeat(2001)))).toBe('BAD_USER_INPUT');
    await expectStillPending(toolCallId);
  });
});

describe('single use', () => {
  test('a repeated resolution is APPROVAL_ALREADY_RESOLVED and changes nothing', async () => {
    const { runId, toolCallId, approvalId } = await waitingCall(flow, 'expert');
    expect((await resolve(flow, flow.keys.expert, approvalId, 'APPROVE', 'first')).body.errors).toBeUndefined();
    const eventsAfterFirst = await ledgerTypes(flow.app, runId);

    for (const decision of ['APPROVE', 'REJECT'] as const) {
      const again = await resolve(flow, flow.keys.expert, approvalId, decision, 'second');
      expect(errorCode(again)).toBe('APPROVAL_ALREADY_RESOLVED');
      expect(again.body.errors![0].extensions).toMatchObject({ approvalStatus: 'approved' });
    }
    const { call, approval, run } = await rowsOf(flow.app, toolCallId);
    expect(approval!.status).toBe('approved');
    expect(approval!.reason).toBe('first');
    expect(call.status).toBe('approved');
    expect(run.status).toBe('running');
    expect(run.pendingApprovalCount).toBe(0);
    expect(await ledgerTypes(flow.app, runId)).toEqual(eventsAfterFirst);
  });

  test('10 concurrent resolutions (approve and reject mixed): exactly one wins, the state is the winner’s', async () => {
    const { runId, toolCallId, approvalId } = await waitingCall(flow, 'expert');
    const decisions = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? 'APPROVE' : 'REJECT') as 'APPROVE' | 'REJECT');
    const answers = await Promise.all(decisions.map((d, i) => resolve(flow, flow.keys.expert, approvalId, d, `attempt ${i}`)));

    const winners = answers.map((a, i) => ({ a, i })).filter(({ a }) => !a.body.errors);
    expect(winners).toHaveLength(1);
    const losers = answers.filter((a) => a.body.errors);
    expect(losers.map(errorCode)).toEqual(Array(9).fill('APPROVAL_ALREADY_RESOLVED'));

    const { i } = winners[0];
    const approved = decisions[i] === 'APPROVE';
    expect(winners[0].a.body.data!.resolveApproval).toMatchObject({
      status: approved ? 'approved' : 'rejected',
      reason: `attempt ${i}`,
      resolvedBy: flow.keyIds.expert,
    });
    const { call, approval, run } = await rowsOf(flow.app, toolCallId);
    expect(approval!.status).toBe(approved ? 'approved' : 'rejected');
    expect(approval!.reason).toBe(`attempt ${i}`);
    expect(call.status).toBe(approved ? 'approved' : 'blocked');
    expect(call.errorCode).toBe(approved ? null : 'EXPERT_REJECTED');
    expect(run.status).toBe('running');
    expect(run.pendingApprovalCount).toBe(0);

    const types = await ledgerTypes(flow.app, runId);
    expect(types.filter((t) => t === 'tool_call.approved' || t === 'tool_call.rejected')).toEqual([
      approved ? 'tool_call.approved' : 'tool_call.rejected',
    ]);
    expect(types.filter((t) => t === 'run.resumed')).toHaveLength(1);
  });
});

describe('two pending approvals in one run', () => {
  test('count 2; the first resolution keeps the run waiting, the second resumes it', async () => {
    const runId = await startRun(flow);
    const first = await requestInvoice(flow, runId, { customerId: QBO_DEMO_CUSTOMERS.amys, amount: EXPERT_AMOUNT });
    const second = await requestInvoice(flow, runId, { customerId: QBO_DEMO_CUSTOMERS.billsWindsurf, amount: 75 });
    expect(first.status).toBe('waiting_approval');
    expect(second.status).toBe('waiting_approval');
    expect(second.approvalRequestId).not.toBe(first.approvalRequestId);

    let { run } = await rowsOf(flow.app, first.toolCallId);
    expect(run.status).toBe('waiting_approval');
    expect(run.pendingApprovalCount).toBe(2);
    // The run started waiting once.
    expect(await ledgerTypes(flow.app, runId)).toEqual([...WAITING_TRAIL, 'tool_call.requested', 'tool_call.approval_requested']);

    expect((await resolve(flow, flow.keys.expert, first.approvalRequestId!, 'REJECT')).body.errors).toBeUndefined();
    ({ run } = await rowsOf(flow.app, first.toolCallId));
    expect(run.status).toBe('waiting_approval');
    expect(run.pendingApprovalCount).toBe(1);
    expect((await ledgerTypes(flow.app, runId)).slice(-1)).toEqual(['tool_call.rejected']);

    expect((await resolve(flow, flow.keys.expert, second.approvalRequestId!, 'APPROVE')).body.errors).toBeUndefined();
    ({ run } = await rowsOf(flow.app, second.toolCallId));
    expect(run.status).toBe('running');
    expect(run.pendingApprovalCount).toBe(0);
    expect((await ledgerTypes(flow.app, runId)).slice(-2)).toEqual(['tool_call.approved', 'run.resumed']);

    const runView = await flow.app.gql(RUN_APPROVALS, { key: flow.keys.expert, variables: { id: runId } });
    expect(runView.body.data!.run).toEqual({ status: 'running', pendingApprovalCount: 0 });
  });

  test('both resolved concurrently: the run resumes once, count 0', async () => {
    const runId = await startRun(flow);
    const a = await requestInvoice(flow, runId, { customerId: QBO_DEMO_CUSTOMERS.amys, amount: 10 });
    const b = await requestInvoice(flow, runId, { customerId: QBO_DEMO_CUSTOMERS.amys, amount: 20 });
    const answers = await Promise.all([
      resolve(flow, flow.keys.expert, a.approvalRequestId!, 'APPROVE'),
      resolve(flow, flow.keys.expert, b.approvalRequestId!, 'REJECT'),
    ]);
    for (const answer of answers) expect(answer.body.errors).toBeUndefined();
    const { run } = await rowsOf(flow.app, a.toolCallId);
    expect(run.status).toBe('running');
    expect(run.pendingApprovalCount).toBe(0);
    expect((await ledgerTypes(flow.app, runId)).filter((t) => t === 'run.resumed')).toHaveLength(1);
  });
});
