import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/client';
import { QBO_DEMO_CUSTOMERS } from '../../src/vendors/nango/nango.sandbox-data';
import { SetFeatureFlagDocument } from '../../gql/graphql';
import { DELETE_POLICY_RULE, UPSERT_POLICY_RULE } from '../support/documents';
import { CLIENT_AMOUNT, EXPERT_AMOUNT, type Flow, invoicePosts, ledgerOf, resolve, startFlow, startRun } from '../approvals/approval-flow';
import { type Era, callState, connectMcp, mcpUrl } from './mcp-helpers';

/**
 * Call identity over MCP, with independent clients: the v2 SDK (both eras) and the v1 SDK
 * (`@modelcontextprotocol/sdk`, 2025 era). A key belongs to one client — none is derived
 * from JSON-RPC ids, which every client numbers from the start; repeats of a call that needs
 * approval join its one approval, however many arrive at once; the agent never answers its
 * own client approval unless its org turned `mcp_client_approvals` on.
 */
let flow: Flow;
const closers: (() => Promise<void>)[] = [];
beforeAll(async () => {
  flow = await startFlow();
  // Small invoices run at once, so two clients' identical first calls are two real sends.
  const rule = await flow.app.gql(UPSERT_POLICY_RULE, {
    key: flow.keys.admin,
    variables: {
      input: {
        name: 'Small invoices run',
        position: 1,
        toolPattern: 'invoice',
        actionPattern: 'send',
        conditions: [{ path: 'amount', op: 'lt', value: SMALL }],
        risk: 'low',
        decision: 'allow',
      },
    },
  });
  if (rule.body.errors) throw new Error(JSON.stringify(rule.body.errors));
});
afterAll(async () => {
  for (const close of closers) await close().catch(() => undefined);
  await flow.app.close();
});

const SMALL = 10;
const invoice = (amount: number) => ({ name: 'invoice.send', arguments: { customerId: QBO_DEMO_CUSTOMERS.amys, amount } });
const lookup = (orderId: string, key?: string) => ({
  name: 'order_lookup.lookup',
  arguments: { orderId },
  ...(key ? { _meta: { 'io.toolgate/idempotencyKey': key } } : {}),
});
const shopifyRequests = () => flow.app.sandbox!.requests.filter((r) => r.vendor === 'shopify').length;
const count = async (sql: string, params: unknown[]) => Number((await flow.app.em().getConnection().execute<{ n: string }[]>(sql, params))[0].n);

async function connect(path: string, options: Parameters<typeof connectMcp>[3] = {}): Promise<Client> {
  const client = await connectMcp(flow.app, path, flow.keys.agent, options);
  closers.push(() => client.close());
  return client;
}

/** The v1 SDK's client (2025 era), answering elicitations with `decision`. */
async function connectV1(path: string, elicitation?: { decision: 'approve' | 'reject'; asked: string[] }): Promise<ClientV1> {
  const client = new ClientV1({ name: 'toolgate-test-v1', version: '1.0.0' }, { capabilities: elicitation ? { elicitation: {} } : {} });
  if (elicitation) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicitation.asked.push(String(request.params.message));
      return { action: 'accept', content: { decision: elicitation.decision } };
    });
  }
  const transport = new TransportV1(mcpUrl(flow.app, path), { requestInit: { headers: { authorization: `Bearer ${flow.keys.agent}` } } });
  await client.connect(transport);
  closers.push(() => client.close());
  return client;
}

const setFlag = async (key: string, enabled: boolean) => {
  const res = await flow.app.gql(SetFeatureFlagDocument, { key: flow.keys.admin, variables: { key, enabled } });
  if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
};

describe('keys belong to one client', () => {
  test('two fresh 2026-07-28 clients, each sending an allowed invoice as its first request: two invoices', async () => {
    const posts = invoicePosts(flow.app);
    const first = await connect(`specialists/${flow.specialistId}`, { era: 'modern' });
    const second = await connect(`specialists/${flow.specialistId}`, { era: 'modern' });
    const a = await first.callTool(invoice(SMALL - 1));
    const b = await second.callTool(invoice(SMALL - 1));
    expect(callState(a)).toMatchObject({ status: 'succeeded', replayed: false });
    expect(callState(b)).toMatchObject({ status: 'succeeded', replayed: false });
    expect(callState(b).toolCallId).not.toBe(callState(a).toolCallId);
    expect(invoicePosts(flow.app) - posts).toBe(2);
  });

  test('a v1 and a v2 client on one run, both numbering requests from the start: each allowed call runs', async () => {
    const runId = await startRun(flow);
    const shopify = shopifyRequests();
    const v1 = await connectV1(`runs/${runId}`);
    const v2 = await connect(`runs/${runId}`);
    const a = (await v1.callTool(lookup('12345'))) as { _meta?: Record<string, unknown> };
    const b = await v2.callTool(lookup('12345'));
    expect(callState(a)).toMatchObject({ status: 'succeeded', replayed: false });
    expect(callState(b)).toMatchObject({ status: 'succeeded', replayed: false });
    expect(shopifyRequests() - shopify).toBe(2);
  });

  test.each<Era>(['legacy', 'modern'])(
    'a client key reused with other arguments (%s): IDEMPOTENCY_KEY_REUSED, recorded, nothing runs',
    async (era) => {
      const runId = await startRun(flow);
      const client = await connect(`runs/${runId}`, { era });
      const first = await client.callTool(lookup('12345', `key-${era}`));
      expect(callState(first).status).toBe('succeeded');
      const shopify = shopifyRequests();
      const reused = await client.callTool(lookup('67890', `key-${era}`));
      expect(reused.isError).toBe(true);
      expect(reused.structuredContent).toMatchObject({ status: 'blocked', error: { code: 'IDEMPOTENCY_KEY_REUSED' } });
      expect(JSON.stringify(reused)).not.toContain('12345');
      expect(shopifyRequests()).toBe(shopify);
      expect(callState(reused).toolCallId).not.toBe(callState(first).toolCallId);
      // The same key and arguments still replay the first call.
      expect(callState(await client.callTool(lookup('12345', `key-${era}`)))).toMatchObject({
        toolCallId: callState(first).toolCallId,
        replayed: true,
      });
      const blocked = (await ledgerOf(flow.app, runId)).find((e) => e.type === 'tool_call.blocked');
      expect(blocked?.metadata).toMatchObject({ reason: 'idempotency_key_reused', errorCode: 'IDEMPOTENCY_KEY_REUSED' });
    },
  );
});

describe('one pending approval per call', () => {
  test.each<Era>(['legacy', 'modern'])(
    '50 concurrent identical invoices (%s): one approval; approved, it runs once and every repeat answers it',
    async (era) => {
      const runId = await startRun(flow);
      const client = await connect(`runs/${runId}`, { era });
      const answers = await Promise.all(Array.from({ length: 50 }, () => client.callTool(invoice(EXPERT_AMOUNT))));
      const states = answers.map(callState);
      expect(new Set(states.map((s) => s.toolCallId)).size).toBe(1);
      expect(states.every((s) => s.status === 'waiting_approval')).toBe(true);
      expect(await count("select count(*) as n from approval_requests where run_id = ? and status = 'pending'", [runId])).toBe(1);
      expect(await count('select count(*) as n from tool_calls where run_id = ?', [runId])).toBe(1);

      await resolve(flow, flow.keys.expert, states[0].approvalRequestId!, 'APPROVE');
      const posts = invoicePosts(flow.app);
      const repeats = await Promise.all(Array.from({ length: 10 }, () => client.callTool(invoice(EXPERT_AMOUNT))));
      expect(repeats.map((r) => callState(r))).toEqual(
        repeats.map(() => expect.objectContaining({ status: 'succeeded', toolCallId: states[0].toolCallId })),
      );
      expect(invoicePosts(flow.app) - posts).toBe(1);
    },
  );

  test('a rule added while the call waits: the repeat after approval runs the approved call, never a new approval', async () => {
    const runId = await startRun(flow);
    const client = await connect(`runs/${runId}`, { era: 'modern' });
    const waiting = callState(await client.callTool(invoice(EXPERT_AMOUNT)));
    const rule = await flow.app.gql(UPSERT_POLICY_RULE, {
      key: flow.keys.admin,
      variables: { input: { name: 'unrelated', position: 9, toolPattern: 'product_lookup', risk: 'low', decision: 'allow' } },
    });
    try {
      await resolve(flow, flow.keys.expert, waiting.approvalRequestId!, 'APPROVE');
      const posts = invoicePosts(flow.app);
      const done = callState(await client.callTool(invoice(EXPERT_AMOUNT)));
      expect(done).toMatchObject({ status: 'succeeded', toolCallId: waiting.toolCallId });
      expect(invoicePosts(flow.app) - posts).toBe(1);
      expect(await count('select count(*) as n from approval_requests where run_id = ?', [runId])).toBe(1);
    } finally {
      await flow.app.gql(DELETE_POLICY_RULE, { key: flow.keys.admin, variables: { id: rule.body.data!.upsertPolicyRule.id } });
    }
  });
});

describe('the governed party never approves its own call', () => {
  test.each<Era>(['legacy', 'modern'])(
    'without mcp_client_approvals (%s) the agent is not asked; the call waits; a client key resolves it',
    async (era) => {
      const asked: string[] = [];
      const runId = await startRun(flow);
      const client = await connect(`runs/${runId}`, { era, elicitation: { decision: 'approve', asked } });
      const posts = invoicePosts(flow.app);
      const waiting = await client.callTool(invoice(CLIENT_AMOUNT));
      expect(callState(waiting).status).toBe('waiting_approval');
      expect(asked).toEqual([]);
      expect(invoicePosts(flow.app)).toBe(posts);
      const resolved = await resolve(flow, flow.keys.client, callState(waiting).approvalRequestId!, 'APPROVE');
      expect(resolved.body.errors).toBeUndefined();
      expect(callState(await client.callTool(invoice(CLIENT_AMOUNT))).status).toBe('succeeded');
      const approved = (await ledgerOf(flow.app, runId)).find((e) => e.type === 'tool_call.approved');
      expect(approved?.metadata).toMatchObject({ channel: 'graphql', principal: { role: 'client', keyId: flow.keyIds.client } });
    },
  );

  test('the v1 client answering its elicitation without the opt-in: not asked, the call still waits', async () => {
    const asked: string[] = [];
    const runId = await startRun(flow);
    const client = await connectV1(`runs/${runId}`, { decision: 'approve', asked });
    const waiting = (await client.callTool(invoice(CLIENT_AMOUNT))) as { _meta?: Record<string, unknown> };
    expect(callState(waiting).status).toBe('waiting_approval');
    expect(asked).toEqual([]);
  });

  test('with mcp_client_approvals on, the client at the MCP session answers; the ledger names the channel and the principal', async () => {
    await setFlag('mcp_client_approvals', true);
    try {
      const asked: string[] = [];
      const runId = await startRun(flow);
      const client = await connect(`runs/${runId}`, { era: 'legacy', elicitation: { decision: 'approve', asked } });
      const done = await client.callTool(invoice(CLIENT_AMOUNT));
      expect(callState(done).status).toBe('succeeded');
      expect(asked).toHaveLength(1);
      const approved = (await ledgerOf(flow.app, runId)).find((e) => e.type === 'tool_call.approved');
      expect(approved?.metadata).toMatchObject({ channel: 'mcp_elicitation', principal: { role: 'agent', keyId: flow.keyIds.agent } });
    } finally {
      await setFlag('mcp_client_approvals', false);
    }
  });
});
