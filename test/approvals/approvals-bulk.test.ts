import { errorCode, ledgerOf, resolve, rowsOf, useFlow, waitingCall } from './approval-flow';
import { MAX_BULK_APPROVALS } from '../../src/approvals/approval-bulk';

/**
 * Bulk resolution (issue 30, item 2): several approvals approved or rejected with one
 * reason, each through resolveApproval in its own transaction, answered per item. An item
 * that cannot be resolved (resolved elsewhere meanwhile, another kind's, unknown) answers
 * its code and changes nothing; the others go through. Bad input changes nothing at all.
 */
const flow = useFlow();

const BULK = `mutation($ids: [ID!]!, $decision: ApprovalDecision!, $reason: String) {
  resolveApprovals(ids: $ids, decision: $decision, reason: $reason) {
    approvalId
    approvalRequest { id status reason resolvedBy }
    error { code message }
  }
}`;

interface Resolution {
  approvalId: string;
  approvalRequest: { id: string; status: string; reason: string | null; resolvedBy: string } | null;
  error: { code: string; message: string } | null;
}

const bulk = (key: string, ids: string[], decision: 'APPROVE' | 'REJECT', reason: string | null = null) =>
  flow.app.gql<{ resolveApprovals: Resolution[] }>(BULK, { key, variables: { ids, decision, reason } });

const countEvents = async () => Number((await flow.app.em().execute<{ n: string }[]>('select count(*) as n from ledger_events'))[0].n);

test('each item is resolved on its own: the pending ones approved with the reason, the others answer their code and stay as they were', async () => {
  const pending = [await waitingCall(flow), await waitingCall(flow), await waitingCall(flow)];
  const elsewhere = await waitingCall(flow);
  const client = await waitingCall(flow, 'client');
  const unknown = '00000000-0000-0000-0000-000000000000';
  // Resolved by another reviewer before the bulk request arrives.
  expect((await resolve(flow, flow.keys.expert, elsewhere.approvalId, 'REJECT', 'not this one')).body.data!.resolveApproval.status).toBe('rejected');
  const elsewhereLedger = (await ledgerOf(flow.app, elsewhere.runId)).length;
  const clientLedger = (await ledgerOf(flow.app, client.runId)).length;

  const ids = [pending[0].approvalId, elsewhere.approvalId, pending[1].approvalId, client.approvalId, unknown, pending[2].approvalId];
  const res = await bulk(flow.keys.expert, ids, 'APPROVE', 'checked against the orders');
  expect(res.body.errors).toBeUndefined();
  const results = res.body.data!.resolveApprovals;
  // One answer per id, in the order sent.
  expect(results.map((r) => [r.approvalId, r.approvalRequest?.status ?? null, r.error?.code ?? null])).toEqual([
    [pending[0].approvalId, 'approved', null],
    [elsewhere.approvalId, null, 'APPROVAL_ALREADY_RESOLVED'],
    [pending[1].approvalId, 'approved', null],
    [client.approvalId, null, 'FORBIDDEN'],
    [unknown, null, 'NOT_FOUND'],
    [pending[2].approvalId, 'approved', null],
  ]);
  expect(results[1].error!.message).toBe('The approval request is already rejected');

  for (const item of pending) {
    const { approval, call, run } = await rowsOf(flow.app, item.toolCallId);
    expect([approval!.status, approval!.reason, approval!.resolvedBy]).toEqual(['approved', 'checked against the orders', flow.keyIds.expert]);
    expect(call.status).toBe('approved');
    expect(run.pendingApprovalCount).toBe(0);
    // The same ledger events as one reviewer's resolution: its own, on its own run.
    const approved = (await ledgerOf(flow.app, item.runId)).filter((e) => e.type === 'tool_call.approved');
    expect(approved).toHaveLength(1);
    expect(approved[0].metadata).toMatchObject({
      approvalRequestId: item.approvalId,
      channel: 'graphql',
      reason: 'checked against the orders',
      principal: { keyId: flow.keyIds.expert, role: 'expert' },
    });
  }
  // Nothing changed for the failed ones.
  const before = await rowsOf(flow.app, elsewhere.toolCallId);
  expect([before.approval!.status, before.approval!.reason, before.call.status]).toEqual(['rejected', 'not this one', 'blocked']);
  expect((await ledgerOf(flow.app, elsewhere.runId)).length).toBe(elsewhereLedger);
  const stillClient = await rowsOf(flow.app, client.toolCallId);
  expect([stillClient.approval!.status, stillClient.call.status, stillClient.run.pendingApprovalCount]).toEqual(['pending', 'waiting_approval', 1]);
  expect((await ledgerOf(flow.app, client.runId)).length).toBe(clientLedger);
});

test('a bulk rejection blocks each call with the reason as its note', async () => {
  const items = [await waitingCall(flow), await waitingCall(flow)];
  const res = await bulk(
    flow.keys.expert,
    items.map((i) => i.approvalId),
    'REJECT',
    'duplicate invoices',
  );
  expect(res.body.data!.resolveApprovals.map((r) => [r.approvalRequest!.status, r.approvalRequest!.reason, r.error])).toEqual([
    ['rejected', 'duplicate invoices', null],
    ['rejected', 'duplicate invoices', null],
  ]);
  for (const item of items) {
    const { call } = await rowsOf(flow.app, item.toolCallId);
    expect([call.status, call.errorCode]).toEqual(['blocked', 'EXPERT_REJECTED']);
    const rejected = (await ledgerOf(flow.app, item.runId)).find((e) => e.type === 'tool_call.rejected');
    expect(rejected?.metadata).toMatchObject({ note: 'duplicate invoices', channel: 'graphql' });
  }
});

test(`more than ${MAX_BULK_APPROVALS} ids, none, a repeated id or a bad reason: refused with its code, and nothing changes`, async () => {
  const item = await waitingCall(flow);
  const events = await countEvents();
  const filler = Array.from({ length: MAX_BULK_APPROVALS }, (_, i) => `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`);

  const over = await bulk(flow.keys.expert, [item.approvalId, ...filler], 'APPROVE');
  expect(errorCode(over)).toBe('TOO_MANY_APPROVALS');
  expect(over.body.errors![0].extensions).toMatchObject({ limit: MAX_BULK_APPROVALS });
  expect(over.body.data).toBeNull();
  expect(errorCode(await bulk(flow.keys.expert, [], 'APPROVE'))).toBe('BAD_USER_INPUT');
  expect(errorCode(await bulk(flow.keys.expert, [item.approvalId, item.approvalId], 'APPROVE'))).toBe('BAD_USER_INPUT');
  expect(errorCode(await bulk(flow.keys.expert, [item.approvalId], 'REJECT', 'x'.repeat(2001)))).toBe('BAD_USER_INPUT');

  const { approval, call } = await rowsOf(flow.app, item.toolCallId);
  expect([approval!.status, call.status]).toEqual(['pending', 'waiting_approval']);
  expect(await countEvents()).toBe(events);
  // Exactly the limit is taken.
  const full = await bulk(flow.keys.expert, [item.approvalId, ...filler.slice(1)], 'APPROVE');
  expect(full.body.data!.resolveApprovals).toHaveLength(MAX_BULK_APPROVALS);
  expect(full.body.data!.resolveApprovals[0].approvalRequest?.status).toBe('approved');
});

test('roles that resolve no approvals are refused as a whole (FORBIDDEN)', async () => {
  const item = await waitingCall(flow);
  for (const role of ['admin', 'agent', 'partner'] as const) {
    expect([role, errorCode(await bulk(flow.keys[role], [item.approvalId], 'APPROVE'))]).toEqual([role, 'FORBIDDEN']);
  }
  expect((await rowsOf(flow.app, item.toolCallId)).approval!.status).toBe('pending');
});
