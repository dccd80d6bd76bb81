import type { Client } from '@modelcontextprotocol/client';
import { graphql } from '../gql';
import { QBO_DEMO_CUSTOMERS } from '../../src/vendors/nango/nango.sandbox-data';
import { EXPERT_AMOUNT, type Flow, invoicePosts, startFlow } from '../approvals/approval-flow';
import { type Era, callState, connectMcp } from './mcp-helpers';

/**
 * An MCP client's call that an expert approved with edited params: the client repeats the
 * call it made (the requested arguments) and gets the outcome of the edited call, told first
 * that a reviewer changed the params. The client's own approval (elicitation) offers approve
 * or reject only: edits are made in GraphQL (or the console).
 */
const APPROVE_EDITED = graphql(`
  mutation McpApproveEdited($id: ID!, $editedParams: JSONObject) {
    resolveApproval(id: $id, decision: APPROVE, editedParams: $editedParams) { id status edited }
  }
`);

let flow: Flow;
const clients: Client[] = [];
beforeAll(async () => {
  flow = await startFlow();
}, 120_000);
afterAll(async () => {
  for (const client of clients) await client.close();
  await flow?.app.close();
});

const invoice = { name: 'invoice.send', arguments: { customerId: QBO_DEMO_CUSTOMERS.amys, amount: EXPERT_AMOUNT } };
const lastInvoiceAmount = () =>
  (
    flow.app.sandbox!.requests.filter((r) => r.vendor === 'nango' && r.method === 'POST' && r.path.endsWith('/invoice')).at(-1)!.body as {
      Line: { Amount: number }[];
    }
  ).Line[0].Amount;

describe.each<Era>(['legacy', 'modern'])('approve with edits over MCP (%s era)', (era) => {
  test('the repeated call answers the edited call, saying so first; it ran once with the edited amount', async () => {
    const client = await connectMcp(flow.app, `specialists/${flow.specialistId}`, flow.keys.agent, { era });
    clients.push(client);
    const waiting = await client.callTool(invoice);
    const { approvalRequestId, toolCallId } = callState(waiting);
    expect(callState(waiting).status).toBe('waiting_approval');

    const edited = { customerId: QBO_DEMO_CUSTOMERS.amys, amount: 99 };
    const approved = await flow.app.gql(APPROVE_EDITED, { key: flow.keys.expert, variables: { id: approvalRequestId!, editedParams: edited } });
    expect(approved.body.data?.resolveApproval).toMatchObject({ status: 'approved', edited: true });

    const posts = invoicePosts(flow.app);
    // The client repeats what it asked for: the approval is found by the requested binding.
    const done = await client.callTool(invoice);
    expect(callState(done)).toMatchObject({ status: 'succeeded', toolCallId, editedParams: edited });
    expect(done.structuredContent).toMatchObject({ totalAmount: 99 });
    const [notice, result] = done.content as { type: string; text: string }[];
    const told =
      /^A reviewer changed the parameters of this tool call before approving it; it ran with (\{.*\}), not with the parameters you requested\.$/.exec(
        notice.text,
      );
    expect(JSON.parse(told![1])).toEqual(edited);
    expect(JSON.parse(result.text)).toMatchObject({ totalAmount: 99 });
    expect(invoicePosts(flow.app) - posts).toBe(1);
    expect(lastInvoiceAmount()).toBe(99);

    const again = await client.callTool(invoice);
    expect(callState(again)).toMatchObject({ status: 'succeeded', toolCallId, replayed: true, editedParams: edited });
    expect((again.content as { text: string }[])[0].text).toContain('A reviewer changed the parameters');
    expect(invoicePosts(flow.app) - posts).toBe(1);
  });
});
