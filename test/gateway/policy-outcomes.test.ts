import { useDemoApp } from '../support/demo-fixture';
import { EXECUTE_APPROVED_TOOL_CALL, RESOLVE_APPROVAL, UPSERT_POLICY_RULE } from '../support/documents';
import { QBO_DEMO_CUSTOMERS } from '../../src/vendors/nango/nango.sandbox-data';
import { effectOf, POLICY_OUTCOME_EFFECTS, reviewRequiredBy } from '../../src/policy/policy-outcomes';
import { rowOf } from './gateway-helpers';

/**
 * A policy outcome the gateway does not know (a future engine value, or a value read from
 * the database that no migration allowed) fails closed: the call is recorded blocked with
 * POLICY_OUTCOME_UNKNOWN and the vendor is never called.
 */
const demo = useDemoApp({}, { sandboxes: true });

/** Stands in for a newer engine: a rule row whose decision this build has never heard of. */
async function ruleWithUnknownOutcome(outcome: string, toolPattern: string): Promise<string> {
  const { upsertPolicyRule } = await demo.gw.ok(UPSERT_POLICY_RULE, {
    input: { name: `future outcome for ${toolPattern}`, position: 0, toolPattern, risk: 'medium', decision: 'block' },
  });
  const em = demo.app.em();
  // The checks would refuse the value: the point is what the gateway does when one gets through.
  await em.execute('alter table policy_rules drop constraint if exists policy_rules_decision_check');
  await em.execute('alter table policy_decisions drop constraint if exists policy_decisions_outcome_check');
  await em.execute('update policy_rules set decision = ? where id = ?', [outcome, upsertPolicyRule.id]);
  // The gateway reloads an org's rules when its config version moves.
  await em.execute('update orgs set config_version = config_version + 1 where id = ?', [demo.seed.orgId]);
  return upsertPolicyRule.id;
}

test('an unknown outcome blocks the call with POLICY_OUTCOME_UNKNOWN; the vendor is never called', async () => {
  const ruleId = await ruleWithUnknownOutcome('escalate_to_legal', 'order_lookup');
  const run = await demo.gw.startRun();
  const shopifyBefore = demo.gw.vendorRequests('shopify');

  const out = await demo.gw.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' });
  expect(out).toMatchObject({ status: 'blocked', result: null, error: { code: 'POLICY_OUTCOME_UNKNOWN' }, approvalRequestId: null });
  expect(demo.gw.vendorRequests('shopify')).toBe(shopifyBefore);

  const call = await demo.gw.call(out.toolCallId);
  expect(rowOf(call)).toMatchObject({ status: 'blocked', errorCode: 'POLICY_OUTCOME_UNKNOWN', output: null, costCents: 0 });
  // What was enforced is recorded (a block), and the reason names the value that was not understood.
  expect(call.policyDecision).toMatchObject({ outcome: 'block', matchedRuleId: ruleId });
  expect(call.policyDecision?.reason).toContain('escalate_to_legal');
  expect(call.ledgerEvents.map((e) => [e.type, e.metadata.errorCode ?? null])).toEqual([
    ['tool_call.requested', null],
    ['tool_call.blocked', 'POLICY_OUTCOME_UNKNOWN'],
  ]);
  expect(call.approvalRequest).toBeNull();
});

test('an approved call whose policy now decides an unknown outcome is blocked when executed, not run', async () => {
  const run = await demo.gw.startRun();
  const invoice = { customerId: QBO_DEMO_CUSTOMERS.amys, amount: 45 };
  const waiting = await demo.gw.execute(run.id, 'invoice', 'send', invoice, { toolUseId: 'toolu_unknown_after_approval' });
  expect(waiting.status).toBe('waiting_approval');
  await ruleWithUnknownOutcome('escalate_to_legal', 'invoice');
  await demo.gw.ok(RESOLVE_APPROVAL, { id: waiting.approvalRequestId!, decision: 'APPROVE' }, demo.seed.keys.expert);
  const nangoBefore = demo.gw.vendorRequests('nango');

  const done = (await demo.gw.ok(EXECUTE_APPROVED_TOOL_CALL, { id: waiting.toolCallId }, demo.seed.keys.agent)).executeApprovedToolCall;
  expect(done).toMatchObject({ status: 'blocked', error: { code: 'POLICY_OUTCOME_UNKNOWN' } });
  expect(demo.gw.vendorRequests('nango')).toBe(nangoBefore);
  const call = await demo.gw.call(waiting.toolCallId);
  expect(call.ledgerEvents.find((e) => e.type === 'tool_call.blocked')?.metadata).toMatchObject({
    reason: 'policy_outcome_unknown',
    errorCode: 'POLICY_OUTCOME_UNKNOWN',
    reevaluated: true,
  });
});

test('the table: every outcome has its effect; anything else fails closed', () => {
  expect(Object.keys(POLICY_OUTCOME_EFFECTS)).toEqual(['allow', 'observe', 'require_expert_approval', 'require_client_approval', 'block']);
  for (const unknown of ['escalate', '', undefined, null, 'toString', '__proto__']) {
    expect(effectOf(unknown)).toEqual({ callStatus: 'blocked', approver: null, reviewRequired: false, blockCode: 'POLICY_OUTCOME_UNKNOWN' });
  }
  // Shadow mode lets anything through; what the rules would not simply have allowed is flagged, an unknown outcome included.
  expect(reviewRequiredBy('allow', 'allow')).toBe(false);
  expect(reviewRequiredBy('allow', null)).toBe(false);
  expect(reviewRequiredBy('observe', null)).toBe(true);
  expect(reviewRequiredBy('allow', 'require_client_approval')).toBe(true);
  expect(reviewRequiredBy('allow', 'escalate')).toBe(true);
});
