import { useDemoApp } from '../support/demo-fixture';
import { UPSERT_POLICY_RULE } from '../support/documents';
import { rowOf } from './gateway-helpers';

/**
 * A policy outcome the gateway does not know (a future engine value, or a value read from
 * the database that no migration allowed) fails closed: the call is recorded blocked with
 * POLICY_OUTCOME_UNKNOWN and the vendor is never called.
 */
const demo = useDemoApp({}, { sandboxes: true });

/** Stands in for a newer engine: a rule row whose decision this build has never heard of. */
async function ruleWithUnknownOutcome(outcome: string): Promise<string> {
  const { upsertPolicyRule } = await demo.gw.ok(UPSERT_POLICY_RULE, {
    input: { name: 'future outcome', position: 1, toolPattern: 'order_lookup', risk: 'medium', decision: 'block' },
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
  const ruleId = await ruleWithUnknownOutcome('escalate_to_legal');
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
