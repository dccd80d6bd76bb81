import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { TOOLS, type BenchOrg, type BenchServer } from '../lib/app';
import { GraphQLClient } from '../lib/http-client';
import { figure, measure, type BenchContext, type Figure, type Variant } from '../lib/measure';
import { GOALS, percent } from '../lib/goals';
import { EXECUTE, callers, nextCallIds } from './gateway';

/**
 * 8. MCP: the same allowed `order_lookup.lookup` as scenario 1, as an MCP `tools/call`
 * (the official SDK client over Streamable HTTP, a 2025-11-25 session bound to the
 * caller's run at `/mcp/runs/:id`) against `executeToolCall` over HTTP in the same rounds.
 * The difference is what MCP adds: JSON-RPC and the SDK on both sides, the run binding and
 * the approval lookup before the gateway, the result rendering. Goal (round three): MCP
 * throughput ≥ 80 % of executeToolCall's at the same concurrency, in the same org.
 */
const TOOL = TOOLS[0];
const TOOL_NAME = `${TOOL.toolName}.${TOOL.action}`;

export async function mcpScenario(ctx: BenchContext, env: { server: BenchServer; demo: BenchOrg }): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const concurrency of [1, 8]) {
    ctx.log(`MCP: ${concurrency} concurrent caller(s)`);
    const set = await callers(env.server, () => env.demo, concurrency);
    const http = new GraphQLClient(env.server.url, concurrency);
    const sessions = await Promise.all(set.runIds.map((runId) => connect(env.server, runId, env.demo.agentKey)));
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
          label: 'MCP tools/call (SDK client, Streamable HTTP)',
          op: async (i) => {
            const result = await sessions[i].callTool({ name: TOOL_NAME, arguments: { ...TOOL.params } });
            if (result.isError) throw new Error(`tools/call failed: ${JSON.stringify(result.content)}`);
          },
        },
      ];
      const m = await measure(ctx, 'mcp', concurrency, variants);
      figures.push(
        figure(
          {
            id: `mcp.call.c${concurrency}`,
            section: 'MCP tools/call against executeToolCall',
            name: 'MCP tools/call',
            concurrency,
            subject: m.mcp,
            baselineName: 'executeToolCall over HTTP',
            baseline: m.graphql,
            note: 'the same allowed call, the instant vendor; Δp50 is what MCP adds',
          },
          ({ ratio }) => [
            {
              label: `throughput ≥ ${percent(GOALS.mcpOfHttp)} of executeToolCall over HTTP`,
              short: `≥${percent(GOALS.mcpOfHttp)}`,
              pass: ratio >= GOALS.mcpOfHttp,
            },
          ],
        ),
      );
    } finally {
      http.close();
      await Promise.all(sessions.map((session) => session.close()));
    }
  }
  return figures;
}

async function connect(server: BenchServer, runId: string, key: string): Promise<Client> {
  const client = new Client({ name: 'toolgate-bench', version: '1.0.0' }, { capabilities: {} });
  const url = new URL(`/mcp/runs/${runId}`, server.url);
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
}
