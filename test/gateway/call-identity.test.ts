import { useDemoApp } from '../support/demo-fixture';
import { DELETE_POLICY_RULE, EXECUTE_APPROVED_TOOL_CALL, RESOLVE_APPROVAL, UPSERT_POLICY_RULE } from '../support/documents';
import { QBO_DEMO_CUSTOMERS } from '../../src/vendors/nango/nango.sandbox-data';
import { errorCode } from './gateway-helpers';

/**
 * A call's identity is its content (ARCHITECTURE.md, "Call identity"): a toolUseId names
 * exactly one call — its run, tool, action and canonical params. The same key with the same
 * content replays; the same key with other content is IDEMPOTENCY_KEY_REUSED, recorded, and
 * nothing runs — never another call's result.
 */
const demo = useDemoApp({}, { sandboxes: true });

const invoice = (amount: number) => ({ customerId: QBO_DEMO_CUSTOMERS.amys, amount });
const invoicePosts = () =>
  demo.app.sandbox!.requests.filter((r) => r.vendor === 'nango' && r.method === 'POST' && r.path.endsWith('/invoice')).length;
const approve = (id: string | null | undefined) => demo.gw.ok(RESOLVE_APPROVAL, { id: id!, decision: 'APPROVE' }, demo.seed.keys.expert);
const executeApproved = async (id: string) => (await demo.gw.ok(EXECUTE_APPROVED_TOOL_CALL, { id }, demo.seed.keys.agent)).executeApprovedToolCall;

describe('a key names one call', () => {
  test("a toolUseId reused for another tool: IDEMPOTENCY_KEY_REUSED, recorded, nothing runs, no other call's result", async () => {
    const run = await demo.gw.startRun();
    const lookup = await demo.gw.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' }, { toolUseId: 'toolu_reused_tool' });
    expect(lookup.status).toBe('succeeded');
    const shopify = demo.gw.vendorRequests('shopify');
    const posts = invoicePosts();

    const reused = await demo.gw.executeRaw(run.id, 'invoice', 'send', invoice(12), { toolUseId: 'toolu_reused_tool' });
    expect(errorCode(reused)).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(reused.body.data).toBeNull();
    const extensions = reused.body.errors![0].extensions as Record<string, unknown>;
    expect(extensions.toolCallId).toEqual(expect.any(String));
    expect(extensions.toolCallId).not.toBe(lookup.toolCallId);
    expect(JSON.stringify(reused.body)).not.toContain('12345');
    expect(invoicePosts()).toBe(posts);
    expect(demo.gw.vendorRequests('shopify')).toBe(shopify);

    // Recorded: a blocked call of its own (without the key, which is the lookup's), with its ledger trail.
    const refusal = await demo.gw.call(extensions.toolCallId as string);
    expect(refusal).toMatchObject({ toolName: 'invoice', action: 'send', status: 'blocked', errorCode: 'IDEMPOTENCY_KEY_REUSED', output: null });
    expect(refusal.ledgerEvents.map((e) => [e.type, e.metadata.reason ?? null])).toEqual([
      ['tool_call.requested', null],
      ['tool_call.blocked', 'idempotency_key_reused'],
    ]);
    expect(refusal.ledgerEvents[1].metadata).toMatchObject({ toolUseId: 'toolu_reused_tool', existingToolCallId: lookup.toolCallId });

    // The key still names the lookup: its repeat replays it.
    const replay = await demo.gw.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' }, { toolUseId: 'toolu_reused_tool' });
    expect(replay).toMatchObject({ toolCallId: lookup.toolCallId, status: 'succeeded', replayed: true });
  });

  test('a toolUseId reused with other params of the same tool: refused; canonical params (key order) are the same call', async () => {
    const run = await demo.gw.startRun();
    const first = await demo.gw.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' }, { toolUseId: 'toolu_reused_params' });
    const other = await demo.gw.executeRaw(run.id, 'order_lookup', 'lookup', { orderId: '67890' }, { toolUseId: 'toolu_reused_params' });
    expect(errorCode(other)).toBe('IDEMPOTENCY_KEY_REUSED');

    const waiting = await demo.gw.execute(
      run.id,
      'invoice',
      'send',
      { amount: 12, customerId: QBO_DEMO_CUSTOMERS.amys },
      { toolUseId: 'toolu_keys' },
    );
    const reordered = await demo.gw.execute(
      run.id,
      'invoice',
      'send',
      { customerId: QBO_DEMO_CUSTOMERS.amys, amount: 12 },
      { toolUseId: 'toolu_keys' },
    );
    expect(reordered).toMatchObject({ toolCallId: waiting.toolCallId, replayed: true });
    expect(first.status).toBe('succeeded');
    expect(await demo.gw.count('approval_requests', 'run_id = ?', [run.id])).toBe(1);
  });

  test('one key sent concurrently with different params: exactly one call runs, every other answer is a refusal', async () => {
    const run = await demo.gw.startRun();
    const shopify = demo.gw.vendorRequests('shopify');
    const answers = await Promise.all(
      // Both orders exist, so whichever request wins, its lookup succeeds.
      ['12345', '12346', '12345', '12346'].map((orderId) =>
        demo.gw.executeRaw(run.id, 'order_lookup', 'lookup', { orderId }, { toolUseId: 'toolu_race_params' }),
      ),
    );
    // An answer is the one call (run, or replayed while it runs) or a refusal: never another call's result.
    const calls = answers.filter((a) => a.body.data).map((a) => a.body.data!.executeToolCall);
    const refused = answers.filter((a) => errorCode(a) === 'IDEMPOTENCY_KEY_REUSED');
    expect(calls.length + refused.length).toBe(4);
    expect(new Set(calls.map((c) => c.toolCallId)).size).toBe(1);
    expect(calls.filter((c) => !c.replayed)).toEqual([expect.objectContaining({ status: 'succeeded' })]);
    expect(calls.every((c) => c.status === 'succeeded' || c.status === 'running')).toBe(true);
    expect(demo.gw.vendorRequests('shopify')).toBe(shopify + 1);
    expect(await demo.gw.count('tool_calls', 'run_id = ? and tool_use_id is not null', [run.id])).toBe(1);
    expect(await demo.gw.count('tool_calls', "run_id = ? and error_code = 'IDEMPOTENCY_KEY_REUSED'", [run.id])).toBe(refused.length);
  });
});

describe('an approval survives a policy change', () => {
  test('a rule added while the call waits: approving runs it once; the repeat finds it, never a new approval', async () => {
    const run = await demo.gw.startRun();
    const waiting = await demo.gw.execute(run.id, 'invoice', 'send', invoice(33), { toolUseId: 'toolu_policy_1' });
    expect(waiting.status).toBe('waiting_approval');
    const rule = await demo.gw.ok(UPSERT_POLICY_RULE, {
      input: { name: 'unrelated', position: 5, toolPattern: 'product_lookup', risk: 'low', decision: 'allow' },
    });
    try {
      await approve(waiting.approvalRequestId);
      const posts = invoicePosts();
      const done = await executeApproved(waiting.toolCallId);
      expect(done).toMatchObject({ toolCallId: waiting.toolCallId, status: 'succeeded' });
      const repeat = await demo.gw.execute(run.id, 'invoice', 'send', invoice(33), { toolUseId: 'toolu_policy_1' });
      expect(repeat).toMatchObject({ toolCallId: waiting.toolCallId, status: 'succeeded', replayed: true });
      expect(invoicePosts()).toBe(posts + 1);
      expect(await demo.gw.count('approval_requests', 'run_id = ?', [run.id])).toBe(1);
    } finally {
      await demo.gw.ok(DELETE_POLICY_RULE, { id: rule.upsertPolicyRule.id });
    }
  });

  test('a rule that now blocks the call: approving records it blocked with that rule, nothing sent', async () => {
    const run = await demo.gw.startRun();
    const waiting = await demo.gw.execute(run.id, 'invoice', 'send', invoice(44), { toolUseId: 'toolu_policy_2' });
    const rule = await demo.gw.ok(UPSERT_POLICY_RULE, {
      input: { name: 'no invoices today', position: 0, toolPattern: 'invoice', risk: 'high', decision: 'block' },
    });
    try {
      await approve(waiting.approvalRequestId);
      const posts = invoicePosts();
      const done = await executeApproved(waiting.toolCallId);
      expect(done).toMatchObject({ toolCallId: waiting.toolCallId, status: 'blocked', error: { code: 'POLICY_BLOCKED' } });
      expect(invoicePosts()).toBe(posts);
      const call = await demo.gw.call(waiting.toolCallId);
      const blocked = call.ledgerEvents.find((e) => e.type === 'tool_call.blocked');
      expect(blocked?.metadata).toMatchObject({ reason: 'policy_blocked', matchedRuleId: rule.upsertPolicyRule.id, reevaluated: true });
    } finally {
      await demo.gw.ok(DELETE_POLICY_RULE, { id: rule.upsertPolicyRule.id });
    }
  });
});
