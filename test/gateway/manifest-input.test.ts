import { useDemoApp } from '../support/demo-fixture';
import { jsonAs } from '../support/documents';
import { TOOL_CATALOG } from '../../src/catalog/tool-catalog';
import type { describeInputErrors } from '../../src/gateway/tool-registry';
import type { OrderLookupResult } from '../../src/vendors/shopify/order-lookup.action';
import { blockedBeforePolicy, blockedEvents, blockedTrail, errorCode, eventTrail, refusedOutcome, resultOf, rowOf, SAY } from './gateway-helpers';

/**
 * What the gateway refuses before policy: a tool outside the run's frozen manifest
 * (failure mode 2) and input that does not match the tool's schema. Both are recorded as
 * blocked calls without a policy decision, and nothing reaches a vendor.
 */
const demo = useDemoApp({}, { sandboxes: true });

const ALL_TOOLS = TOOL_CATALOG.map((t) => `${t.toolName}.${t.action}`).sort();

describe('NOT_IN_MANIFEST', () => {
  test('a tool no catalog has: blocked, secrets in its params redacted, no decision, no vendor call', async () => {
    const run = await demo.gw.startRun();
    expect(run.allowedTools).toEqual(ALL_TOOLS);
    const decisionsBefore = await demo.gw.count('policy_decisions');
    const requestsBefore = demo.app.sandbox!.requests.length;

    const out = await demo.gw.execute(run.id, 'wire', 'transfer', { accountNumber: '9876543210', amount: 5000 }, { correlationId: 'corr-wire' });
    expect(out).toEqual(refusedOutcome('blocked', 'NOT_IN_MANIFEST', SAY.NOT_IN_MANIFEST));
    const call = await demo.gw.call(out.toolCallId);
    expect(rowOf(call)).toEqual(blockedBeforePolicy('NOT_IN_MANIFEST', { accountNumber: '[REDACTED]', amount: 5000 }));
    expect(call).toMatchObject({ toolName: 'wire', action: 'transfer', policyDecision: null, durationMs: null });
    expect(call.ledgerEvents).toEqual(
      blockedEvents(call, run.id, { tool: 'wire.transfer', correlationId: 'corr-wire' }, { reason: 'not_in_manifest', errorCode: 'NOT_IN_MANIFEST' }),
    );
    expect(await demo.gw.count('policy_decisions')).toBe(decisionsBefore);
    expect(demo.app.sandbox!.requests.length).toBe(requestsBefore);
  });

  test('an unknown action of a catalog tool is not in the manifest either', async () => {
    const run = await demo.gw.startRun();
    const out = await demo.gw.execute(run.id, 'order_lookup', 'delete', { orderId: '12345' });
    expect(out.error).toEqual({ code: 'NOT_IN_MANIFEST', message: SAY.NOT_IN_MANIFEST });
    expect(eventTrail(await demo.gw.call(out.toolCallId))).toEqual(blockedTrail('not_in_manifest'));
  });

  test('the manifest is frozen: a tool disabled after the run started still runs there, and is missing from new runs', async () => {
    const before = await demo.gw.startRun();
    await demo.gw.setPermission('order_lookup', 'lookup', false);
    try {
      const inOldRun = await demo.gw.execute(before.id, 'order_lookup', 'lookup', { orderId: '12345' });
      expect(inOldRun.status).toBe('succeeded');
      expect(resultOf<OrderLookupResult>(inOldRun).trackingNumbers).toEqual(['TRACK-001']);

      const after = await demo.gw.startRun();
      expect(after.allowedTools).toEqual(ALL_TOOLS.filter((t) => t !== 'order_lookup.lookup'));
      const shopifyBefore = demo.gw.vendorRequests('shopify');
      const inNewRun = await demo.gw.execute(after.id, 'order_lookup', 'lookup', { orderId: '12345' });
      expect(inNewRun).toMatchObject({ status: 'blocked', result: null, error: { code: 'NOT_IN_MANIFEST', message: SAY.NOT_IN_MANIFEST } });
      const call = await demo.gw.call(inNewRun.toolCallId);
      expect(rowOf(call)).toEqual(blockedBeforePolicy('NOT_IN_MANIFEST', { orderId: '12345' }));
      expect(call.policyDecision).toBeNull();
      expect(eventTrail(call)).toEqual(blockedTrail('not_in_manifest'));
      expect(demo.gw.vendorRequests('shopify')).toBe(shopifyBefore);
      // Re-enabling does not reach into a run already started either.
      await demo.gw.setPermission('order_lookup', 'lookup', true);
      expect((await demo.gw.run(after.id)).allowedTools).not.toContain('order_lookup.lookup');
    } finally {
      await demo.gw.setPermission('order_lookup', 'lookup', true);
    }
    expect((await demo.gw.startRun()).allowedTools).toEqual(ALL_TOOLS);
  });

  test('a tool unbound from the specialist is absent from new runs (and blocked there); bound again, it is back', async () => {
    const before = await demo.gw.startRun();
    await demo.gw.bind(demo.seed.specialistId, 'shopify_query', 'get_product', false);
    try {
      const after = await demo.gw.startRun();
      expect(after.allowedTools).toEqual(ALL_TOOLS.filter((t) => t !== 'shopify_query.get_product'));
      const blocked = await demo.gw.execute(after.id, 'shopify_query', 'get_product', { productId: '632910392' });
      expect(blocked.error?.code).toBe('NOT_IN_MANIFEST');
      expect(eventTrail(await demo.gw.call(blocked.toolCallId))).toEqual(blockedTrail('not_in_manifest'));
      // The run started while it was bound keeps it.
      const kept = await demo.gw.execute(before.id, 'shopify_query', 'get_product', { productId: '632910392' });
      expect(kept.status).toBe('succeeded');
    } finally {
      await demo.gw.bind(demo.seed.specialistId, 'shopify_query', 'get_product', true);
    }
    expect((await demo.gw.startRun()).allowedTools).toEqual(ALL_TOOLS);
  });
});

describe('INVALID_TOOL_INPUT', () => {
  const CANARY = 'CANARY-5c1e-never-in-the-ledger';

  test.each([
    ['a wrong type', 'invoice', 'send', { customerId: '1', amount: CANARY }, [{ path: '/amount', problem: 'must be number' }]],
    [
      'a missing required field',
      'kyc_check',
      'get_status',
      { accountId: CANARY },
      [{ path: '/', problem: "must have required property 'workflowExecutionId'" }],
    ],
    ['an extra field', 'order_lookup', 'lookup', { orderId: '12345', note: CANARY }, [{ path: '/', problem: 'must NOT have additional properties' }]],
    [
      'a value breaking a pattern',
      'amazon_query',
      'get_catalog_item',
      { asin: CANARY },
      [{ path: '/asin', problem: 'must match pattern "^[A-Za-z0-9]{10}$"' }],
    ],
    ['params that are not an object', 'order_lookup', 'lookup', CANARY, [{ path: '/', problem: 'must be object' }]],
  ])('%s: blocked before policy; the ledger names the paths, never the values', async (_label, toolName, action, params, problems) => {
    const run = await demo.gw.startRun();
    const decisionsBefore = await demo.gw.count('policy_decisions');
    const requestsBefore = demo.app.sandbox!.requests.length;

    const out = await demo.gw.execute(run.id, toolName, action, params, { correlationId: 'corr-invalid' });
    // The caller (the model) hears each failing field and why, never a value (issue 28, item 7).
    const told = `${SAY.INVALID_TOOL_INPUT}: ${problems.map((p) => `${p.path} ${p.problem}`).join('; ')}`;
    expect(out).toEqual(refusedOutcome('blocked', 'INVALID_TOOL_INPUT', told));
    expect(told).not.toContain(CANARY);
    const call = await demo.gw.call(out.toolCallId);
    expect(rowOf(call)).toEqual(
      // The row keeps the (secret-redacted) input the agent sent, as for every call.
      blockedBeforePolicy('INVALID_TOOL_INPUT', params),
    );
    expect(call.policyDecision).toBeNull();
    expect(call.ledgerEvents.map((e) => ({ type: e.type, metadata: e.metadata }))).toEqual([
      { type: 'tool_call.requested', metadata: { tool: `${toolName}.${action}`, correlationId: 'corr-invalid' } },
      {
        type: 'tool_call.blocked',
        metadata: {
          tool: `${toolName}.${action}`,
          correlationId: 'corr-invalid',
          reason: 'invalid_tool_input',
          errorCode: 'INVALID_TOOL_INPUT',
          problems,
        },
      },
    ]);
    expect(JSON.stringify(call.ledgerEvents)).not.toContain('CANARY');
    expect(await demo.gw.count('policy_decisions')).toBe(decisionsBefore);
    expect(demo.app.sandbox!.requests.length).toBe(requestsBefore);
  });

  test('several problems are all listed, each by path', async () => {
    const run = await demo.gw.startRun();
    const out = await demo.gw.execute(run.id, 'invoice', 'send', { customerId: 7, amount: -1, currency: 'usd', extra: CANARY });
    const call = await demo.gw.call(out.toolCallId);
    const blocked = call.ledgerEvents.find((e) => e.type === 'tool_call.blocked')!;
    const byPath = (a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path);
    // metadata.problems as the gateway writes it (describeInputErrors of src/gateway/tool-registry.ts).
    const problems = jsonAs<ReturnType<typeof describeInputErrors>>(blocked.metadata.problems);
    expect([...problems].sort(byPath)).toEqual([
      { path: '/', problem: 'must NOT have additional properties' },
      { path: '/amount', problem: 'must be > 0' },
      { path: '/currency', problem: 'must match pattern "^[A-Z]{3}$"' },
      { path: '/customerId', problem: 'must be string' },
    ]);
    expect(JSON.stringify(call.ledgerEvents)).not.toContain('CANARY');
    expect(JSON.stringify(call.ledgerEvents)).not.toContain('usd');
  });
});

describe('input PostgreSQL cannot store', () => {
  /*
   * BUG (src/gateway/gateway.resolver.ts): a NUL character in toolName, action or anywhere
   * in params reaches the INSERT into tool_calls (text / jsonb cannot hold U+0000) and
   * the agent gets INTERNAL_SERVER_ERROR. It should be refused as BAD_USER_INPUT with
   * nothing written, like NUL in admin names.
   */
  test.each([
    ['toolName', { toolName: 'order\u0000lookup', action: 'lookup', params: { orderId: '12345' } }],
    ['a param value', { toolName: 'order_lookup', action: 'lookup', params: { orderId: '123\u000045' } }],
    ['a param key', { toolName: 'order_lookup', action: 'lookup', params: { orderId: '12345', 'x\u0000': 1 } }],
  ])('a NUL in %s is BAD_USER_INPUT and writes nothing', async (_label, input) => {
    const run = await demo.gw.startRun();
    const callsBefore = await demo.gw.count('tool_calls');
    const res = await demo.gw.executeRaw(run.id, input.toolName, input.action, input.params);
    expect(errorCode(res)).toBe('BAD_USER_INPUT');
    expect(await demo.gw.count('tool_calls')).toBe(callsBefore);
  });
});
