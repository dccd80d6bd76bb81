import './lib/production-env';
import { createBenchDatabase } from './lib/database';
import { demoOrg, newRun, startBenchServer, TOOLS } from './lib/app';
import { GraphQLClient } from './lib/http-client';
import { profileOps, runScript } from './lib/profile';
import { EXECUTE, nextCallIds } from './scenarios/gateway';

/**
 * `BENCH_CPU_PROFILE=<dir> npm run bench:profile`: V8 CPU profiles of the gateway path,
 * in-process and over HTTP, 8 callers in the demo org, for reading where a call's CPU goes.
 * Not a measurement for the record.
 */
async function main(): Promise<void> {
  const calls = Number(process.env.PROFILE_CALLS ?? 3000);
  const callers = 8;
  const db = await createBenchDatabase((line) => process.stderr.write(`${line}\n`));
  const server = await startBenchServer(db);
  try {
    const org = await demoOrg(server);
    const runs = await Promise.all(Array.from({ length: callers }, () => newRun(server, org)));
    const tool = TOOLS[0];
    const inProcess = (i: number) =>
      server.services.gateway.execute({
        runId: runs[i],
        toolName: tool.toolName,
        action: tool.action,
        params: tool.params,
        ...nextCallIds(),
        caller: org.agent,
      });
    const client = new GraphQLClient(server.url, callers);
    const overHttp = (i: number) =>
      client.request(
        EXECUTE,
        { input: { runId: runs[i], toolName: tool.toolName, action: tool.action, params: tool.params, ...nextCallIds() } },
        org.agentKey,
      );
    for (const [name, op] of [
      ['gateway-inprocess', inProcess],
      ['gateway-http', overHttp],
    ] as const) {
      await profileOps(name, callers, calls, calls / 3, op);
    }
  } finally {
    await server.close();
    await db.drop();
  }
}

runScript(main);
