import { errorCode } from '../support/app';
import { useDemoApp } from '../support/demo-fixture';
import { UPSERT_POLICY_RULE, DELETE_POLICY_RULE } from '../support/documents';
import { createKey } from '../../src/orgs/org.service';
import { recordStatements, transactionsIn } from './gateway-helpers';

/**
 * A run's next call is decided on the run as this node last read it, and the decision's
 * statement checks it (src/gateway/run-cache.ts): two statements per allowed call, the
 * minimal floor's count. Whatever changed since — by another node, here straight in the
 * database — must answer exactly as a fresh read would, and write nothing a fresh read
 * would not.
 */
const demo = useDemoApp({}, { sandboxes: true });
const LOOKUP = { orderId: '12345' };

/** What a refused call must leave as it was. */
async function written(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of ['tool_calls', 'policy_decisions', 'ledger_events', 'approval_requests']) counts[table] = await demo.gw.count(table);
  return counts;
}

/** A run whose calls this node has decided once (its cache holds the run). */
async function warmRun() {
  const run = await demo.gw.startRun();
  expect((await demo.gw.execute(run.id, 'order_lookup', 'lookup', LOOKUP)).status).toBe('succeeded');
  return run;
}

const sql = (text: string, params: unknown[]) => demo.app.em().execute(text, params);

test("a run's next call sends two statements, no BEGIN: the decision checks the run instead of reading it", async () => {
  const run = await warmRun();
  const next = await recordStatements(demo.app, () => demo.gw.execute(run.id, 'order_lookup', 'lookup', LOOKUP));
  expect(next.value.status).toBe('succeeded');
  expect(transactionsIn(next.statements)).toBe(0);
  const gateway = next.statements.filter((s) => /agent_runs|toolgate_ledger_append|toolgate_call_run_check/.test(s));
  expect(gateway).toHaveLength(2);
  expect(gateway[0]).toMatch(/toolgate_call_run_check\(.*toolgate_ledger_append\(guard\.org_id,/s);
  expect(gateway[1]).toMatch(/^\[query\] with guard as \(update tool_calls set status = /);
});

test('a run ended on another node: RUN_NOT_ACTIVE, nothing written, as from a fresh read', async () => {
  const run = await warmRun();
  await sql(`update agent_runs set status = 'cancelled', completed_at = now() where id = ?`, [run.id]);
  const before = await written();
  const refused = await recordStatements(demo.app, () =>
    demo.gw.executeRaw(run.id, 'order_lookup', 'lookup', LOOKUP, { toolUseId: 'toolu_after_cancel' }),
  );
  expect(errorCode(refused.value)).toBe('RUN_NOT_ACTIVE');
  expect(await written()).toEqual(before);
  // The check refused the cached run; the fresh read answered.
  expect(refused.statements.some((s) => /^\[query\] select r\.id, r\.org_id/.test(s))).toBe(true);
});

test('an org suspended on another node: ORG_SUSPENDED and nothing written; resumed, its calls run again', async () => {
  const run = await warmRun();
  await sql('update orgs set suspended_at = now() where id = ?', [demo.seed.orgId]);
  try {
    const before = await written();
    expect(errorCode(await demo.gw.executeRaw(run.id, 'order_lookup', 'lookup', LOOKUP))).toBe('ORG_SUSPENDED');
    expect(await written()).toEqual(before);
  } finally {
    await sql('update orgs set suspended_at = null where id = ?', [demo.seed.orgId]);
  }
  expect((await demo.gw.execute(run.id, 'order_lookup', 'lookup', LOOKUP)).status).toBe('succeeded');
});

test('a policy published after the run was cached decides the next call (the check sees the new versions)', async () => {
  const run = await warmRun();
  const rule = await demo.gw.ok(UPSERT_POLICY_RULE, {
    input: { name: 'no lookups', position: 0, toolPattern: 'order_lookup', risk: 'high', decision: 'block' },
  });
  try {
    const answer = await demo.gw.execute(run.id, 'order_lookup', 'lookup', LOOKUP);
    expect(answer.status).toBe('blocked');
    const [decision] = await sql(
      `select d.policy_version, o.policy_version as org_policy_version from tool_calls c join policy_decisions d on d.id = c.policy_decision_id
         join orgs o on o.id = c.org_id where c.id = ?`,
      [answer.toolCallId],
    );
    expect(decision.policy_version).toBe(decision.org_policy_version);
  } finally {
    await demo.gw.ok(DELETE_POLICY_RULE, { id: rule.upsertPolicyRule.id });
  }
});

test('a run handed to another key on another node: the old owner is RUN_NOT_YOURS with nothing written, the new owner drives it', async () => {
  const run = await warmRun();
  const other = await createKey(demo.app.em(), demo.seed.orgId, 'agent');
  await sql('update agent_runs set owner_key_id = ? where id = ?', [other.id, run.id]);
  const before = await written();
  expect(errorCode(await demo.gw.executeRaw(run.id, 'order_lookup', 'lookup', LOOKUP))).toBe('RUN_NOT_YOURS');
  expect(await written()).toEqual(before);
  const res = await demo.gw.executeRaw(run.id, 'order_lookup', 'lookup', LOOKUP, { key: other.secret });
  expect(res.body.data?.executeToolCall.status).toBe('succeeded');
});

test('a key repeated on a cached run: the same content replays (the vendor once), other content is IDEMPOTENCY_KEY_REUSED', async () => {
  const run = await warmRun();
  const vendorBefore = demo.gw.vendorRequests('shopify');
  const first = await demo.gw.execute(run.id, 'order_lookup', 'lookup', LOOKUP, { toolUseId: 'toolu_cached_repeat' });
  const again = await demo.gw.execute(run.id, 'order_lookup', 'lookup', LOOKUP, { toolUseId: 'toolu_cached_repeat' });
  expect(again).toMatchObject({ toolCallId: first.toolCallId, status: 'succeeded', replayed: true });
  expect(demo.gw.vendorRequests('shopify')).toBe(vendorBefore + 1);
  const reused = await demo.gw.executeRaw(run.id, 'order_lookup', 'lookup', { orderId: '99999' }, { toolUseId: 'toolu_cached_repeat' });
  expect(errorCode(reused)).toBe('IDEMPOTENCY_KEY_REUSED');
  expect(demo.gw.vendorRequests('shopify')).toBe(vendorBefore + 1);
});

test('a cached run that waits for approval still takes calls, and the waiting call opens its approval once', async () => {
  const run = await warmRun();
  const waiting = await demo.gw.execute(run.id, 'invoice', 'send', { customerId: '1', amount: 5 });
  expect(waiting.status).toBe('waiting_approval');
  expect((await demo.gw.run(run.id)).status).toBe('waiting_approval');
  expect((await demo.gw.execute(run.id, 'order_lookup', 'lookup', LOOKUP)).status).toBe('succeeded');
  expect(await demo.gw.count('approval_requests', 'tool_call_id = ?', [waiting.toolCallId])).toBe(1);
  expect((await demo.gw.run(run.id)).pendingApprovalCount).toBe(1);
});

test('once this node loaded a newer config of the org, a run cached before it is read afresh instead of checked and refused', async () => {
  const run = await warmRun();
  const rule = await demo.gw.ok(UPSERT_POLICY_RULE, {
    input: { name: 'inert', position: 1, toolPattern: 'nothing_matches', risk: 'low', decision: 'allow', enabled: false },
  });
  try {
    // Another run's first call reads its run, sees the new version and loads that config.
    const other = await demo.gw.startRun();
    expect((await demo.gw.execute(other.id, 'order_lookup', 'lookup', LOOKUP)).status).toBe('succeeded');
    const next = await recordStatements(demo.app, () => demo.gw.execute(run.id, 'order_lookup', 'lookup', LOOKUP));
    expect(next.value.status).toBe('succeeded');
    expect(next.statements.filter((s) => /^\[query\] select r\.id, r\.org_id/.test(s))).toHaveLength(1);
    expect(next.statements.filter((s) => /toolgate_call_run_check/.test(s))).toEqual([]);
    // And the run is cached again at the new version: its next call is checked, not read.
    const after = await recordStatements(demo.app, () => demo.gw.execute(run.id, 'order_lookup', 'lookup', LOOKUP));
    expect(after.statements.filter((s) => /toolgate_call_run_check/.test(s))).toHaveLength(1);
    expect(after.statements.filter((s) => /^\[query\] select r\.id, r\.org_id/.test(s))).toEqual([]);
  } finally {
    await demo.gw.ok(DELETE_POLICY_RULE, { id: rule.upsertPolicyRule.id });
  }
});
