import { errorCode } from '../support/app';
import { useDemoApp } from '../support/demo-fixture';
import { EXECUTE_APPROVED_TOOL_CALL, RESOLVE_APPROVAL } from '../support/documents';

/**
 * Informed approvers (issue 29, item 5): a reviewer who may resolve a pending approval sees
 * the call's real params — the sealed copy, not the redacted one the API and the ledger
 * keep — each view recorded in the ledger; any other role is refused. The binding still
 * holds: a view changes nothing, and the approved call runs exactly what was shown.
 */
const demo = useDemoApp({}, { sandboxes: true });

const REVEAL = 'mutation($id: ID!) { revealApprovalParams(id: $id) { approvalId toolCallId params hiddenPaths bindingHash } }';
const CARD = '4111 1111 1111 1111';
const INVOICE = { customerId: '1', amount: 50, description: `Paid by card ${CARD}, as agreed` };

async function pendingInvoice(params: Record<string, unknown> = INVOICE) {
  const run = await demo.gw.startRun();
  const waiting = await demo.gw.execute(run.id, 'invoice', 'send', params);
  expect(waiting.status).toBe('waiting_approval');
  return { runId: run.id, toolCallId: waiting.toolCallId, approvalId: waiting.approvalRequestId! };
}

const binding = async (approvalId: string) =>
  (await demo.app.em().execute<{ binding_hash: string }[]>('select binding_hash from approval_requests where id = ?', [approvalId]))[0].binding_hash;
const views = (toolCallId: string) =>
  demo.app
    .em()
    .execute<{ actor_key_id: string; actor_role: string; run_id: string; metadata: Record<string, unknown> }[]>(
      "select actor_key_id, actor_role, run_id, metadata from ledger_events where resource_id = ? and type = 'approval.params_viewed' order by sequence",
      [toolCallId],
    );
const keyIdOf = async (key: string) => (await demo.gw.ok('{ viewer { apiKeyId } }', {}, key)).viewer.apiKeyId as string;

test('an expert sees the real params of a pending expert approval, the hidden values named; the view is in the ledger and changes nothing', async () => {
  const pending = await pendingInvoice();
  const stored = await demo.gw.call(pending.toolCallId);
  expect(JSON.stringify(stored.input)).not.toContain(CARD); // what every reader sees: redacted
  const before = await binding(pending.approvalId);

  const res = await demo.app.gql(REVEAL, { key: demo.seed.keys.expert, variables: { id: pending.approvalId } });
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data?.revealApprovalParams).toEqual({
    approvalId: pending.approvalId,
    toolCallId: pending.toolCallId,
    params: INVOICE,
    hiddenPaths: ['/description'],
    bindingHash: before,
  });
  const expert = await keyIdOf(demo.seed.keys.expert);
  expect(await views(pending.toolCallId)).toEqual([
    {
      actor_key_id: expert,
      actor_role: 'expert',
      run_id: pending.runId,
      metadata: { approvalRequestId: pending.approvalId, kind: 'expert', viewer: { keyId: expert, role: 'expert' }, hiddenPaths: ['/description'] },
    },
  ]);

  // Nothing else moved: the binding, the approval, the call. What was seen is what runs.
  expect(await binding(pending.approvalId)).toBe(before);
  expect((await demo.gw.call(pending.toolCallId)).approvalRequest).toMatchObject({ status: 'pending' });
  await demo.gw.ok(RESOLVE_APPROVAL, { id: pending.approvalId, decision: 'APPROVE' }, demo.seed.keys.expert);
  const ran = await demo.app.gql(EXECUTE_APPROVED_TOOL_CALL, { key: demo.seed.keys.agent, variables: { id: pending.toolCallId } });
  expect(ran.body.data?.executeApprovedToolCall.status).toBe('succeeded');

  // Once resolved, the params are no longer shown (and the sealed copy is cleared after the call ran).
  expect(errorCode(await demo.app.gql(REVEAL, { key: demo.seed.keys.expert, variables: { id: pending.approvalId } }))).toBe(
    'APPROVAL_ALREADY_RESOLVED',
  );
  expect(await views(pending.toolCallId)).toHaveLength(1);
});

test('roles that do not resolve the approval are refused (FORBIDDEN) and nothing is recorded', async () => {
  const pending = await pendingInvoice();
  const events = await demo.gw.count('ledger_events');
  for (const role of ['admin', 'client', 'partner', 'agent'] as const) {
    const res = await demo.app.gql(REVEAL, { key: demo.seed.keys[role], variables: { id: pending.approvalId } });
    expect([role, errorCode(res)]).toEqual([role, 'FORBIDDEN']);
    expect(JSON.stringify(res.body)).not.toContain(CARD);
  }
  expect(errorCode(await demo.app.gql(REVEAL, { key: demo.seed.keys.expert, variables: { id: '00000000-0000-0000-0000-000000000000' } }))).toBe(
    'NOT_FOUND',
  );
  expect(await demo.gw.count('ledger_events')).toBe(events);
  expect(await views(pending.toolCallId)).toEqual([]);
});

test('a client approval is shown to client keys, and refused to experts', async () => {
  const rule = await demo.gw.ok('mutation($i: PolicyRuleInput!) { upsertPolicyRule(input: $i) { id } }', {
    i: {
      name: 'big invoices need the client',
      position: 1,
      toolPattern: 'invoice',
      actionPattern: 'send',
      conditions: [{ path: 'amount', op: 'gt', value: 1000 }],
      risk: 'high',
      decision: 'require_client_approval',
    },
  });
  try {
    const pending = await pendingInvoice({ ...INVOICE, amount: 5000 });
    expect(errorCode(await demo.app.gql(REVEAL, { key: demo.seed.keys.expert, variables: { id: pending.approvalId } }))).toBe('FORBIDDEN');
    const res = await demo.app.gql(REVEAL, { key: demo.seed.keys.client, variables: { id: pending.approvalId } });
    expect(res.body.data?.revealApprovalParams).toMatchObject({ params: { ...INVOICE, amount: 5000 }, hiddenPaths: ['/description'] });
    expect(await views(pending.toolCallId)).toEqual([
      expect.objectContaining({ actor_role: 'client', actor_key_id: await keyIdOf(demo.seed.keys.client) }),
    ]);
  } finally {
    await demo.gw.ok('mutation($id: ID!) { deletePolicyRule(id: $id) }', { id: rule.upsertPolicyRule.id });
  }
});
