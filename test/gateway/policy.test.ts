import { useDemoApp } from '../support/demo-fixture';
import { graphql } from '../gql';
import type { PolicyConditionInput, PolicyRuleInput } from '../gql/graphql';
import { CREATE_SPECIALIST, DELETE_POLICY_RULE, SET_SHADOW_MODE, UPSERT_POLICY_RULE } from '../support/documents';
import type { OrderLookupResult } from '../../src/vendors/shopify/order-lookup.action';
import { eventTrail, refusedOutcome, resultOf, rowOf, SAY } from './gateway-helpers';

/**
 * The policy engine as an org admin configures it and as the gateway enforces it: rules
 * written through upsertPolicyRule, calls made through executeToolCall, decisions read
 * back from the ToolCall, its PolicyDecision and its ledger events.
 */
const demo = useDemoApp({}, { sandboxes: true });

const RULES = graphql(`
  query PolicyRuleOrder {
    policyRules { id name position enabled }
  }
`);

type RuleInput = Omit<PolicyRuleInput, 'position' | 'risk' | 'decision'> & Partial<Pick<PolicyRuleInput, 'position' | 'risk' | 'decision'>>;

async function rule(input: RuleInput): Promise<string> {
  const data = await demo.gw.ok(UPSERT_POLICY_RULE, { input: { position: 10, risk: 'medium', decision: 'block', ...input } });
  return data.upsertPolicyRule.id;
}

// Every test starts from no rules and shadow mode off.
afterEach(async () => {
  const { policyRules } = await demo.gw.ok(RULES);
  for (const r of policyRules) await demo.gw.ok(DELETE_POLICY_RULE, { id: r.id });
  if ((await demo.gw.org()).policyShadowMode) await demo.gw.ok(SET_SHADOW_MODE, { enabled: false });
});

/** The decision of one call: which rule matched (null: the catalog default), and the outcome. */
async function decide(runId: string, toolName: string, action: string, params: unknown) {
  const out = await demo.gw.execute(runId, toolName, action, params);
  const call = await demo.gw.call(out.toolCallId);
  return { out, call, matched: call.policyDecision?.matchedRuleId ?? null, outcome: call.policyDecision?.outcome ?? null };
}

describe('a blocking rule with a condition (invoice.send, amount > 1000)', () => {
  test("over the bound: POLICY_BLOCKED with the rule's risk and the new version; under it: the catalog default (approval)", async () => {
    const versionBefore = (await demo.gw.org()).policyVersion;
    const ruleId = await rule({
      name: 'large invoices',
      position: 5,
      toolPattern: 'invoice',
      actionPattern: 'send',
      conditions: [{ path: 'amount', op: 'gt', value: 1000 }],
      risk: 'medium',
      decision: 'block',
    });
    const { policyVersion } = await demo.gw.org();
    expect(policyVersion).toBe(versionBefore + 1);
    const run = await demo.gw.startRun();
    const nangoBefore = demo.gw.vendorRequests('nango');

    const big = await demo.gw.execute(run.id, 'invoice', 'send', { customerId: '1', amount: 1500 }, { correlationId: 'corr-big' });
    expect(big).toEqual(refusedOutcome('blocked', 'POLICY_BLOCKED', SAY.POLICY_BLOCKED));
    const blocked = await demo.gw.call(big.toolCallId);
    expect(rowOf(blocked)).toEqual({
      status: 'blocked',
      errorCode: 'POLICY_BLOCKED',
      errorText: SAY.POLICY_BLOCKED,
      riskLevel: 'medium',
      reviewRequired: false,
      input: { customerId: '1', amount: 1500 },
      output: null,
      costCents: 0,
    });
    expect(blocked.policyDecision).toEqual({
      outcome: 'block',
      shadowOutcome: null,
      risk: 'medium',
      matchedRuleId: ruleId,
      policyVersion,
      callerRole: 'agent',
      reason: 'rule "large invoices" (position 5)',
      toolName: 'invoice',
      action: 'send',
      runId: run.id,
    });
    expect(blocked.ledgerEvents.map((e) => ({ type: e.type, metadata: e.metadata }))).toEqual([
      {
        type: 'tool_call.requested',
        metadata: {
          tool: 'invoice.send',
          correlationId: 'corr-big',
          decision: 'block',
          shadowDecision: null,
          risk: 'medium',
          matchedRuleId: ruleId,
          policyVersion,
        },
      },
      {
        type: 'tool_call.blocked',
        metadata: {
          tool: 'invoice.send',
          correlationId: 'corr-big',
          reason: 'policy_blocked',
          errorCode: 'POLICY_BLOCKED',
          matchedRuleId: ruleId,
        },
      },
    ]);

    const small = await demo.gw.execute(run.id, 'invoice', 'send', { customerId: '1', amount: 50 });
    expect(small).toMatchObject({ status: 'waiting_approval', error: null, result: null, approvalRequestId: expect.any(String) });
    const waiting = await demo.gw.call(small.toolCallId);
    expect(rowOf(waiting)).toEqual({
      status: 'waiting_approval',
      errorCode: null,
      errorText: null,
      riskLevel: 'high',
      reviewRequired: false,
      input: { customerId: '1', amount: 50 },
      output: null,
      costCents: 0,
    });
    expect(waiting.policyDecision).toMatchObject({
      outcome: 'require_expert_approval',
      shadowOutcome: null,
      risk: 'high',
      matchedRuleId: null,
      policyVersion,
      reason: 'no rule matched; catalog default risk high',
    });
    expect(waiting.approvalRequest).toEqual({ id: small.approvalRequestId, kind: 'expert', status: 'pending' });
    expect(eventTrail(waiting)).toEqual([
      { type: 'tool_call.requested', reason: undefined },
      { type: 'tool_call.approval_requested', reason: undefined },
    ]);
    expect(waiting.ledgerEvents[1].metadata).toMatchObject({ approvalRequestId: small.approvalRequestId, kind: 'expert' });
    // Neither call reached QuickBooks.
    expect(demo.gw.vendorRequests('nango')).toBe(nangoBefore);
    expect(await demo.gw.run(run.id)).toMatchObject({ status: 'waiting_approval', pendingApprovalCount: 1 });
  });
});

describe('no rule: the catalog default risk decides', () => {
  test('low → allow, medium → observe (runs, flagged for review), high → require_expert_approval', async () => {
    const run = await demo.gw.startRun();
    const low = await decide(run.id, 'order_lookup', 'lookup', { orderId: '12345' });
    expect(low.out.status).toBe('succeeded');
    expect(low.call).toMatchObject({ riskLevel: 'low', reviewRequired: false });
    expect(low.call.policyDecision).toMatchObject({ outcome: 'allow', risk: 'low', matchedRuleId: null });

    const medium = await decide(run.id, 'account_balance', 'lookup', {});
    expect(medium.out.status).toBe('succeeded');
    expect(medium.call).toMatchObject({ status: 'succeeded', riskLevel: 'medium', reviewRequired: true });
    expect(medium.call.policyDecision).toMatchObject({ outcome: 'observe', risk: 'medium', matchedRuleId: null });
    expect(eventTrail(medium.call)).toEqual([
      { type: 'tool_call.requested', reason: undefined },
      { type: 'tool_call.succeeded', reason: undefined },
    ]);

    const high = await decide(run.id, 'invoice', 'send', { customerId: '2', amount: 10 });
    expect(high.out).toMatchObject({ status: 'waiting_approval', approvalRequestId: expect.any(String) });
    expect(high.call).toMatchObject({ riskLevel: 'high', reviewRequired: false });
    expect(high.call.policyDecision).toMatchObject({ outcome: 'require_expert_approval', risk: 'high', matchedRuleId: null });
  });

  test('a rule can allow what the default holds back, and ask the client instead of an expert', async () => {
    const allowSmall = await rule({
      name: 'small invoices run',
      toolPattern: 'invoice',
      conditions: [{ path: 'amount', op: 'lt', value: 10 }],
      risk: 'low',
      decision: 'allow',
    });
    const clientApproves = await rule({
      name: 'client approves invoices',
      position: 20,
      toolPattern: 'invoice',
      risk: 'high',
      decision: 'require_client_approval',
    });
    const run = await demo.gw.startRun();
    const nangoBefore = demo.gw.vendorRequests('nango');

    const small = await decide(run.id, 'invoice', 'send', { customerId: '1', amount: 5 });
    expect(small.out.status).toBe('succeeded');
    expect(small.out.result).toMatchObject({ totalAmount: 5 });
    expect(small.matched).toBe(allowSmall);
    expect(rowOf(small.call)).toMatchObject({ status: 'succeeded', riskLevel: 'low', reviewRequired: false, costCents: 2 });
    expect(demo.gw.vendorRequests('nango')).toBeGreaterThan(nangoBefore);

    const other = await decide(run.id, 'invoice', 'send', { customerId: '1', amount: 500 });
    expect(other.out.status).toBe('waiting_approval');
    expect(other.matched).toBe(clientApproves);
    expect(other.call.approvalRequest).toMatchObject({ kind: 'client', status: 'pending' });
  });
});

describe('matching', () => {
  test('glob patterns: * any run, ? exactly one character, everything else literal', async () => {
    const querying = await rule({ name: '*_query', toolPattern: '*_query', risk: 'low' });
    const run = await demo.gw.startRun();
    expect((await decide(run.id, 'shopify_query', 'get_product', { productId: '632910392' })).matched).toBe(querying);
    expect((await decide(run.id, 'amazon_query', 'get_order', { orderId: '902-3159896-1390916' })).matched).toBe(querying);
    expect((await decide(run.id, 'order_lookup', 'lookup', { orderId: '12345' })).matched).toBeNull();

    const orders = await rule({ name: 'order_*', toolPattern: 'order_*', actionPattern: 'look*', position: 20, risk: 'low' });
    expect((await decide(run.id, 'order_lookup', 'lookup', { orderId: '12345' })).matched).toBe(orders);

    const single = await rule({ name: '?', toolPattern: 'invoic?', actionPattern: 'se?d', position: 30, risk: 'low' });
    expect((await decide(run.id, 'invoice', 'send', { customerId: '1', amount: 1 })).matched).toBe(single);
    await demo.gw.ok(DELETE_POLICY_RULE, { id: single });
    // `?` is one character, never none; `.` is literal, not "any character".
    await rule({ name: 'invoice?', toolPattern: 'invoice?', position: 30, risk: 'low' });
    await rule({ name: 'dot', toolPattern: 'order.lookup', position: 31, risk: 'low' });
    await demo.gw.ok(DELETE_POLICY_RULE, { id: orders });
    expect((await decide(run.id, 'invoice', 'send', { customerId: '1', amount: 1 })).matched).toBeNull();
    expect((await decide(run.id, 'order_lookup', 'lookup', { orderId: '12345' })).matched).toBeNull();
  });

  test.each<[string, PolicyConditionInput, Record<string, unknown>, Record<string, unknown>]>([
    ['equals', { path: 'currency', op: 'equals', value: 'EUR' }, { currency: 'EUR' }, { currency: 'USD' }],
    ['in', { path: 'customerId', op: 'in', value: ['2', '3'] }, { customerId: '3' }, { customerId: '1' }],
    ['lt', { path: 'amount', op: 'lt', value: 10 }, { amount: 9.99 }, { amount: 10 }],
    ['gt', { path: 'amount', op: 'gt', value: 1000 }, { amount: 1000.5 }, { amount: 1000 }],
    ['exists', { path: 'email', op: 'exists' }, { email: 'ap@example.com' }, {}],
    ['exists false', { path: 'email', op: 'exists', value: false }, {}, { email: 'ap@example.com' }],
  ])('condition %s matches only the call it describes', async (_label, condition, matching, other) => {
    const id = await rule({ name: `cond ${_label}`, toolPattern: 'invoice', actionPattern: 'send', conditions: [condition] });
    const run = await demo.gw.startRun();
    const hit = await decide(run.id, 'invoice', 'send', { customerId: '1', amount: 20, ...matching });
    expect(hit.matched).toBe(id);
    expect(hit.out.error?.code).toBe('POLICY_BLOCKED');
    const miss = await decide(run.id, 'invoice', 'send', { customerId: '1', amount: 20, ...other });
    expect(miss.matched).toBeNull();
    expect(miss.out.status).toBe('waiting_approval');
  });

  test('all conditions of a rule must hold', async () => {
    const id = await rule({
      name: 'big EUR',
      toolPattern: 'invoice',
      conditions: [
        { path: 'currency', op: 'equals', value: 'EUR' },
        { path: 'amount', op: 'gt', value: 100 },
      ],
    });
    const run = await demo.gw.startRun();
    expect((await decide(run.id, 'invoice', 'send', { customerId: '58', amount: 500, currency: 'EUR' })).matched).toBe(id);
    expect((await decide(run.id, 'invoice', 'send', { customerId: '58', amount: 50, currency: 'EUR' })).matched).toBeNull();
    expect((await decide(run.id, 'invoice', 'send', { customerId: '1', amount: 500, currency: 'USD' })).matched).toBeNull();
  });

  test('roles: a rule for admins does not match agent calls; one for agents does', async () => {
    await rule({ name: 'admins only', toolPattern: 'order_lookup', roles: ['admin'] });
    const run = await demo.gw.startRun();
    const free = await decide(run.id, 'order_lookup', 'lookup', { orderId: '12345' });
    expect(free.matched).toBeNull();
    expect(free.out.status).toBe('succeeded');

    const forAgents = await rule({ name: 'agents', toolPattern: 'order_lookup', roles: ['agent', 'expert'], position: 20 });
    const stopped = await decide(run.id, 'order_lookup', 'lookup', { orderId: '12345' });
    expect(stopped.matched).toBe(forAgents);
    expect(stopped.call.policyDecision).toMatchObject({ outcome: 'block', callerRole: 'agent' });
  });

  test('specialistId: a rule for one specialist leaves the others alone', async () => {
    const created = await demo.gw.ok(CREATE_SPECIALIST, { input: { name: 'Billing' } });
    const billing = created.createSpecialist.id;
    await demo.gw.bind(billing, 'order_lookup', 'lookup', true);
    const id = await rule({ name: 'billing may not look up orders', toolPattern: 'order_lookup', specialistId: billing });

    const billingRun = await demo.gw.startRun({ specialistId: billing });
    expect(billingRun.allowedTools).toEqual(['order_lookup.lookup']);
    const stopped = await decide(billingRun.id, 'order_lookup', 'lookup', { orderId: '12345' });
    expect(stopped.matched).toBe(id);
    expect(stopped.out.error?.code).toBe('POLICY_BLOCKED');

    const supportRun = await demo.gw.startRun();
    const free = await decide(supportRun.id, 'order_lookup', 'lookup', { orderId: '12345' });
    expect(free.matched).toBeNull();
    expect(free.out.status).toBe('succeeded');
  });

  test('the first matching rule by position wins; moving a rule changes who wins', async () => {
    const allow = await rule({ name: 'allow lookups', toolPattern: 'order_lookup', position: 10, risk: 'low', decision: 'allow' });
    const block = await rule({ name: 'block lookups', toolPattern: 'order_lookup', position: 5, risk: 'high', decision: 'block' });
    const run = await demo.gw.startRun();
    const first = await decide(run.id, 'order_lookup', 'lookup', { orderId: '12345' });
    expect(first.matched).toBe(block);
    expect(first.call).toMatchObject({ status: 'blocked', riskLevel: 'high', errorCode: 'POLICY_BLOCKED' });

    // Same rule (by id), new position: replaced, not duplicated.
    await rule({ id: block, name: 'block lookups', toolPattern: 'order_lookup', position: 50, risk: 'high', decision: 'block' });
    const { policyRules } = await demo.gw.ok(RULES);
    expect(policyRules.map((r) => [r.id, r.position])).toEqual([
      [allow, 10],
      [block, 50],
    ]);
    const second = await decide(run.id, 'order_lookup', 'lookup', { orderId: '12345' });
    expect(second.matched).toBe(allow);
    expect(second.call).toMatchObject({ status: 'succeeded', riskLevel: 'low' });
    expect(second.call.policyDecision?.reason).toBe('rule "allow lookups" (position 10)');
  });

  test('a disabled rule is listed but ignored; enabled again, it applies', async () => {
    const id = await rule({ name: 'off', toolPattern: 'order_lookup', enabled: false });
    expect((await demo.gw.ok(RULES)).policyRules).toEqual([{ id, name: 'off', position: 10, enabled: false }]);
    const run = await demo.gw.startRun();
    expect((await decide(run.id, 'order_lookup', 'lookup', { orderId: '12345' })).matched).toBeNull();
    await rule({ id, name: 'off', toolPattern: 'order_lookup', enabled: true });
    expect((await decide(run.id, 'order_lookup', 'lookup', { orderId: '12345' })).matched).toBe(id);
  });
});

describe('shadow mode', () => {
  test('a blocking rule only records what it would do: the call runs, flagged for review', async () => {
    const id = await rule({ name: 'block lookups', toolPattern: 'order_lookup', risk: 'high', decision: 'block' });
    const before = (await demo.gw.org()).policyVersion;
    const version = (await demo.gw.ok(SET_SHADOW_MODE, { enabled: true })).setPolicyShadowMode;
    expect(version).toBe(before + 1);
    expect(await demo.gw.org()).toEqual({ policyVersion: version, policyShadowMode: true });
    const run = await demo.gw.startRun();
    const shopifyBefore = demo.gw.vendorRequests('shopify');

    const shadowed = await decide(run.id, 'order_lookup', 'lookup', { orderId: '12345' });
    expect(shadowed.out).toMatchObject({ status: 'succeeded', error: null });
    expect(resultOf<OrderLookupResult>(shadowed.out).trackingNumbers).toEqual(['TRACK-001']);
    expect(demo.gw.vendorRequests('shopify')).toBe(shopifyBefore + 1);
    expect(rowOf(shadowed.call)).toMatchObject({ status: 'succeeded', errorCode: null, riskLevel: 'high', reviewRequired: true });
    expect(shadowed.call.policyDecision).toMatchObject({
      outcome: 'allow',
      shadowOutcome: 'block',
      risk: 'high',
      matchedRuleId: id,
      policyVersion: version,
      reason: 'shadow mode: rule "block lookups" (position 10)',
    });
    expect(shadowed.call.ledgerEvents.map((e) => e.type)).toEqual(['tool_call.requested', 'tool_call.succeeded']);
    expect(shadowed.call.ledgerEvents[0].metadata).toMatchObject({ decision: 'allow', shadowDecision: 'block', matchedRuleId: id });

    // What shadow mode lets through unchanged is not flagged.
    const plain = await decide(run.id, 'shopify_query', 'get_product', { productId: '632910392' });
    expect(plain.call.policyDecision).toMatchObject({ outcome: 'allow', shadowOutcome: 'allow', matchedRuleId: null });
    expect(plain.call.reviewRequired).toBe(false);

    // Off again: the rule blocks.
    await demo.gw.ok(SET_SHADOW_MODE, { enabled: false });
    const enforced = await decide(run.id, 'order_lookup', 'lookup', { orderId: '12345' });
    expect(enforced.call).toMatchObject({ status: 'blocked', errorCode: 'POLICY_BLOCKED' });
    expect(enforced.call.policyDecision).toMatchObject({ outcome: 'block', shadowOutcome: null });
  });
});
