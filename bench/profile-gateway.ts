import './lib/production-env';
import { createBenchDatabase } from './lib/database';
import { demoOrg, newRun, startBenchServer, TOOLS } from './lib/app';
import { GraphQLClient } from './lib/http-client';
import { profiled } from './lib/profile';
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
      await drive(callers, calls / 3, op);
      const started = process.hrtime.bigint();
      const cpu = process.cpuUsage();
      await profiled(name, () => drive(callers, calls, op));
      const used = process.cpuUsage(cpu);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      process.stderr.write(
        `${name}: ${calls} calls in ${ms.toFixed(0)} ms, ${(calls / (ms / 1000)).toFixed(0)}/s, CPU ${((used.user + used.system) / 1000 / calls).toFixed(2)} ms/call\n`,
      );
    }
  } finally {
    await server.close();
    await db.drop();
  }
}

async function drive(callers: number, total: number, op: (caller: number) => Promise<unknown>): Promise<void> {
  let left = total;
  await Promise.all(
    Array.from({ length: callers }, async (_, i) => {
      while (left-- > 0) await op(i);
    }),
  );
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
