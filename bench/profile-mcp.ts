import './lib/production-env';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createBenchDatabase } from './lib/database';
import { demoOrg, newRun, startBenchServer, TOOLS } from './lib/app';
import { GraphQLClient } from './lib/http-client';
import { profileOps, runScript } from './lib/profile';
import { EXECUTE, nextCallIds } from './scenarios/gateway';

/**
 * `BENCH_CPU_PROFILE=<dir> npm run bench:profile-mcp`: V8 CPU profiles of the same allowed
 * call as executeToolCall over HTTP and as an MCP tools/call (the SDK client over
 * Streamable HTTP, a 2025-11-25 session per caller), 8 callers in the demo org, with CPU
 * per call. Not a measurement for the record.
 */
async function main(): Promise<void> {
  const calls = Number(process.env.PROFILE_CALLS ?? 2000);
  const callers = 8;
  const db = await createBenchDatabase((line) => process.stderr.write(`${line}\n`));
  const server = await startBenchServer(db);
  const sessions: Client[] = [];
  try {
    const org = await demoOrg(server);
    const runs = await Promise.all(Array.from({ length: callers }, () => newRun(server, org)));
    const tool = TOOLS[0];
    for (const runId of runs) {
      const client = new Client({ name: 'toolgate-bench', version: '1.0.0' }, { capabilities: {} });
      const url = new URL(`/mcp/runs/${runId}`, server.url);
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${org.agentKey}` } } }));
      sessions.push(client);
    }
    const http = new GraphQLClient(server.url, callers);
    const overHttp = (i: number) =>
      http.request(
        EXECUTE,
        { input: { runId: runs[i], toolName: tool.toolName, action: tool.action, params: tool.params, ...nextCallIds() } },
        org.agentKey,
      );
    const overMcp = async (i: number) => {
      const result = await sessions[i].callTool({ name: `${tool.toolName}.${tool.action}`, arguments: { ...tool.params } });
      if (result.isError) throw new Error(`tools/call failed: ${JSON.stringify(result.content)}`);
    };
    for (const [name, op] of [
      ['graphql-http', overHttp],
      ['mcp-http', overMcp],
    ] as const) {
      await profileOps(name, callers, calls, calls / 4, op);
    }
    http.close();
  } finally {
    await Promise.all(sessions.map((s) => s.close().catch(() => undefined)));
    await server.close();
    await db.drop();
  }
}

runScript(main);
