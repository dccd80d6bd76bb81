import type { Client } from '@modelcontextprotocol/client';
import { QBO_DEMO_CUSTOMERS } from '../../src/vendors/nango/nango.sandbox-data';
import { SetFeatureFlagDocument } from '../../gql/graphql';
import {
  CLIENT_AMOUNT,
  EXPERT_AMOUNT,
  type Flow,
  executeApproved,
  invoicePosts,
  ledgerOf,
  ledgerTypes,
  requestInvoice,
  resolve,
  startFlow,
  startRun,
} from '../approvals/approval-flow';
import { type Era, callState, connectMcp } from './mcp-helpers';

let flow: Flow;
const clients: Client[] = [];
beforeAll(async () => {
  flow = await startFlow();
  // This suite's org lets the person at the MCP client answer client approvals (off by default: mcp-identity.test.ts).
  const flag = await flow.app.gql(SetFeatureFlagDocument, { key: flow.keys.admin, variables: { key: 'mcp_client_approvals', enabled: true } });
  if (flag.body.errors) throw new Error(JSON.stringify(flag.body.errors));
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await flow.app.close();
});

async function connect(path: string, options: Parameters<typeof connectMcp>[3]) {
  const client = await connectMcp(flow.app, path, flow.keys.agent, options);
  clients.push(client);
  return client;
}

/** The run a call was recorded in. */
const runOf = async (toolCallId: string) =>
  (await flow.app.em().getConnection().execute<{ run_id: string }[]>('select run_id from tool_calls where id = ?', [toolCallId]))[0].run_id;

const invoice = (amount: number) => ({ name: 'invoice.send', arguments: { customerId: QBO_DEMO_CUSTOMERS.amys, amount } });

/** A run's ledger event types in order. */
const trail = async (runId: string) => (await ledgerTypes(flow.app, runId)).join(' → ');

describe.each<Era>(['legacy', 'modern'])('approvals over MCP (%s era)', (era) => {
  test('done: list, look up #12345, invoice.send waits for an expert who approves in GraphQL, then the result — the ledger trail of the GraphQL path', async () => {
    const client = await connect(`specialists/${flow.specialistId}`, { era });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['invoice.send', 'order_lookup.lookup']));

    const lookup = await client.callTool({ name: 'order_lookup.lookup', arguments: { orderId: '12345' } });
    expect(lookup.structuredContent).toMatchObject({ orderNumber: '#12345' });
    const runId = await runOf(callState(lookup).toolCallId);

    const waiting = await client.callTool(invoice(EXPERT_AMOUNT));
    expect(waiting.isError).toBeFalsy();
    const { approvalRequestId, toolCallId } = callState(waiting);
    expect(callState(waiting).status).toBe('waiting_approval');
    expect((waiting.content as { text: string }[])[0].text).toContain(`approval by an expert (approval request ${approvalRequestId})`);
    // Asked again before anyone decided: still waiting, no second approval.
    expect(callState(await client.callTool(invoice(EXPERT_AMOUNT)))).toMatchObject({ status: 'waiting_approval', toolCallId });

    const posts = invoicePosts(flow.app);
    expect((await resolve(flow, flow.keys.expert, approvalRequestId!, 'APPROVE', 'checked')).body.errors).toBeUndefined();
    const done = await client.callTool(invoice(EXPERT_AMOUNT));
    expect(callState(done)).toMatchObject({ status: 'succeeded', toolCallId });
    expect(done.structuredContent).toMatchObject({ totalAmount: EXPERT_AMOUNT });
    // Once: a further repeat answers the same call; QuickBooks got one invoice.
    expect(callState(await client.callTool(invoice(EXPERT_AMOUNT)))).toMatchObject({ status: 'succeeded', toolCallId, replayed: true });
    expect(invoicePosts(flow.app) - posts).toBe(1);

    // The same steps through GraphQL leave the same trail.
    const gqlRun = await startRun(flow);
    await flow.app.gql(`mutation($i: ExecuteToolCallInput!) { executeToolCall(input: $i) { status } }`, {
      key: flow.keys.agent,
      variables: { i: { runId: gqlRun, toolName: 'order_lookup', action: 'lookup', params: { orderId: '12345' }, correlationId: 'c-1' } },
    });
    const gqlCall = await requestInvoice(flow, gqlRun);
    await resolve(flow, flow.keys.expert, gqlCall.approvalRequestId!, 'APPROVE', 'checked');
    expect((await executeApproved(flow, gqlCall.toolCallId)).body.data?.executeApprovedToolCall.status).toBe('succeeded');
    expect(await trail(runId)).toBe(await trail(gqlRun));
  });

  test('a client approval is an elicitation showing the exact parameters; approve runs the call in the same tools/call', async () => {
    const asked: string[] = [];
    const client = await connect(`runs/${await startRun(flow)}`, { era, elicitation: { decision: 'approve', asked } });
    const posts = invoicePosts(flow.app);
    const result = await client.callTool(invoice(CLIENT_AMOUNT));
    expect(callState(result).status).toBe('succeeded');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain(`invoice.send with exactly these parameters: {"customerId":"${QBO_DEMO_CUSTOMERS.amys}","amount":${CLIENT_AMOUNT}}`);
    expect(invoicePosts(flow.app) - posts).toBe(1);
    const approved = (await ledgerOf(flow.app, await runOf(callState(result).toolCallId))).find((e) => e.type === 'tool_call.approved');
    expect(approved?.metadata).toMatchObject({ kind: 'client', via: 'mcp_elicitation', approvalRequestId: callState(result).approvalRequestId });
  });

  test('a client who rejects in the elicitation: CLIENT_REJECTED, nothing sent to the vendor', async () => {
    const client = await connect(`runs/${await startRun(flow)}`, { era, elicitation: { decision: 'reject', asked: [] } });
    const posts = invoicePosts(flow.app);
    const result = await client.callTool(invoice(CLIENT_AMOUNT));
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ status: 'blocked', error: { code: 'CLIENT_REJECTED' } });
    expect(invoicePosts(flow.app)).toBe(posts);
  });

  test('a client that cannot elicit: the call waits; the client key approves in GraphQL; the repeat answers the result', async () => {
    const client = await connect(`runs/${await startRun(flow)}`, { era });
    const waiting = await client.callTool(invoice(CLIENT_AMOUNT));
    expect(callState(waiting).status).toBe('waiting_approval');
    expect((waiting.content as { text: string }[])[0].text).toContain('approval by the client');
    await resolve(flow, flow.keys.client, callState(waiting).approvalRequestId!, 'APPROVE');
    expect(callState(await client.callTool(invoice(CLIENT_AMOUNT))).status).toBe('succeeded');
  });
});
