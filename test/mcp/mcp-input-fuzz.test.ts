import type { Client } from '@modelcontextprotocol/client';
import { useDemoApp } from '../support/demo-fixture';
import { connectMcp, mcpUrl } from './mcp-helpers';

/**
 * /mcp gets what the GraphQL input fuzz gives GraphQL: every argument of every tool in a
 * run's manifest (read from tools/list) with bad values — a NUL, a string far over any
 * limit, the wrong type, a deep object, a huge number — and malformed tools/call requests
 * (no name, a name with a NUL, arguments that are not an object, a bad idempotency key).
 * Every answer is an MCP answer: a tool result with isError and a stable code, or a
 * JSON-RPC error; never HTTP 5xx or INTERNAL_SERVER_ERROR. No log line carries the values,
 * nothing bad is sent to a vendor, and the server is healthy after.
 */
const MARK = 'fuzzmcp9d';
const demo = useDemoApp({}, { sandboxes: true, captureLogs: true });

interface ToolSchema {
  name: string;
  inputSchema: { properties?: Record<string, { type?: string }>; required?: string[] };
}

/** Bad values for one property, by its declared type. */
function badValues(type: string | undefined): { name: string; value: unknown }[] {
  const deep: Record<string, unknown> = {};
  let cursor = deep;
  for (let i = 0; i < 200; i++) {
    cursor.next = {};
    cursor = cursor.next as Record<string, unknown>;
  }
  cursor[MARK] = 1;
  const common = [
    { name: 'NUL', value: `${MARK}\u0000` },
    { name: 'over-long', value: MARK + 'x'.repeat(200_000) },
    { name: 'deep object', value: deep },
    { name: 'huge number', value: 1e308 },
    { name: 'array of marks', value: [MARK, { [MARK]: [MARK] }] },
  ];
  return type === 'string'
    ? [...common, { name: 'wrong type', value: { [MARK]: true } }]
    : [...common, { name: 'wrong type', value: `${MARK}-' or 1=1 --` }];
}

/** What an answer says, as codes: the tool result's code, or the JSON-RPC error's. */
function codesOf(result: { isError?: boolean; structuredContent?: unknown; content?: unknown }): string[] {
  const structured = result.structuredContent as { error?: { code?: string } } | undefined;
  const text = ((result.content as { type: string; text?: string }[] | undefined) ?? []).map((c) => c.text ?? '').join(' ');
  const code = structured?.error?.code ?? /\(([A-Z_]+)\)\s*$/.exec(text)?.[1];
  return code ? [code] : [];
}

describe('/mcp under hostile arguments', () => {
  let client: Client;
  let tools: ToolSchema[];
  let runId: string;

  beforeAll(async () => {
    const run = await demo.gw.startRun();
    runId = run.id;
    client = await connectMcp(demo.app, `runs/${run.id}`, demo.seed.keys.agent, { era: 'modern' });
    tools = (await client.listTools()).tools as ToolSchema[];
  });
  afterAll(async () => {
    await client?.close();
  });

  test('every argument of every tool, with every bad value: an isError result with a stable code, nothing sent to a vendor', async () => {
    expect(tools.length).toBeGreaterThan(5);
    const vendorBefore = demo.gw.vendorRequests('shopify');
    const failures: string[] = [];
    let cases = 0;
    for (const tool of tools) {
      const properties = Object.entries(tool.inputSchema.properties ?? {});
      for (const [property, schema] of properties) {
        for (const bad of badValues(schema.type)) {
          cases += 1;
          const label = `${tool.name}(${property}) ${bad.name}`;
          try {
            const result = await client.callTool({ name: tool.name, arguments: { [property]: bad.value } });
            const codes = codesOf(result);
            if (!result.isError) failures.push(`${label}: not an error`);
            if (codes.length === 0 || codes.includes('INTERNAL_SERVER_ERROR')) failures.push(`${label}: ${codes.join(',') || 'no code'}`);
          } catch (error) {
            // A JSON-RPC error is an answer too, when it names the problem (never an internal error).
            const message = (error as Error).message;
            if (/internal|5\d\d/i.test(message)) failures.push(`${label}: ${message.slice(0, 200)}`);
          }
        }
      }
    }
    expect(cases).toBeGreaterThan(50);
    expect(failures).toEqual([]);
    // Nothing that failed its schema reached the vendor.
    expect(demo.gw.vendorRequests('shopify')).toBe(vendorBefore);
  }, 180_000);

  test('malformed tools/call requests get a JSON-RPC error or an isError result, never a 5xx', async () => {
    const post = async (body: unknown) => {
      const response = await fetch(mcpUrl(demo.app, `runs/${runId}`), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${demo.seed.keys.agent}`,
          'mcp-protocol-version': '2026-07-28',
        },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      return { status: response.status, text: await response.text() };
    };
    const call = (params: unknown, id = 7) => ({ jsonrpc: '2.0', id, method: 'tools/call', params });
    const shapes: [string, unknown][] = [
      ['no params', { jsonrpc: '2.0', id: 1, method: 'tools/call' }],
      ['no name', call({ arguments: {} })],
      ['name with a NUL', call({ name: `order_lookup.lookup\u0000${MARK}`, arguments: {} })],
      ['name not a string', call({ name: { [MARK]: 1 }, arguments: {} })],
      ['over-long name', call({ name: MARK + 'n'.repeat(100_000), arguments: {} })],
      ['arguments an array', call({ name: 'order_lookup.lookup', arguments: [MARK] })],
      ['arguments a string', call({ name: 'order_lookup.lookup', arguments: MARK })],
      [
        'key an object',
        call({ name: 'order_lookup.lookup', arguments: { orderId: '12345' }, _meta: { 'io.toolgate/idempotencyKey': { [MARK]: 1 } } }),
      ],
      [
        'key with a NUL',
        call({ name: 'order_lookup.lookup', arguments: { orderId: '12345' }, _meta: { 'io.toolgate/idempotencyKey': `${MARK}\u0000` } }),
      ],
      [
        'key over-long',
        call({ name: 'order_lookup.lookup', arguments: { orderId: '12345' }, _meta: { 'io.toolgate/idempotencyKey': MARK + 'k'.repeat(10_000) } }),
      ],
      ['not JSON', `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${MARK}`],
      ['id an object', { jsonrpc: '2.0', id: { [MARK]: 1 }, method: 'tools/call', params: { name: 'order_lookup.lookup', arguments: {} } }],
      ['a batch', [call({ name: 'order_lookup.lookup', arguments: { orderId: MARK } }, 1), call({ name: MARK, arguments: {} }, 2)]],
    ];
    const failures: string[] = [];
    for (const [label, body] of shapes) {
      const { status, text } = await post(body);
      if (status >= 500) failures.push(`${label}: HTTP ${status}`);
      if (/INTERNAL_SERVER_ERROR|Internal error/i.test(text)) failures.push(`${label}: ${text.slice(0, 200)}`);
      if (status === 200 && !/"error"|"isError":true/.test(text)) failures.push(`${label}: answered as a success: ${text.slice(0, 200)}`);
    }
    expect(failures).toEqual([]);
  });

  test('no log line carries a fuzzed value, and the server is healthy after', async () => {
    expect(demo.app.logs.filter((line) => line.includes(MARK))).toEqual([]);
    const result = await client.callTool({ name: 'order_lookup.lookup', arguments: { orderId: '12345' } });
    expect(result.isError).toBeFalsy();
  });
});
