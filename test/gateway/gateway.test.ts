import { useDemoApp } from '../support/demo-fixture';
import { ORG_FEATURE_FLAGS } from '../support/documents';
import { redactOutput } from '../../src/redaction/redact';
import { JUMIO_DEMO_ACCOUNT_ID, JUMIO_DEMO_EXECUTIONS } from '../../src/vendors/jumio/jumio.sandbox-data';
import type { AccountBalanceResult } from '../../src/vendors/nango/account-balance.action';
import type { OrderLookupResult } from '../../src/vendors/shopify/order-lookup.action';
import { blockedBeforePolicy, blockedEvents, blockedTrail, eventTrail, refusedOutcome, resultOf, rowOf, SAY } from './gateway-helpers';

/**
 * The gateway end to end over GraphQL, against the real vendor sandboxes: the happy path
 * (ADR-029 steps 5-12), costs, redaction of what is stored, the feature flag and the
 * global kill switch (failure mode 1), and one vendor failure (failure mode 4).
 */
describe('gateway on the demo org', () => {
  const demo = useDemoApp({}, { sandboxes: true });

  test('order_lookup.lookup succeeds: full result to the agent, redacted output stored, requested → succeeded', async () => {
    const run = await demo.gw.startRun();
    const { policyVersion } = await demo.gw.org();
    const shopifyBefore = demo.gw.vendorRequests('shopify');

    const out = await demo.gw.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' }, { correlationId: 'corr-happy' });

    expect(out).toMatchObject({ status: 'succeeded', error: null, approvalRequestId: null, replayed: false });
    // The model sees everything, personal data included.
    expect(out.result).toMatchObject({
      orderNumber: '#12345',
      fulfillmentStatus: 'fulfilled',
      trackingNumbers: ['TRACK-001'],
      trackingCompany: 'UPS',
      customerEmail: 'bob.norman@example.com',
      shippingAddress: { name: 'Bob Norman', address1: 'Chestnut Street 92', city: 'Louisville', zip: '40202' },
    });
    expect(demo.gw.vendorRequests('shopify')).toBe(shopifyBefore + 1);

    const call = await demo.gw.call(out.toolCallId);
    const order = resultOf<OrderLookupResult>(out);
    expect(rowOf(call)).toEqual({
      status: 'succeeded',
      errorCode: null,
      errorText: null,
      riskLevel: 'low',
      reviewRequired: false,
      input: { orderId: '12345' },
      // The ledger keeps status and tracking; email, name and street go; the zip stays.
      output: {
        ...order,
        customerEmail: '[REDACTED]',
        shippingAddress: { ...order.shippingAddress, name: '[REDACTED]', address1: '[REDACTED]' },
      },
      costCents: 0,
    });
    expect(call).toMatchObject({
      runId: run.id,
      toolName: 'order_lookup',
      action: 'lookup',
      correlationId: 'corr-happy',
      retryCount: 0,
      vendorStatusCode: 200,
    });
    expect(call.durationMs).toEqual(expect.any(Number));
    expect(call.durationMs).toBeGreaterThanOrEqual(0);
    expect(call.approvalRequest).toBeNull();
    expect(call.policyDecision).toEqual({
      outcome: 'allow',
      shadowOutcome: null,
      risk: 'low',
      matchedRuleId: null,
      policyVersion,
      callerRole: 'agent',
      reason: 'no rule matched; catalog default risk low',
      toolName: 'order_lookup',
      action: 'lookup',
      runId: run.id,
    });
    expect(call.ledgerEvents).toEqual([
      {
        type: 'tool_call.requested',
        actorRole: 'agent',
        resourceId: call.id,
        runId: run.id,
        metadata: {
          tool: 'order_lookup.lookup',
          correlationId: 'corr-happy',
          decision: 'allow',
          shadowDecision: null,
          risk: 'low',
          matchedRuleId: null,
          policyVersion,
        },
      },
      {
        type: 'tool_call.succeeded',
        actorRole: null,
        resourceId: call.id,
        runId: run.id,
        metadata: { tool: 'order_lookup.lookup', durationMs: call.durationMs, retryCount: 0, costCents: 0 },
      },
    ]);
    // A successful tool call leaves the run running.
    expect((await demo.gw.run(run.id)).status).toBe('running');
  });

  test('costs come from the catalog and the run sums them (kyc_check 5, account_balance 1, order_lookup 0)', async () => {
    const run = await demo.gw.startRun();
    const kyc = await demo.gw.execute(run.id, 'kyc_check', 'get_status', {
      accountId: JUMIO_DEMO_ACCOUNT_ID,
      workflowExecutionId: JUMIO_DEMO_EXECUTIONS.passed,
    });
    const balance = await demo.gw.execute(run.id, 'account_balance', 'lookup', {});
    const order = await demo.gw.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' });
    // Blocked calls cost nothing.
    const blocked = await demo.gw.execute(run.id, 'wire', 'transfer', { amount: 1 });
    expect([kyc.status, balance.status, order.status, blocked.status]).toEqual(['succeeded', 'succeeded', 'succeeded', 'blocked']);

    const kycCall = await demo.gw.call(kyc.toolCallId);
    // Medium risk with no rule is `observe`: executed, flagged for review.
    expect(rowOf(kycCall)).toEqual({
      status: 'succeeded',
      errorCode: null,
      errorText: null,
      riskLevel: 'medium',
      reviewRequired: true,
      input: { accountId: JUMIO_DEMO_ACCOUNT_ID, workflowExecutionId: JUMIO_DEMO_EXECUTIONS.passed },
      output: redactOutput(kyc.result),
      costCents: 5,
    });
    expect(kycCall.policyDecision).toMatchObject({ outcome: 'observe', risk: 'medium', matchedRuleId: null });
    expect(kycCall.ledgerEvents.map((e) => [e.type, e.metadata.costCents])).toEqual([
      ['tool_call.requested', undefined],
      ['tool_call.succeeded', 5],
    ]);

    const balanceCall = await demo.gw.call(balance.toolCallId);
    expect(rowOf(balanceCall)).toEqual({
      status: 'succeeded',
      errorCode: null,
      errorText: null,
      riskLevel: 'medium',
      reviewRequired: true,
      input: {},
      output: redactOutput(balance.result),
      costCents: 1,
    });
    expect(resultOf<AccountBalanceResult>(balance).accounts.length).toBeGreaterThan(0);

    const summary = await demo.gw.run(run.id);
    expect(summary.toolCostCents).toBe(6);
    expect(Object.fromEntries(summary.toolCalls.map((c) => [c.id, c.costCents]))).toEqual({
      [kyc.toolCallId]: 5,
      [balance.toolCallId]: 1,
      [order.toolCallId]: 0,
      [blocked.toolCallId]: 0,
    });
  });

  test('secrets in allowed fields are stored redacted; the vendor still gets the value', async () => {
    const run = await demo.gw.startRun();
    const secret = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';
    const nangoBefore = demo.gw.app.sandbox!.requests.length;
    const out = await demo.gw.execute(run.id, 'account_balance', 'lookup', { accountName: secret });
    expect(out.status).toBe('succeeded');
    // Nothing in the sandbox company is called like that.
    expect(out.result).toEqual({ accounts: [], totalBalance: null });
    const sent = demo.gw.app.sandbox!.requests.slice(nangoBefore).filter((r) => r.vendor === 'nango');
    expect(sent).toHaveLength(1);
    expect(sent[0].query.get('query')).toContain(secret);

    const call = await demo.gw.call(out.toolCallId);
    expect(rowOf(call)).toEqual({
      status: 'succeeded',
      errorCode: null,
      errorText: null,
      riskLevel: 'medium',
      reviewRequired: true,
      input: { accountName: '[REDACTED]' },
      output: { accounts: [], totalBalance: null },
      costCents: 1,
    });
    expect(JSON.stringify(call)).not.toContain(secret);

    // A card number in free text is cut out of the stored input; the rest of the text stays.
    const invoice = await demo.gw.execute(run.id, 'invoice', 'send', {
      customerId: '1',
      amount: 20,
      description: 'Paid with 4111 1111 1111 1111 last week',
    });
    expect(invoice.status).toBe('waiting_approval');
    expect((await demo.gw.call(invoice.toolCallId)).input).toEqual({
      customerId: '1',
      amount: 20,
      description: 'Paid with [REDACTED] last week',
    });

    // So is an identifier whose label stands a few words before it, as notes are written.
    const noted = await demo.gw.execute(run.id, 'invoice', 'send', {
      customerId: '1',
      amount: 20,
      description: 'SSN on file: 536 22 1234, tax id for the account is 12-3456789',
    });
    expect(noted.status).toBe('waiting_approval');
    const stored = await demo.gw.call(noted.toolCallId);
    expect(stored.input).toEqual({
      customerId: '1',
      amount: 20,
      description: 'SSN on file: [REDACTED], tax id for the account is [REDACTED]',
    });
    expect(JSON.stringify(stored)).not.toContain('536 22 1234');
    expect(JSON.stringify(stored)).not.toContain('12-3456789');
  });

  test('FEATURE_DISABLED: the flag turned off blocks the very next call, before policy; on again, calls run', async () => {
    const run = await demo.gw.startRun();
    // Warm the gateway's config cache with the flag on.
    expect((await demo.gw.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' })).status).toBe('succeeded');
    const decisionsBefore = await demo.gw.count('policy_decisions');
    const shopifyBefore = demo.gw.vendorRequests('shopify');

    await demo.gw.setFlag(false);
    let blockedId: string;
    try {
      const out = await demo.gw.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' }, { correlationId: 'corr-flag-off' });
      expect(out).toEqual(refusedOutcome('blocked', 'FEATURE_DISABLED', SAY.FEATURE_DISABLED));
      blockedId = out.toolCallId;
      // The flag is checked first: even a tool outside the manifest is FEATURE_DISABLED.
      const unknown = await demo.gw.execute(run.id, 'wire', 'transfer', {});
      expect(unknown.error?.code).toBe('FEATURE_DISABLED');
      expect(eventTrail(await demo.gw.call(unknown.toolCallId))[1]).toEqual({ type: 'tool_call.blocked', reason: 'feature_disabled' });
    } finally {
      await demo.gw.setFlag(true);
    }

    const call = await demo.gw.call(blockedId);
    expect(rowOf(call)).toEqual(blockedBeforePolicy('FEATURE_DISABLED', { orderId: '12345' }));
    expect(call).toMatchObject({ durationMs: null, vendorStatusCode: null, policyDecision: null });
    expect(call.ledgerEvents).toEqual(
      blockedEvents(
        call,
        run.id,
        { tool: 'order_lookup.lookup', correlationId: 'corr-flag-off' },
        { reason: 'feature_disabled', errorCode: 'FEATURE_DISABLED', killSwitch: false },
      ),
    );
    expect(await demo.gw.count('policy_decisions')).toBe(decisionsBefore);
    expect(demo.gw.vendorRequests('shopify')).toBe(shopifyBefore);

    // Back on: the next call runs again (the cache saw the second change too).
    const again = await demo.gw.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' });
    expect(again.status).toBe('succeeded');
    expect(demo.gw.vendorRequests('shopify')).toBe(shopifyBefore + 1);
  });

  test('a vendor 500 fails the call with the fixed sentence, no vendor text, and the run goes on', async () => {
    const run = await demo.gw.startRun();
    demo.gw.app.sandbox!.injectFault('shopify', { kind: 'status', status: 500 });
    const out = await demo.gw.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' });
    expect(out).toEqual(refusedOutcome('failed', 'VENDOR_ERROR', SAY.VENDOR_FAILURE));
    const call = await demo.gw.call(out.toolCallId);
    expect(rowOf(call)).toEqual({
      status: 'failed',
      errorCode: 'VENDOR_ERROR',
      errorText: SAY.VENDOR_FAILURE,
      riskLevel: 'low',
      reviewRequired: false,
      input: { orderId: '12345' },
      output: null,
      costCents: 0,
    });
    expect(call).toMatchObject({ vendorStatusCode: 500, retryCount: 0 });
    expect(eventTrail(call)).toEqual([
      { type: 'tool_call.requested', reason: undefined },
      { type: 'tool_call.failed', reason: 'vendor_error' },
    ]);
    expect(call.ledgerEvents[1].metadata).toMatchObject({ errorCode: 'VENDOR_ERROR', vendorStatusCode: 500, retryCount: 0 });
    expect(JSON.stringify(call)).not.toContain('vendor-internal-trace-xyz');
    expect(JSON.stringify(call)).not.toContain('sandbox fault');

    const after = await demo.gw.run(run.id);
    expect(after.status).toBe('running');
    expect(after.toolCostCents).toBe(0);
    expect((await demo.gw.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' })).status).toBe('succeeded');
  });
});

describe('global kill switch (TOOL_CALLING_KILL_SWITCH=true)', () => {
  const demo = useDemoApp({ TOOL_CALLING_KILL_SWITCH: 'true' }, { sandboxes: true });

  test('blocks with FEATURE_DISABLED although the org flag is on, and records that the switch did it', async () => {
    const flags = await demo.gw.ok(ORG_FEATURE_FLAGS);
    expect(flags.viewer.org.featureFlags).toContainEqual({ key: 'tool_calling_enabled', enabled: true });
    const run = await demo.gw.startRun();
    const out = await demo.gw.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' });
    expect(out).toMatchObject({ status: 'blocked', result: null, error: { code: 'FEATURE_DISABLED', message: SAY.FEATURE_DISABLED } });
    const call = await demo.gw.call(out.toolCallId);
    expect(rowOf(call)).toEqual(blockedBeforePolicy('FEATURE_DISABLED', { orderId: '12345' }));
    expect(call.policyDecision).toBeNull();
    expect(eventTrail(call)).toEqual(blockedTrail('feature_disabled'));
    expect(call.ledgerEvents[1].metadata).toMatchObject({ errorCode: 'FEATURE_DISABLED', killSwitch: true });
    expect(demo.gw.vendorRequests('shopify')).toBe(0);
  });
});
