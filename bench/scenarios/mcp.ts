import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { TOOLS, type BenchOrg, type BenchServer } from '../lib/app';
import { GOALS, percent } from '../lib/goals';
import { GraphQLClient } from '../lib/http-client';
import { McpLeanClient } from '../lib/mcp-client';
import { figure, measure, type BenchContext, type Figure, type Variant } from '../lib/measure';
import { EXECUTE, callers, nextCallIds } from './gateway';
import { META } from '../../src/mcp/mcp-result';

/**
 * 8. MCP: the same allowed `order_lookup.lookup` as scenario 1, as an MCP `tools/call`
 * through `/mcp/runs/:id` (a 2025-11-25 session per caller, opened by the official SDK
 * client over Streamable HTTP), against `executeToolCall` over HTTP in the same rounds, same
 * org, same concurrency. Each call carries its idempotency key (`_meta`), as each
 * executeToolCall carries its toolUseId, so the gateway does the same work for both.
 * The subject with the goal (round three: ≥ 80 %) sends tools/call as JSON-RPC on node:http
 * in that session — a client of the same weight as the GraphQL one; the SDK client's own
 * figure (fetch, zod, in this process) is reported beside it at 8 callers.
 */
const TOOL = TOOLS[0];
const TOOL_NAME = `${TOOL.toolName}.${TOOL.action}`;
const IDEMPOTENCY_KEY = META.idempotencyKey;

export async function mcpScenario(ctx: BenchContext, env: { server: BenchServer; demo: BenchOrg }): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const concurrency of [1, 8]) {
    ctx.log(`MCP: ${concurrency} concurrent caller(s)`);
    const set = await callers(env.server, () => env.demo, concurrency);
    const http = new GraphQLClient(env.server.url, concurrency);
    const sessions = await Promise.all(set.runIds.map((runId) => connect(env.server, runId, env.demo.agentKey)));
    const lean = sessions.map((s) => s.lean);
    const withSdk = concurrency >= 8;
    try {
      const variants: Variant[] = [
        {
          key: 'graphql',
          label: 'executeToolCall over HTTP',
          prepare: () => http.reset(),
          op: async (i) => {
            await http.request(EXECUTE, { input: { runId: set.runIds[i], ...TOOL, ...nextCallIds() } }, env.demo.agentKey);
          },
        },
        {
          key: 'mcp',
          label: 'MCP tools/call (JSON-RPC, node:http)',
          prepare: () => {
            for (const client of lean) client.reset();
          },
          op: async (i) => {
            const result = await lean[i].callTool(TOOL_NAME, { ...TOOL.params }, { [IDEMPOTENCY_KEY]: nextCallIds().toolUseId });
            if (result.isError) throw new Error(`tools/call failed: ${JSON.stringify(result.content)}`);
          },
        },
        ...(withSdk
          ? [
              {
                key: 'sdk',
                label: 'MCP tools/call (SDK client)',
                op: async (i: number) => {
                  const result = await sessions[i].sdk.callTool({
                    name: TOOL_NAME,
                    arguments: { ...TOOL.params },
                    _meta: { [IDEMPOTENCY_KEY]: nextCallIds().toolUseId },
                  });
                  if (result.isError) throw new Error(`tools/call failed: ${JSON.stringify(result.content)}`);
                },
              },
            ]
          : []),
      ];
      const m = await measure(ctx, 'mcp', concurrency, variants);
      const common = {
        section: 'MCP tools/call against executeToolCall',
        concurrency,
        baselineName: 'executeToolCall over HTTP',
        baseline: m.graphql,
        note: 'the same allowed call with its idempotency key, the instant vendor, one org; Δp50 is what MCP adds',
      };
      figures.push(
        figure({ ...common, id: `mcp.call.c${concurrency}`, name: 'MCP tools/call', subject: m.mcp }, ({ ratio }) => [
          {
            label: `throughput ≥ ${percent(GOALS.mcpOfHttp)} of executeToolCall over HTTP`,
            short: `≥${percent(GOALS.mcpOfHttp)}`,
            pass: ratio >= GOALS.mcpOfHttp,
          },
        ]),
      );
      if (withSdk) figures.push(figure({ ...common, id: `mcp.sdk.c${concurrency}`, name: 'MCP tools/call, SDK client', subject: m.sdk }));
    } finally {
      http.close();
      for (const client of lean) client.close();
      await Promise.all(sessions.map((session) => session.sdk.close()));
    }
  }
  return figures;
}

/** A 2025-era session opened by the SDK client, and the lean client in the same session. */
async function connect(server: BenchServer, runId: string, key: string): Promise<{ sdk: Client; lean: McpLeanClient }> {
  const sdk = new Client({ name: 'toolgate-bench', version: '1.0.0' }, { capabilities: {} });
  const url = new URL(`/mcp/runs/${runId}`, server.url);
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${key}` } } });
  await sdk.connect(transport);
  const { sessionId, protocolVersion } = transport;
  if (!sessionId || !protocolVersion) throw new Error('the MCP session has no id or protocol version');
  return { sdk, lean: new McpLeanClient(url.toString(), { sessionId, protocolVersion, key }) };
}
