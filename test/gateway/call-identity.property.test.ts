import fc from 'fast-check';
import type { Client } from '@modelcontextprotocol/client';
import { QBO_DEMO_CUSTOMERS } from '../../src/vendors/nango/nango.sandbox-data';
import { callFingerprint } from '../../src/gateway/call-fingerprint';
import { DELETE_POLICY_RULE, EXECUTE_APPROVED_TOOL_CALL, EXECUTE_TOOL_CALL, UPSERT_POLICY_RULE } from '../support/documents';
import { errorCode } from '../support/app';
import { CLIENT_AMOUNT, EXPERT_AMOUNT, type Flow, invoicePosts, resolve, startFlow, startRun } from '../approvals/approval-flow';
import { callState, connectMcp } from '../mcp/mcp-helpers';

/**
 * Generated interleavings of what agents do to call identity (ARCHITECTURE.md, "Call
 * identity"): concurrent identical and different calls, keyed over GraphQL and keyless over
 * MCP (whose repeats join a waiting call), keys reused with other content, approvals, and
 * policy changes in between. After each interleaving every approval is resolved and every
 * approved call executed, twice and at once; then the invariants must hold:
 * - an answer only ever names a call of the content its request asked for (or its refusal);
 * - one key, one call; the vendors saw exactly one effect per call that ran;
 * - every approved call executed exactly once (or was blocked by the policy that changed);
 * - keyless repeats hold at most one approval per content;
 * - no client approval was resolved by the agent (the org has not opted in);
 * - no request failed inside (a deadlock between two of them was what this test found first).
 */
const SEED = 20261204;
const RUNS = 25;

type Content = { toolName: string; action: string; params: Record<string, unknown> };
const CONTENTS: Content[] = [
  { toolName: 'order_lookup', action: 'lookup', params: { orderId: '12345' } },
  { toolName: 'order_lookup', action: 'lookup', params: { orderId: '12346' } },
  { toolName: 'invoice', action: 'send', params: { customerId: QBO_DEMO_CUSTOMERS.amys, amount: EXPERT_AMOUNT } },
  { toolName: 'invoice', action: 'send', params: { customerId: QBO_DEMO_CUSTOMERS.amys, amount: CLIENT_AMOUNT } },
];

type Op = { kind: 'call'; content: number; key: number | null } | { kind: 'approve' } | { kind: 'policy' };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('call' as const), content: fc.nat(CONTENTS.length - 1), key: fc.option(fc.nat(2)) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'approve' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'policy' as const }) },
);
/** Batches of operations: a batch runs at once, batches one after another. */
const interleaving = fc.array(fc.array(op, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 4 });

interface Answer {
  content: number;
  key: string | null;
  toolCallId: string | null;
  code: string | null;
}

let flow: Flow;
const clients: Client[] = [];
beforeAll(async () => {
  flow = await startFlow({}, { captureLogs: true });
});
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await flow.app.close();
});

const sql = <T>(query: string, params: unknown[]) => flow.app.em().getConnection().execute<T[]>(query, params);
const shopify = () => flow.app.sandbox!.requests.filter((r) => r.vendor === 'shopify').length;

async function call(runId: string, mcp: Client, content: number, key: string | null): Promise<Answer> {
  const { toolName, action, params } = CONTENTS[content];
  if (key === null) {
    // Keyless over MCP: a new call, or a repeat of one that needs approval.
    const result = await mcp.callTool({ name: `${toolName}.${action}`, arguments: params });
    const state = callState(result);
    const error = (result.structuredContent as { error?: { code: string } } | undefined)?.error;
    return { content, key, toolCallId: state.toolCallId, code: error?.code ?? null };
  }
  const res = await flow.app.gql(EXECUTE_TOOL_CALL, {
    key: flow.keys.agent,
    variables: { input: { runId, toolName, action, params, correlationId: 'prop', toolUseId: key } },
  });
  const code = errorCode(res) ?? res.body.data?.executeToolCall.error?.code ?? null;
  const refusal = res.body.errors?.[0]?.extensions?.toolCallId as string | undefined;
  return { content, key, toolCallId: res.body.data?.executeToolCall.toolCallId ?? refusal ?? null, code };
}

/** Every pending approval resolved by its own kind of person, then every approved call executed twice at once. */
async function approveAll(runId: string): Promise<void> {
  const pending = await sql<{ id: string; kind: string }>("select id, kind from approval_requests where run_id = ? and status = 'pending'", [runId]);
  await Promise.all(pending.map((a) => resolve(flow, a.kind === 'expert' ? flow.keys.expert : flow.keys.client, a.id, 'APPROVE')));
  const approved = await sql<{ id: string }>("select id from tool_calls where run_id = ? and status = 'approved'", [runId]);
  await Promise.all(
    approved.flatMap((c) => [0, 1].map(() => flow.app.gql(EXECUTE_APPROVED_TOOL_CALL, { key: flow.keys.agent, variables: { id: c.id } }))),
  );
}

async function changePolicy(): Promise<void> {
  const rule = await flow.app.gql(UPSERT_POLICY_RULE, {
    key: flow.keys.admin,
    variables: { input: { name: 'unrelated', position: 50, toolPattern: 'product_lookup', risk: 'low', decision: 'allow' } },
  });
  await flow.app.gql(DELETE_POLICY_RULE, { key: flow.keys.admin, variables: { id: rule.body.data!.upsertPolicyRule.id } });
}

test('generated interleavings of calls, reused keys, approvals and policy changes keep every call identity invariant', async () => {
  let round = 0;
  await fc.assert(
    fc.asyncProperty(interleaving, async (batches) => {
      round += 1;
      const logsBefore = flow.app.logs.length;
      const runId = await startRun(flow);
      // An MCP client that would answer client approvals itself, if it were asked.
      const asked: string[] = [];
      const mcp = await connectMcp(flow.app, `runs/${runId}`, flow.keys.agent, { era: 'modern', elicitation: { decision: 'approve', asked } });
      clients.push(mcp);
      const shopifyBefore = shopify();
      const postsBefore = invoicePosts(flow.app);
      const answers: Answer[] = [];
      for (const batch of batches) {
        await Promise.all(
          batch.map(async (o) => {
            if (o.kind === 'approve') return approveAll(runId);
            if (o.kind === 'policy') return changePolicy();
            answers.push(await call(runId, mcp, o.content, o.key === null ? null : `toolu_r${round}_k${o.key}`));
          }),
        );
      }
      await approveAll(runId);

      const rows = await sql<{
        id: string;
        tool_use_id: string | null;
        fingerprint: string;
        status: string;
        error_code: string | null;
        tool_name: string;
        approval_status: string | null;
      }>(
        `select c.id, c.tool_use_id, c.fingerprint, c.status, c.error_code, c.tool_name, a.status as approval_status
           from tool_calls c left join approval_requests a on a.tool_call_id = c.id where c.run_id = ?`,
        [runId],
      );
      const byId = new Map(rows.map((r) => [r.id, r]));
      // An answer names a call of its own content, or the refusal of a reused key.
      for (const answer of answers) {
        const row = byId.get(answer.toolCallId ?? '');
        expect({ answer, recorded: row !== undefined }).toEqual({ answer, recorded: true });
        const { toolName, action, params } = CONTENTS[answer.content];
        expect(row!.fingerprint).toBe(callFingerprint({ runId, toolName, action, params }));
        if (answer.code === 'IDEMPOTENCY_KEY_REUSED') expect(row!.tool_use_id).toBeNull();
        else if (answer.key !== null) expect(row!.tool_use_id).toBe(answer.key);
      }
      // Every approved call ran exactly once; nothing else is left waiting.
      expect(rows.filter((r) => r.approval_status === 'approved' && r.status !== 'succeeded')).toEqual([]);
      expect(rows.filter((r) => r.status === 'waiting_approval' || r.status === 'approved' || r.status === 'running')).toEqual([]);
      // One effect at the vendor per call that ran.
      const ran = (tool: string) => rows.filter((r) => r.tool_name === tool && r.status === 'succeeded').length;
      expect(shopify() - shopifyBefore).toBe(ran('order_lookup'));
      expect(invoicePosts(flow.app) - postsBefore).toBe(ran('invoice'));
      // Keyless repeats joined: one approval per content among calls without a key.
      const keyless = rows.filter((r) => r.tool_use_id === null && r.approval_status !== null);
      expect(new Set(keyless.map((r) => r.fingerprint)).size).toBe(keyless.length);
      // The agent's client was never asked, and no approval names the agent.
      expect(asked).toEqual([]);
      const byAgent = await sql<{ n: string }>(
        "select count(*) as n from ledger_events where run_id = ? and type in ('tool_call.approved', 'tool_call.rejected') and metadata->'principal'->>'role' = 'agent'",
        [runId],
      );
      expect(Number(byAgent[0].n)).toBe(0);
      expect(flow.app.logs.slice(logsBefore).filter((line) => /"level":50/.test(line))).toEqual([]);
    }),
    { seed: SEED, numRuns: RUNS },
  );
}, 120_000);
