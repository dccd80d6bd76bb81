import type { Client } from '@modelcontextprotocol/client';
import { useDemoApp } from '../support/demo-fixture';
import { SAY } from '../gateway/gateway-helpers';
import { newOrg } from '../support/factories';
import { SetFeatureFlagDocument } from '../../gql/graphql';
import { type Era, INITIALIZE, callState, connectMcp, rawPost } from './mcp-helpers';

const demo = useDemoApp({}, { sandboxes: true });

describe.each<Era>(['legacy', 'modern'])('MCP tools (%s era)', (era) => {
  const clients: Client[] = [];
  const connect = async (path: string, key = demo.seed.keys.agent) => {
    const client = await connectMcp(demo.app, path, key, { era });
    clients.push(client);
    return client;
  };
  afterAll(async () => {
    for (const client of clients) await client.close();
  });

  test('tools/list is the run manifest: catalog names, descriptions and schemas, in order', async () => {
    const run = await demo.gw.startRun();
    const client = await connect(`runs/${run.id}`);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual([...run.allowedTools].sort());
    expect(names).toContain('order_lookup.lookup');
    const lookup = tools.find((t) => t.name === 'order_lookup.lookup')!;
    expect(lookup.inputSchema).toMatchObject({ type: 'object', properties: { orderId: expect.any(Object) } });
    expect(lookup.description).toEqual(expect.any(String));
  });

  test('a call goes through the gateway: structuredContent and text; the row and ledger as for GraphQL', async () => {
    const run = await demo.gw.startRun();
    const client = await connect(`runs/${run.id}`);
    const progress: string[] = [];
    const result = await client.callTool(
      { name: 'order_lookup.lookup', arguments: { orderId: '12345' } },
      { onprogress: (p) => void progress.push(p.message ?? '') },
    );
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      orderNumber: '#12345',
      trackingNumbers: ['TRACK-001'],
      customerEmail: 'bob.norman@example.com',
    });
    expect(JSON.parse((result.content as { text: string }[])[0].text)).toEqual(result.structuredContent);
    expect(progress[0]).toBe('sent to the gateway');
    const call = await demo.gw.call(callState(result).toolCallId);
    expect(call).toMatchObject({ runId: run.id, toolName: 'order_lookup', action: 'lookup', status: 'succeeded' });
    expect(call.ledgerEvents.map((e) => e.type)).toEqual(['tool_call.requested', 'tool_call.succeeded']);
  });

  test('outside the manifest or invalid input: isError with the sentence and code, recorded blocked', async () => {
    const run = await demo.gw.startRun();
    const client = await connect(`runs/${run.id}`);
    const unknown = await client.callTool({ name: 'payroll.run', arguments: {} });
    expect(unknown.isError).toBe(true);
    expect(unknown.content).toEqual([{ type: 'text', text: `${SAY.NOT_IN_MANIFEST} (NOT_IN_MANIFEST)` }]);
    expect((await demo.gw.call(callState(unknown).toolCallId)).errorCode).toBe('NOT_IN_MANIFEST');
    const invalid = await client.callTool({ name: 'order_lookup.lookup', arguments: { orderId: 12345 } });
    expect(invalid.structuredContent).toMatchObject({
      status: 'blocked',
      error: { code: 'INVALID_TOOL_INPUT', message: `${SAY.INVALID_TOOL_INPUT}: /orderId must be string` },
    });
  });

  test('an idempotency key in _meta: the repeated call answers the first one, the vendor is asked once', async () => {
    const run = await demo.gw.startRun();
    const client = await connect(`runs/${run.id}`);
    const before = demo.gw.vendorRequests('shopify');
    const params = { name: 'order_lookup.lookup', arguments: { orderId: '12345' }, _meta: { 'io.toolgate/idempotencyKey': `k-${era}` } };
    const first = await client.callTool(params);
    const again = await client.callTool(params);
    expect(callState(again)).toMatchObject({ toolCallId: callState(first).toolCallId, replayed: true, status: 'succeeded' });
    expect(demo.gw.vendorRequests('shopify') - before).toBe(1);
    expect(await demo.gw.count('tool_calls', 'run_id = ?', [run.id])).toBe(1);
  });

  test('a specialist endpoint opens an external run of the key org', async () => {
    const client = await connect(`specialists/${demo.seed.specialistId}`);
    const result = await client.callTool({ name: 'order_lookup.lookup', arguments: { orderId: '12345' } });
    const call = await demo.gw.call(callState(result).toolCallId);
    const run = await demo.gw.run(call.runId);
    expect(run.status).toBe('running');
    expect(run.ledgerEvents[0]).toMatchObject({ type: 'run.created', metadata: { driver: 'external' } });
  });
});

describe('MCP refusals before anything is listed', () => {
  test('no key 401, a non-agent key 403, a bad id 404, each with its stable code', async () => {
    const run = await demo.gw.startRun();
    expect(await rawPost(demo.app, `runs/${run.id}`, INITIALIZE)).toMatchObject({
      status: 401,
      body: { error: { data: { code: 'UNAUTHENTICATED' } } },
    });
    expect(await rawPost(demo.app, `runs/${run.id}`, INITIALIZE, demo.seed.keys.expert)).toMatchObject({
      status: 403,
      body: { error: { data: { code: 'FORBIDDEN' } } },
    });
    expect(await rawPost(demo.app, 'runs/not-a-uuid', INITIALIZE, demo.seed.keys.agent)).toMatchObject({
      status: 404,
      body: { error: { data: { code: 'NOT_FOUND' } } },
    });
  });

  test.each<Era>(['legacy', 'modern'])('cross-org (%s): another org key finds neither the run, the specialist nor the session', async (era) => {
    const other = await newOrg(demo.app.em());
    await demo.gw.ok(SetFeatureFlagDocument, { key: 'tool_calling_enabled', enabled: true }, other.keys.admin);
    const run = await demo.gw.startRun();
    const refused = (path: string) => connectMcp(demo.app, path, other.keys.agent, { era });
    await expect(refused(`runs/${run.id}`)).rejects.toThrow();
    await expect(refused(`specialists/${demo.seed.specialistId}`)).rejects.toThrow();
    expect(await rawPost(demo.app, `runs/${run.id}`, INITIALIZE, other.keys.agent)).toMatchObject({
      status: 404,
      body: { error: { data: { code: 'NOT_FOUND' } } },
    });
    // A session id alone grants nothing: the other org's key is told it does not exist.
    const mine = await connectMcp(demo.app, `runs/${run.id}`, demo.seed.keys.agent);
    const sessionId = (mine.transport as { sessionId?: string }).sessionId!;
    const hijack = await fetch(new URL(`/mcp/runs/${run.id}`, demo.app.url), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${other.keys.agent}`,
        'mcp-session-id': sessionId,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(hijack.status).toBe(404);
    await mine.close();
    expect(await demo.gw.count('tool_calls', 'run_id = ?', [run.id])).toBe(0);
  });

  test('the feature flag off: no run is opened, nothing is listed (FEATURE_DISABLED)', async () => {
    const runsBefore = await demo.gw.count('agent_runs');
    await demo.gw.setFlag(false);
    try {
      expect(await rawPost(demo.app, `specialists/${demo.seed.specialistId}`, INITIALIZE, demo.seed.keys.agent)).toMatchObject({
        status: 403,
        body: { error: { data: { code: 'FEATURE_DISABLED' } } },
      });
      expect(await demo.gw.count('agent_runs')).toBe(runsBefore);
    } finally {
      await demo.gw.setFlag(true);
    }
  });
});
