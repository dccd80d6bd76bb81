import { graphql } from '../gql';
import { PendingApprovalsDocument } from '../../gql/graphql';
import { QBO_DEMO_CUSTOMERS } from '../../src/vendors/nango/nango.sandbox-data';
import {
  CLIENT_AMOUNT,
  EXPERT_AMOUNT,
  errorCode,
  executeApproved,
  invoicePosts,
  ledgerOf,
  ledgerTypes,
  nangoRequests,
  resolve,
  rowsOf,
  useFlow,
  WAITING_TRAIL,
  waitingCall,
} from './approval-flow';

/** The expert's queue with each request's call, as an approval dashboard lists it. */
const EXPERT_QUEUE = graphql(`
  query ExpertQueue {
    approvalRequests(filter: {status: pending, kind: expert}, first: 100) {
      edges { node { id status kind toolCall { id status } } }
    }
  }
`);

/**
 * The approval flow end to end (ARCHITECTURE.md state machines): a high-risk call waits,
 * a human resolves it once, the agent runs it once. Rows and ledger events are checked
 * after every step.
 */
const flow = useFlow();

describe('a high-risk call waits for approval', () => {
  test('call waiting_approval, approval pending (expert, 24 h), run waiting with one pending, ledger in order', async () => {
    const before = Date.now();
    const { runId, toolCallId, approvalId } = await waitingCall(flow, 'expert');
    const { call, approval, run } = await rowsOf(flow.app, toolCallId);

    expect(call.status).toBe('waiting_approval');
    expect(call.errorCode).toBeNull();
    expect(call.riskLevel).toBe('high');
    expect(approval).not.toBeNull();
    expect(approval!.id).toBe(approvalId);
    expect(approval!.kind).toBe('expert');
    expect(approval!.status).toBe('pending');
    expect(approval!.requestedBy).toBe(flow.keyIds.agent);
    expect(approval!.resolvedBy).toBeNull();
    expect(approval!.resolvedAt).toBeNull();
    expect(approval!.sealedParams).not.toBeNull();
    // APPROVAL_TTL_SECONDS defaults to 24 h.
    const ttl = 24 * 3600 * 1000;
    expect(approval!.expiresAt.getTime()).toBeGreaterThanOrEqual(before + ttl - 1000);
    expect(approval!.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + ttl + 1000);
    expect(run.status).toBe('waiting_approval');
    expect(run.pendingApprovalCount).toBe(1);

    const events = await ledgerOf(flow.app, runId);
    expect(events.map((e) => e.type)).toEqual(WAITING_TRAIL);
    const requested = events[2];
    expect(requested.resourceId).toBe(toolCallId);
    expect(requested.metadata).toMatchObject({ tool: 'invoice.send', decision: 'require_expert_approval', risk: 'high' });
    expect(events[3].metadata).toMatchObject({ approvalRequestId: approvalId, kind: 'expert' });
    // The approval keeps the unredacted params only sealed: no plaintext in the row.
    expect(JSON.stringify(approval!.sealedParams)).not.toContain(String(EXPERT_AMOUNT));

    const listed = await flow.app.gql(EXPERT_QUEUE, { key: flow.keys.expert });
    expect(listed.body.errors).toBeUndefined();
    const node = listed.body.data!.approvalRequests.edges.map((e) => e.node).find((n) => n.id === approvalId);
    expect(node).toEqual({ id: approvalId, status: 'pending', kind: 'expert', toolCall: { id: toolCallId, status: 'waiting_approval' } });

    const clientQueue = await flow.app.gql(PendingApprovalsDocument, { key: flow.keys.expert, variables: { kind: 'client', first: 100 } });
    expect(clientQueue.body.data!.approvalRequests.edges.map((e) => e.node.id)).not.toContain(approvalId);
  });

  test('an amount over the rule threshold waits for the client instead', async () => {
    const { toolCallId, runId } = await waitingCall(flow, 'client');
    const { approval, run } = await rowsOf(flow.app, toolCallId);
    expect(approval!.kind).toBe('client');
    expect(run.pendingApprovalCount).toBe(1);
    const [requested] = (await ledgerOf(flow.app, runId)).filter((e) => e.type === 'tool_call.requested');
    expect(requested.metadata).toMatchObject({ decision: 'require_client_approval', risk: 'high' });
  });
});

describe('approve, then execute once', () => {
  test('an expert approves: approval approved by that key with the reason, call approved, run resumed', async () => {
    const { runId, toolCallId, approvalId } = await waitingCall(flow, 'expert');
    const res = await resolve(flow, flow.keys.expert, approvalId, 'APPROVE', 'Customer confirmed by phone');
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.resolveApproval).toMatchObject({
      id: approvalId,
      status: 'approved',
      kind: 'expert',
      resolvedBy: flow.keyIds.expert,
      reason: 'Customer confirmed by phone',
    });
    expect(res.body.data!.resolveApproval.resolvedAt).toEqual(expect.any(String));

    const { call, approval, run } = await rowsOf(flow.app, toolCallId);
    expect(approval!.status).toBe('approved');
    expect(approval!.resolvedBy).toBe(flow.keyIds.expert);
    expect(approval!.reason).toBe('Customer confirmed by phone');
    expect(approval!.resolvedAt).toBeInstanceOf(Date);
    expect(Math.abs(approval!.resolvedAt!.getTime() - Date.now())).toBeLessThan(60_000);
    expect(approval!.sealedParams).not.toBeNull();
    expect(call.status).toBe('approved');
    expect(call.errorCode).toBeNull();
    expect(run.status).toBe('running');
    expect(run.pendingApprovalCount).toBe(0);

    const events = await ledgerOf(flow.app, runId);
    expect(events.map((e) => e.type).slice(-2)).toEqual(['tool_call.approved', 'run.resumed']);
    const approved = events[events.length - 2];
    expect(approved.resourceId).toBe(toolCallId);
    expect(approved.actorRole).toBe('expert');
    expect(approved.actorKeyId).toBe(flow.keyIds.expert);
    expect(approved.metadata).toMatchObject({
      tool: 'invoice.send',
      approvalRequestId: approvalId,
      kind: 'expert',
      reason: 'Customer confirmed by phone',
    });
  });

  test('executeApprovedToolCall runs it once: one invoice; again → replayed, no second invoice', async () => {
    const { runId, toolCallId, approvalId } = await waitingCall(flow, 'expert');
    expect((await resolve(flow, flow.keys.expert, approvalId, 'APPROVE')).body.errors).toBeUndefined();
    const invoicesBefore = invoicePosts(flow.app);

    const first = await executeApproved(flow, toolCallId);
    expect(first.body.errors).toBeUndefined();
    const outcome = first.body.data!.executeApprovedToolCall;
    expect(outcome).toMatchObject({ status: 'succeeded', toolCallId, error: null, replayed: false, approvalRequestId: approvalId });
    expect(outcome.result).toMatchObject({
      invoiceId: expect.stringMatching(/^\d+$/),
      totalAmount: EXPERT_AMOUNT,
      customerId: QBO_DEMO_CUSTOMERS.amys,
      emailStatus: 'EmailSent',
      sentTo: 'Birds@Intuit.com',
    });
    expect(invoicePosts(flow.app)).toBe(invoicesBefore + 1);

    const { call, approval, run } = await rowsOf(flow.app, toolCallId);
    expect(call.status).toBe('succeeded');
    expect(call.errorCode).toBeNull();
    expect(approval!.status).toBe('approved');
    expect(approval!.sealedParams).toBeNull();
    expect(run.status).toBe('running');
    expect(await ledgerTypes(flow.app, runId)).toEqual([...WAITING_TRAIL, 'tool_call.approved', 'run.resumed', 'tool_call.succeeded']);

    const again = await executeApproved(flow, toolCallId);
    expect(again.body.errors).toBeUndefined();
    expect(again.body.data!.executeApprovedToolCall).toMatchObject({ status: 'succeeded', toolCallId, replayed: true, error: null });
    expect(invoicePosts(flow.app)).toBe(invoicesBefore + 1);
    expect((await ledgerTypes(flow.app, runId)).filter((t) => t === 'tool_call.succeeded')).toHaveLength(1);
  });

  test('two concurrent executeApprovedToolCall create one invoice', async () => {
    const { runId, toolCallId, approvalId } = await waitingCall(flow, 'expert');
    expect((await resolve(flow, flow.keys.expert, approvalId, 'APPROVE')).body.errors).toBeUndefined();
    const invoicesBefore = invoicePosts(flow.app);

    const answers = await Promise.all([executeApproved(flow, toolCallId), executeApproved(flow, toolCallId)]);
    for (const a of answers) expect(a.body.errors).toBeUndefined();
    const outcomes = answers.map((a) => a.body.data!.executeApprovedToolCall);
    const ran = outcomes.filter((o) => !o.replayed);
    expect(ran).toHaveLength(1);
    expect(ran[0].status).toBe('succeeded');
    const replayed = outcomes.filter((o) => o.replayed);
    expect(replayed).toHaveLength(1);
    expect(['running', 'succeeded']).toContain(replayed[0].status);
    expect(invoicePosts(flow.app)).toBe(invoicesBefore + 1);
    expect((await rowsOf(flow.app, toolCallId)).call.status).toBe('succeeded');
    expect((await ledgerTypes(flow.app, runId)).filter((t) => t === 'tool_call.succeeded')).toHaveLength(1);
  });

  test('executeApprovedToolCall on a call still waiting does not run it', async () => {
    const { toolCallId } = await waitingCall(flow, 'expert');
    const requestsBefore = nangoRequests(flow.app);
    const res = await executeApproved(flow, toolCallId);
    expect(res.body.data!.executeApprovedToolCall).toMatchObject({ status: 'waiting_approval', replayed: true });
    expect(nangoRequests(flow.app)).toBe(requestsBefore);
    expect((await rowsOf(flow.app, toolCallId)).call.status).toBe('waiting_approval');
  });

  test('executeApprovedToolCall: only agent keys, only the own org, only tool call ids', async () => {
    const { toolCallId, approvalId } = await waitingCall(flow, 'expert');
    expect((await resolve(flow, flow.keys.expert, approvalId, 'APPROVE')).body.errors).toBeUndefined();
    for (const role of ['admin', 'expert', 'client', 'partner'] as const) {
      expect(errorCode(await executeApproved(flow, toolCallId, flow.keys[role]))).toBe('FORBIDDEN');
    }
    expect(errorCode(await executeApproved(flow, 'not-a-uuid'))).toBe('NOT_FOUND');
    expect(errorCode(await executeApproved(flow, approvalId))).toBe('NOT_FOUND');
    expect((await rowsOf(flow.app, toolCallId)).call.status).toBe('approved');
  });
});

describe('reject', () => {
  test('an expert rejects: call blocked EXPERT_REJECTED, ledger tool_call.rejected (expert_rejected), run resumed', async () => {
    const { runId, toolCallId, approvalId } = await waitingCall(flow, 'expert');
    const res = await resolve(flow, flow.keys.expert, approvalId, 'REJECT', 'Amount looks wrong');
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.resolveApproval).toMatchObject({ status: 'rejected', resolvedBy: flow.keyIds.expert, reason: 'Amount looks wrong' });

    const { call, approval, run } = await rowsOf(flow.app, toolCallId);
    expect(call.status).toBe('blocked');
    expect(call.errorCode).toBe('EXPERT_REJECTED');
    expect(call.errorText).toBe('Tool execution was rejected by an expert');
    expect(approval!.status).toBe('rejected');
    expect(approval!.resolvedBy).toBe(flow.keyIds.expert);
    expect(approval!.reason).toBe('Amount looks wrong');
    expect(approval!.resolvedAt).toBeInstanceOf(Date);
    expect(approval!.sealedParams).toBeNull();
    expect(run.status).toBe('running');
    expect(run.pendingApprovalCount).toBe(0);

    const events = await ledgerOf(flow.app, runId);
    expect(events.map((e) => e.type).slice(-2)).toEqual(['tool_call.rejected', 'run.resumed']);
    expect(events[events.length - 2].metadata).toMatchObject({
      tool: 'invoice.send',
      approvalRequestId: approvalId,
      kind: 'expert',
      reason: 'expert_rejected',
      errorCode: 'EXPERT_REJECTED',
      note: 'Amount looks wrong',
    });

    const requestsBefore = nangoRequests(flow.app);
    const exec = await executeApproved(flow, toolCallId);
    expect(exec.body.errors).toBeUndefined();
    expect(exec.body.data!.executeApprovedToolCall).toMatchObject({
      status: 'blocked',
      toolCallId,
      result: null,
      error: { code: 'EXPERT_REJECTED', message: 'Tool execution was rejected by an expert' },
    });
    expect(nangoRequests(flow.app)).toBe(requestsBefore);
    expect((await rowsOf(flow.app, toolCallId)).call.status).toBe('blocked');
  });

  test('a client rejects a client approval: CLIENT_REJECTED (client_rejected); execution refused', async () => {
    const { runId, toolCallId, approvalId } = await waitingCall(flow, 'client');
    const res = await resolve(flow, flow.keys.client, approvalId, 'REJECT');
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.resolveApproval).toMatchObject({ status: 'rejected', kind: 'client', resolvedBy: flow.keyIds.client, reason: null });

    const { call, approval, run } = await rowsOf(flow.app, toolCallId);
    expect(call.status).toBe('blocked');
    expect(call.errorCode).toBe('CLIENT_REJECTED');
    expect(approval!.status).toBe('rejected');
    expect(approval!.sealedParams).toBeNull();
    expect(run.status).toBe('running');
    expect(run.pendingApprovalCount).toBe(0);
    const events = await ledgerOf(flow.app, runId);
    expect(events.map((e) => e.type).slice(-2)).toEqual(['tool_call.rejected', 'run.resumed']);
    expect(events[events.length - 2].metadata).toMatchObject({ kind: 'client', reason: 'client_rejected', errorCode: 'CLIENT_REJECTED' });
    expect(events[events.length - 2].actorRole).toBe('client');

    const requestsBefore = nangoRequests(flow.app);
    const exec = await executeApproved(flow, toolCallId);
    expect(exec.body.data!.executeApprovedToolCall).toMatchObject({ status: 'blocked', error: { code: 'CLIENT_REJECTED' } });
    expect(nangoRequests(flow.app)).toBe(requestsBefore);
  });

  test('a client approves a client approval; the agent runs it for the larger amount', async () => {
    const { toolCallId, approvalId } = await waitingCall(flow, 'client');
    expect((await resolve(flow, flow.keys.client, approvalId, 'APPROVE')).body.errors).toBeUndefined();
    const invoicesBefore = invoicePosts(flow.app);
    const exec = await executeApproved(flow, toolCallId);
    expect(exec.body.data!.executeApprovedToolCall).toMatchObject({ status: 'succeeded', result: { totalAmount: CLIENT_AMOUNT } });
    expect(invoicePosts(flow.app)).toBe(invoicesBefore + 1);
  });
});
