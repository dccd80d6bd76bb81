import { useDemoApp } from '../support/demo-fixture';
import { type ToolCallNode, eventTrail, rowOf } from '../gateway/gateway-helpers';
import { type Era, callState, connectMcp } from './mcp-helpers';

const demo = useDemoApp({}, { sandboxes: true });

/** What must not differ between the two transports: the row, the decision, the ledger trail. */
const decided = (call: ToolCallNode) => ({
  row: rowOf(call),
  toolName: call.toolName,
  action: call.action,
  decision: call.policyDecision && { outcome: call.policyDecision.outcome, risk: call.policyDecision.risk, reason: call.policyDecision.reason },
  trail: eventTrail(call),
  approval: call.approvalRequest && { kind: call.approvalRequest.kind, status: call.approvalRequest.status },
});

const CASES: [string, string, string, Record<string, unknown>][] = [
  ['succeeded', 'order_lookup', 'lookup', { orderId: '12345' }],
  ['not in manifest', 'payroll', 'run', { employees: 3 }],
  ['invalid input', 'order_lookup', 'lookup', { orderId: 12345 }],
  ['expert approval', 'invoice', 'send', { customerId: '1', amount: 20 }],
];

describe.each<Era>(['legacy', 'modern'])('GraphQL and MCP decide alike (%s era)', (era) => {
  test.each(CASES)('%s', async (_case, toolName, action, params) => {
    const graphqlRun = await demo.gw.startRun();
    const viaGraphql = await demo.gw.execute(graphqlRun.id, toolName, action, params);
    const mcpRun = await demo.gw.startRun();
    const client = await connectMcp(demo.app, `runs/${mcpRun.id}`, demo.seed.keys.agent, { era });
    try {
      const viaMcp = callState(await client.callTool({ name: `${toolName}.${action}`, arguments: params }));
      expect(viaMcp.status).toBe(viaGraphql.status);
      expect(decided(await demo.gw.call(viaMcp.toolCallId))).toEqual(decided(await demo.gw.call(viaGraphql.toolCallId)));
    } finally {
      await client.close();
    }
  });
});

describe('MCP clients and metadata', () => {
  test('a 2025-06-18 client negotiates its revision and is served', async () => {
    const run = await demo.gw.startRun();
    const client = await connectMcp(demo.app, `runs/${run.id}`, demo.seed.keys.agent, { protocolVersion: '2025-06-18' });
    try {
      expect((client.transport as { protocolVersion?: string }).protocolVersion).toBe('2025-06-18');
      expect((await client.listTools()).tools.length).toBe(run.allowedTools.length);
    } finally {
      await client.close();
    }
  });

  test('a traceparent in _meta is recorded as the call correlation id', async () => {
    const run = await demo.gw.startRun();
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const client = await connectMcp(demo.app, `runs/${run.id}`, demo.seed.keys.agent);
    try {
      const result = await client.callTool({ name: 'order_lookup.lookup', arguments: { orderId: '12345' }, _meta: { traceparent } });
      expect((await demo.gw.call(callState(result).toolCallId)).correlationId).toBe(traceparent);
    } finally {
      await client.close();
    }
  });

  test("a retry is safe with the client's own key; the JSON-RPC id is never a key (re-sent without one, it is a new call)", async () => {
    const run = await demo.gw.startRun();
    const client = await connectMcp(demo.app, `runs/${run.id}`, demo.seed.keys.agent);
    const transport = client.transport as { sessionId?: string; protocolVersion?: string };
    const before = demo.gw.vendorRequests('shopify');
    const send = (meta?: Record<string, unknown>) =>
      fetch(new URL(`/mcp/runs/${run.id}`, demo.app.url), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${demo.seed.keys.agent}`,
          'mcp-session-id': transport.sessionId!,
          'mcp-protocol-version': transport.protocolVersion!,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 77,
          method: 'tools/call',
          params: { name: 'order_lookup.lookup', arguments: { orderId: '12345' }, ...(meta ? { _meta: meta } : {}) },
        }),
      }).then((response) => response.text());
    try {
      const keyed = { 'io.toolgate/idempotencyKey': 'retry-1' };
      const [first, retry] = [await send(keyed), await send(keyed)];
      expect(first).toContain('"orderNumber":"#12345"');
      expect(retry).toContain('"replayed":true');
      expect(await demo.gw.count('tool_calls', 'run_id = ?', [run.id])).toBe(1);
      expect(demo.gw.vendorRequests('shopify') - before).toBe(1);
      // The same JSON-RPC id without a key: another client could send it too, so it is a new call.
      expect(await send()).toContain('"replayed":false');
      expect(await demo.gw.count('tool_calls', 'run_id = ?', [run.id])).toBe(2);
    } finally {
      await client.close();
    }
  });

  test('a bad idempotency key is refused as invalid params with BAD_USER_INPUT, and nothing is recorded', async () => {
    const run = await demo.gw.startRun();
    const client = await connectMcp(demo.app, `runs/${run.id}`, demo.seed.keys.agent);
    try {
      await expect(
        client.callTool({ name: 'order_lookup.lookup', arguments: { orderId: '12345' }, _meta: { 'io.toolgate/idempotencyKey': 42 } }),
      ).rejects.toMatchObject({ code: -32602, data: { code: 'BAD_USER_INPUT' } });
      expect(await demo.gw.count('tool_calls', 'run_id = ?', [run.id])).toBe(0);
    } finally {
      await client.close();
    }
  });
});
