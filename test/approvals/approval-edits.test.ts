import { graphql } from '../gql';
import { newOrg } from '../support/factories';
import { UPSERT_POLICY_RULE } from '../support/documents';
import type { PolicyRuleInput } from '../gql/graphql';
import { QBO_DEMO_CUSTOMERS } from '../../src/vendors/nango/nango.sandbox-data';
import { EDITED_NOTICE } from '../../src/gateway/edited-notice';
import { resultBlock } from '../../src/runs/tool-results';
import { storedOutcome } from '../../src/runs/tool-results';
import {
  CLIENT_AMOUNT,
  EXPERT_AMOUNT,
  errorCode,
  invoicePosts,
  ledgerOf,
  requestInvoice,
  rowsOf,
  startRun,
  useFlow,
  type Flow,
} from './approval-flow';

/**
 * Approve with edits (issue 17, item 2): a reviewer approves a call with other params. The
 * edit is checked like a call — input schema, then policy again — and refused when it would
 * need more than this approval gives; an accepted edit runs with exactly the edited params,
 * and the approval, the call, the ledger and the model's result all say so.
 *
 * Rules of this suite, on top of the flow's (invoices above 1000 → client, high):
 *   currency XBT → block; amount < 50 → observe (low); amount < 100 → expert (medium);
 *   otherwise the catalog's default for invoice.send: expert (high).
 */
const EXTRA_RULES: PolicyRuleInput[] = [
  {
    name: 'No bitcoin invoices',
    position: 1,
    toolPattern: 'invoice',
    actionPattern: 'send',
    conditions: [{ path: 'currency', op: 'equals', value: 'XBT' }],
    risk: 'high',
    decision: 'block',
  },
  {
    name: 'Tiny invoices are observed',
    position: 2,
    toolPattern: 'invoice',
    actionPattern: 'send',
    conditions: [{ path: 'amount', op: 'lt', value: 50 }],
    risk: 'low',
    decision: 'observe',
  },
  {
    name: 'Small invoices are medium risk',
    position: 3,
    toolPattern: 'invoice',
    actionPattern: 'send',
    conditions: [{ path: 'amount', op: 'lt', value: 100 }],
    risk: 'medium',
    decision: 'require_expert_approval',
  },
];

const RESOLVE_WITH_EDITS = graphql(`
  mutation ResolveWithEdits($id: ID!, $decision: ApprovalDecision!, $reason: String, $editedParams: JSONObject) {
    resolveApproval(id: $id, decision: $decision, reason: $reason, editedParams: $editedParams) {
      id status kind resolvedBy reason edited editedParams editedBy
    }
  }
`);

const EXECUTE_APPROVED_EDITED = graphql(`
  mutation ExecuteApprovedEdited($id: ID!) {
    executeApprovedToolCall(toolCallId: $id) { status toolCallId result error { code message } approvalRequestId replayed editedParams }
  }
`);

const EDITED_CALL = graphql(`
  query EditedCall($id: ID!) {
    toolCall(id: $id) {
      id status input editedInput riskLevel
      policyDecision { outcome risk }
      approvalRequest { id status edited editedParams editedBy }
    }
  }
`);

const flow = useFlow();

beforeAll(async () => {
  for (const input of EXTRA_RULES) {
    const res = await flow.app.gql(UPSERT_POLICY_RULE, { key: flow.keys.admin, variables: { input } });
    if (res.body.errors) throw new Error(`upsertPolicyRule failed: ${JSON.stringify(res.body.errors)}`);
  }
});

const CARD = '4111 1111 1111 1111';

function resolveEdited(key: string, id: string, editedParams: Record<string, unknown> | null, decision: 'APPROVE' | 'REJECT' = 'APPROVE') {
  return flow.app.gql(RESOLVE_WITH_EDITS, { key, variables: { id, decision, reason: 'checked with the customer', editedParams } });
}

/** A run waiting for one approval of an invoice of `amount`. */
async function waitingInvoice(f: Flow, amount: number, kind: 'expert' | 'client') {
  const runId = await startRun(f);
  const call = await requestInvoice(f, runId, { customerId: QBO_DEMO_CUSTOMERS.amys, amount });
  expect(call.status).toBe('waiting_approval');
  const { approval } = await rowsOf(f.app, call.toolCallId);
  expect(approval!.kind).toBe(kind);
  return { runId, toolCallId: call.toolCallId, approvalId: call.approvalRequestId! };
}

/** The QuickBooks invoice bodies the sandbox received, in order. */
function invoiceBodies(): { Line: { Amount: number; Description?: string }[] }[] {
  return flow.app
    .sandbox!.requests.filter((r) => r.vendor === 'nango' && r.method === 'POST' && r.path.endsWith('/invoice'))
    .map((r) => r.body as { Line: { Amount: number; Description?: string }[] });
}

async function policyDecisionCount(runId: string): Promise<number> {
  const [row] = await flow.app.em().execute<{ n: string }[]>('select count(*) as n from policy_decisions where run_id = ?', [runId]);
  return Number(row.n);
}

/** Everything a refused edit must leave as it was. */
async function snapshot(runId: string, toolCallId: string) {
  const { call, approval, run } = await rowsOf(flow.app, toolCallId);
  return {
    approval: {
      status: approval!.status,
      resolvedBy: approval!.resolvedBy,
      resolvedAt: approval!.resolvedAt,
      bindingHash: approval!.bindingHash,
      requestedBindingHash: approval!.requestedBindingHash,
      sealedParams: approval!.sealedParams,
      editedParamsRedacted: approval!.editedParamsRedacted,
      editedBy: approval!.editedBy,
    },
    call: { status: call.status, input: call.inputRedacted, editedInput: call.editedInputRedacted, updatedAt: call.updatedAt },
    run: { status: run.status, pending: run.pendingApprovalCount },
    ledger: (await ledgerOf(flow.app, runId)).length,
    decisions: await policyDecisionCount(runId),
  };
}

describe('an accepted edit', () => {
  test('an expert lowers the amount: the approval records the edit, the vendor receives exactly the edited params', async () => {
    const { runId, toolCallId, approvalId } = await waitingInvoice(flow, EXPERT_AMOUNT, 'expert');
    const before = await rowsOf(flow.app, toolCallId);
    const edited = { customerId: QBO_DEMO_CUSTOMERS.amys, amount: 99, description: `Bird seed, paid with card ${CARD}` };

    const res = await resolveEdited(flow.keys.expert, approvalId, edited);
    expect(res.body.errors).toBeUndefined();
    // Redacted as stored: the card number never leaves sealed storage in clear.
    const redacted = { customerId: QBO_DEMO_CUSTOMERS.amys, amount: 99, description: 'Bird seed, paid with card [REDACTED]' };
    expect(res.body.data!.resolveApproval).toEqual({
      id: approvalId,
      status: 'approved',
      kind: 'expert',
      resolvedBy: flow.keyIds.expert,
      reason: 'checked with the customer',
      edited: true,
      editedParams: redacted,
      editedBy: flow.keyIds.expert,
    });

    const { call, approval, run } = await rowsOf(flow.app, toolCallId);
    expect(call.status).toBe('approved');
    expect(call.inputRedacted).toEqual({ customerId: QBO_DEMO_CUSTOMERS.amys, amount: EXPERT_AMOUNT });
    expect(call.editedInputRedacted).toEqual(redacted);
    expect(approval!.requestedBindingHash).toBe(before.approval!.bindingHash);
    expect(approval!.bindingHash).not.toBe(before.approval!.bindingHash);
    expect(JSON.stringify(approval!.sealedParams)).not.toContain(CARD);
    expect(approval!.sealedParams).not.toEqual(before.approval!.sealedParams);
    expect(run.status).toBe('running');

    // The ledger: the approval carries the requested and the edited params (redacted) and who edited.
    const events = await ledgerOf(flow.app, runId);
    expect(events.map((e) => e.type).slice(-2)).toEqual(['tool_call.approved', 'run.resumed']);
    const approved = events[events.length - 2];
    expect(approved.actorKeyId).toBe(flow.keyIds.expert);
    expect(approved.actorRole).toBe('expert');
    expect(approved.metadata).toMatchObject({
      approvalRequestId: approvalId,
      kind: 'expert',
      edited: true,
      originalParams: { customerId: QBO_DEMO_CUSTOMERS.amys, amount: EXPERT_AMOUNT },
      editedParams: redacted,
      editedBy: flow.keyIds.expert,
      editorRole: 'expert',
      editDecision: 'require_expert_approval',
      editRisk: 'medium',
    });
    expect(JSON.stringify(events.map((e) => e.metadata))).not.toContain(CARD);
    // Policy was evaluated again, and that evaluation is recorded as a decision of its own.
    expect(await policyDecisionCount(runId)).toBe(2);
    const [decision] = await flow.app
      .em()
      .execute<{ outcome: string; risk: string; reason: string }[]>('select outcome, risk, reason from policy_decisions where id = ?', [
        approved.metadata.editPolicyDecisionId,
      ]);
    expect(decision).toMatchObject({ outcome: 'require_expert_approval', risk: 'medium' });
    expect(decision.reason).toMatch(/^approval edit: rule "Small invoices are medium risk"/);

    // The call runs with exactly the edited params, and the answer says they were changed.
    const postsBefore = invoiceBodies().length;
    const exec = await flow.app.gql(EXECUTE_APPROVED_EDITED, { key: flow.keys.agent, variables: { id: toolCallId } });
    expect(exec.body.errors).toBeUndefined();
    expect(exec.body.data!.executeApprovedToolCall).toMatchObject({
      status: 'succeeded',
      replayed: false,
      error: null,
      result: { totalAmount: 99, customerId: QBO_DEMO_CUSTOMERS.amys },
      editedParams: redacted,
    });
    const bodies = invoiceBodies();
    expect(bodies).toHaveLength(postsBefore + 1);
    expect(bodies.at(-1)!.Line[0]).toMatchObject({ Amount: 99, Description: `Bird seed, paid with card ${CARD}` });

    // A repeat replays, still saying the params were edited; nothing runs again.
    const again = await flow.app.gql(EXECUTE_APPROVED_EDITED, { key: flow.keys.agent, variables: { id: toolCallId } });
    expect(again.body.data!.executeApprovedToolCall).toMatchObject({ status: 'succeeded', replayed: true, editedParams: redacted });
    expect(invoiceBodies()).toHaveLength(postsBefore + 1);

    const view = await flow.app.gql(EDITED_CALL, { key: flow.keys.expert, variables: { id: toolCallId } });
    expect(view.body.errors).toBeUndefined();
    expect(view.body.data!.toolCall).toMatchObject({
      status: 'succeeded',
      input: { customerId: QBO_DEMO_CUSTOMERS.amys, amount: EXPERT_AMOUNT },
      editedInput: redacted,
      // The call's own decision stays the one it was requested under.
      policyDecision: { outcome: 'require_expert_approval', risk: 'high' },
      approvalRequest: { id: approvalId, status: 'approved', edited: true, editedParams: redacted, editedBy: flow.keyIds.expert },
    });

    // What the model is told: the result, with a notice and the params it ran with.
    const { call: settled } = await rowsOf(flow.app, toolCallId);
    const block = resultBlock('toolu_1', storedOutcome(settled));
    const told = JSON.parse(String(block.content));
    expect(told).toMatchObject({ notice: EDITED_NOTICE, editedParams: redacted, result: { totalAmount: 99 } });
  });

  test('an edit down to an observed amount (lower risk, no approver needed) is accepted: this approval still releases it', async () => {
    const { toolCallId, approvalId } = await waitingInvoice(flow, EXPERT_AMOUNT, 'expert');
    const res = await resolveEdited(flow.keys.expert, approvalId, { customerId: QBO_DEMO_CUSTOMERS.amys, amount: 30 });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.resolveApproval).toMatchObject({ status: 'approved', edited: true, editedParams: { amount: 30 } });
    const exec = await flow.app.gql(EXECUTE_APPROVED_EDITED, { key: flow.keys.agent, variables: { id: toolCallId } });
    expect(exec.body.data!.executeApprovedToolCall).toMatchObject({ status: 'succeeded', result: { totalAmount: 30 } });
    expect(invoiceBodies().at(-1)!.Line[0].Amount).toBe(30);
  });

  test('a client edits a client approval to another amount that still needs the client: accepted', async () => {
    const { toolCallId, approvalId } = await waitingInvoice(flow, CLIENT_AMOUNT, 'client');
    const res = await resolveEdited(flow.keys.client, approvalId, { customerId: QBO_DEMO_CUSTOMERS.amys, amount: 2000 });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.resolveApproval).toMatchObject({ status: 'approved', kind: 'client', edited: true, editedBy: flow.keyIds.client });
    const exec = await flow.app.gql(EXECUTE_APPROVED_EDITED, { key: flow.keys.agent, variables: { id: toolCallId } });
    expect(exec.body.data!.executeApprovedToolCall).toMatchObject({ status: 'succeeded', result: { totalAmount: 2000 } });
  });

  test('editedParams equal to the requested ones are a plain approval', async () => {
    const { runId, toolCallId, approvalId } = await waitingInvoice(flow, EXPERT_AMOUNT, 'expert');
    const before = await rowsOf(flow.app, toolCallId);
    // Same params, keys in another order: the canonical form is the same call.
    const res = await resolveEdited(flow.keys.expert, approvalId, { amount: EXPERT_AMOUNT, customerId: QBO_DEMO_CUSTOMERS.amys });
    expect(res.body.data!.resolveApproval).toMatchObject({ status: 'approved', edited: false, editedParams: null, editedBy: null });
    const { call, approval } = await rowsOf(flow.app, toolCallId);
    expect(approval!.bindingHash).toBe(before.approval!.bindingHash);
    expect(approval!.requestedBindingHash).toBeNull();
    expect(call.editedInputRedacted).toBeNull();
    expect(await policyDecisionCount(runId)).toBe(1);
    const exec = await flow.app.gql(EXECUTE_APPROVED_EDITED, { key: flow.keys.agent, variables: { id: toolCallId } });
    expect(exec.body.data!.executeApprovedToolCall).toMatchObject({
      status: 'succeeded',
      editedParams: null,
      result: { totalAmount: EXPERT_AMOUNT },
    });
  });
});

describe('a refused edit changes nothing', () => {
  const refusals: [string, number, 'expert' | 'client', Record<string, unknown>, string][] = [
    ['a higher risk (medium → high, same approver)', 75, 'expert', { amount: EXPERT_AMOUNT }, 'higher_risk'],
    ['another approver (expert → client)', EXPERT_AMOUNT, 'expert', { amount: CLIENT_AMOUNT }, 'other_approver'],
    ['another approver (client → expert)', CLIENT_AMOUNT, 'client', { amount: 500 }, 'other_approver'],
    ['a block', EXPERT_AMOUNT, 'expert', { amount: EXPERT_AMOUNT, currency: 'XBT' }, 'blocked'],
  ];
  test.each(refusals)('%s → APPROVAL_EDIT_ESCALATES; still pending, then approvable as requested', async (_name, amount, kind, change, reason) => {
    const { runId, toolCallId, approvalId } = await waitingInvoice(flow, amount, kind);
    const before = await snapshot(runId, toolCallId);
    const key = kind === 'expert' ? flow.keys.expert : flow.keys.client;
    const res = await resolveEdited(key, approvalId, { customerId: QBO_DEMO_CUSTOMERS.amys, ...change });
    expect(errorCode(res)).toBe('APPROVAL_EDIT_ESCALATES');
    expect(res.body.errors![0].extensions).toMatchObject({ code: 'APPROVAL_EDIT_ESCALATES', reason });
    expect(await snapshot(runId, toolCallId)).toEqual(before);
    expect(before.approval.status).toBe('pending');

    // Unchanged, it can still be approved as requested and runs with the requested amount.
    const plain = await resolveEdited(key, approvalId, null);
    expect(plain.body.data!.resolveApproval).toMatchObject({ status: 'approved', edited: false });
    const exec = await flow.app.gql(EXECUTE_APPROVED_EDITED, { key: flow.keys.agent, variables: { id: toolCallId } });
    expect(exec.body.data!.executeApprovedToolCall).toMatchObject({ status: 'succeeded', result: { totalAmount: amount }, editedParams: null });
  });

  test("params that fail the tool's input schema → INVALID_TOOL_INPUT with where, never the values", async () => {
    const { runId, toolCallId, approvalId } = await waitingInvoice(flow, EXPERT_AMOUNT, 'expert');
    const before = await snapshot(runId, toolCallId);
    for (const bad of [
      { customerId: QBO_DEMO_CUSTOMERS.amys, amount: -5 },
      { customerId: QBO_DEMO_CUSTOMERS.amys },
      { customerId: QBO_DEMO_CUSTOMERS.amys, amount: 10, apiKey: 'sk_live_51HxYzAbCdEfGhIjKlMnOpQr' },
    ]) {
      const res = await resolveEdited(flow.keys.expert, approvalId, bad);
      expect(errorCode(res)).toBe('INVALID_TOOL_INPUT');
      expect(res.body.errors![0].extensions).toMatchObject({ field: 'editedParams', problems: expect.any(Array) });
      expect(JSON.stringify(res.body.errors)).not.toContain('sk_live_');
    }
    expect(await snapshot(runId, toolCallId)).toEqual(before);
  });

  test('editedParams with REJECT → BAD_USER_INPUT; not a JSON object → refused by GraphQL; nothing changed', async () => {
    const { runId, toolCallId, approvalId } = await waitingInvoice(flow, EXPERT_AMOUNT, 'expert');
    const before = await snapshot(runId, toolCallId);
    const rejected = await resolveEdited(flow.keys.expert, approvalId, { customerId: QBO_DEMO_CUSTOMERS.amys, amount: 10 }, 'REJECT');
    expect(errorCode(rejected)).toBe('BAD_USER_INPUT');
    expect(rejected.body.errors![0].extensions).toMatchObject({ field: 'editedParams' });
    const notObject = await flow.app.gql(
      'mutation($id: ID!, $p: JSONObject) { resolveApproval(id: $id, decision: APPROVE, editedParams: $p) { id } }',
      { key: flow.keys.expert, variables: { id: approvalId, p: [1, 2] } },
    );
    expect(notObject.body.errors).toBeDefined();
    expect(await snapshot(runId, toolCallId)).toEqual(before);
  });

  test("another org's expert → NOT_FOUND; the wrong role → FORBIDDEN; an approval already resolved → APPROVAL_ALREADY_RESOLVED", async () => {
    const { runId, toolCallId, approvalId } = await waitingInvoice(flow, EXPERT_AMOUNT, 'expert');
    const before = await snapshot(runId, toolCallId);
    const edit = { customerId: QBO_DEMO_CUSTOMERS.amys, amount: 99 };
    const other = await newOrg(flow.app.em());
    expect(errorCode(await resolveEdited(other.keys.expert, approvalId, edit))).toBe('NOT_FOUND');
    expect(errorCode(await resolveEdited(flow.keys.client, approvalId, edit))).toBe('FORBIDDEN');
    expect(errorCode(await resolveEdited(flow.keys.admin, approvalId, edit))).toBe('FORBIDDEN');
    expect(await snapshot(runId, toolCallId)).toEqual(before);

    expect((await resolveEdited(flow.keys.expert, approvalId, edit)).body.data!.resolveApproval.edited).toBe(true);
    const after = await snapshot(runId, toolCallId);
    // A second resolution, with another edit, is refused and changes nothing (single use).
    const again = await resolveEdited(flow.keys.expert, approvalId, { customerId: QBO_DEMO_CUSTOMERS.amys, amount: 30 });
    expect(errorCode(again)).toBe('APPROVAL_ALREADY_RESOLVED');
    expect(await snapshot(runId, toolCallId)).toEqual(after);
  });

  test('two concurrent edits: one wins, the call runs once with its params', async () => {
    const { toolCallId, approvalId } = await waitingInvoice(flow, EXPERT_AMOUNT, 'expert');
    const answers = await Promise.all([
      resolveEdited(flow.keys.expert, approvalId, { customerId: QBO_DEMO_CUSTOMERS.amys, amount: 99 }),
      resolveEdited(flow.keys.expert, approvalId, { customerId: QBO_DEMO_CUSTOMERS.amys, amount: 30 }),
    ]);
    const won = answers.filter((a) => !a.body.errors);
    expect(won).toHaveLength(1);
    expect(answers.filter((a) => errorCode(a) === 'APPROVAL_ALREADY_RESOLVED')).toHaveLength(1);
    const amount = (won[0].body.data!.resolveApproval.editedParams as { amount: number }).amount;
    const postsBefore = invoicePosts(flow.app);
    const exec = await flow.app.gql(EXECUTE_APPROVED_EDITED, { key: flow.keys.agent, variables: { id: toolCallId } });
    expect(exec.body.data!.executeApprovedToolCall).toMatchObject({ status: 'succeeded', result: { totalAmount: amount } });
    expect(invoicePosts(flow.app)).toBe(postsBefore + 1);
    expect(invoiceBodies().at(-1)!.Line[0].Amount).toBe(amount);
  });
});

/**
 * Edit the visible fields only (issue 30, item 3): the reviewer edits the stored copy, where a
 * hidden value is a redaction marker. Giving that stored value back unchanged keeps the sealed
 * one (merged on the server); a marker anywhere else is refused, as it would run as it stands.
 */
describe('hidden values left as stored', () => {
  const hiddenInvoice = (amount: number) => ({ customerId: QBO_DEMO_CUSTOMERS.amys, amount, description: `Paid by card ${CARD}, as agreed` });
  const STORED_DESCRIPTION = 'Paid by card [REDACTED], as agreed';
  const waitingHidden = async () => {
    const runId = await startRun(flow);
    const call = await requestInvoice(flow, runId, hiddenInvoice(EXPERT_AMOUNT));
    expect(call.status).toBe('waiting_approval');
    return { runId, toolCallId: call.toolCallId, approvalId: call.approvalRequestId! };
  };

  test('only the amount changed: accepted, the vendor receives the new amount and the sealed description; the stored copies stay redacted', async () => {
    const { runId, toolCallId, approvalId } = await waitingHidden();
    const { call: requested } = await rowsOf(flow.app, toolCallId);
    expect(requested.inputRedacted).toEqual({ ...hiddenInvoice(EXPERT_AMOUNT), description: STORED_DESCRIPTION });
    const edited = { ...(requested.inputRedacted as Record<string, unknown>), amount: 99 };

    const res = await resolveEdited(flow.keys.expert, approvalId, edited);
    expect(res.body.errors).toBeUndefined();
    const redacted = { ...hiddenInvoice(99), description: STORED_DESCRIPTION };
    expect(res.body.data!.resolveApproval).toMatchObject({ status: 'approved', edited: true, editedParams: redacted });
    const { call, approval } = await rowsOf(flow.app, toolCallId);
    expect(call.editedInputRedacted).toEqual(redacted);
    expect(JSON.stringify(approval!.sealedParams)).not.toContain(CARD);
    const approved = (await ledgerOf(flow.app, runId)).find((e) => e.type === 'tool_call.approved')!;
    expect(approved.metadata).toMatchObject({ edited: true, editedParams: redacted, editRisk: 'medium' });
    expect(JSON.stringify(approved.metadata)).not.toContain(CARD);

    const exec = await flow.app.gql(EXECUTE_APPROVED_EDITED, { key: flow.keys.agent, variables: { id: toolCallId } });
    expect(exec.body.data!.executeApprovedToolCall).toMatchObject({ status: 'succeeded', result: { totalAmount: 99 }, editedParams: redacted });
    expect(invoiceBodies().at(-1)!.Line[0]).toMatchObject({ Amount: 99, Description: `Paid by card ${CARD}, as agreed` });
  });

  test('a marker where nothing was hidden, or a hidden value changed in part → APPROVAL_EDIT_REDACTED_VALUE with the path; nothing changed', async () => {
    const { runId, toolCallId, approvalId } = await waitingHidden();
    const before = await snapshot(runId, toolCallId);
    for (const [bad, path] of [
      [{ ...hiddenInvoice(99), description: STORED_DESCRIPTION, customerId: '[REDACTED]' }, '/customerId'],
      [{ ...hiddenInvoice(99), description: 'Paid by card [REDACTED], late' }, '/description'],
      [{ ...hiddenInvoice(99), description: '[REDACTED]' }, '/description'],
    ] as const) {
      const res = await resolveEdited(flow.keys.expert, approvalId, bad);
      expect([path, errorCode(res)]).toEqual([path, 'APPROVAL_EDIT_REDACTED_VALUE']);
      expect(res.body.errors![0].extensions).toMatchObject({ field: 'editedParams', path });
      expect(JSON.stringify(res.body.errors)).not.toContain(CARD);
    }
    expect(await snapshot(runId, toolCallId)).toEqual(before);
  });

  test('a call with nothing hidden: a marker anywhere is refused', async () => {
    const runId = await startRun(flow);
    const call = await requestInvoice(flow, runId, { customerId: QBO_DEMO_CUSTOMERS.amys, amount: EXPERT_AMOUNT, description: 'Bird seed' });
    const before = await snapshot(runId, call.toolCallId);
    const res = await resolveEdited(flow.keys.expert, call.approvalRequestId!, {
      customerId: QBO_DEMO_CUSTOMERS.amys,
      amount: 99,
      description: '[REDACTED]',
    });
    expect(errorCode(res)).toBe('APPROVAL_EDIT_REDACTED_VALUE');
    expect(await snapshot(runId, call.toolCallId)).toEqual(before);
  });
});
