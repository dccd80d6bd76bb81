import './lib/production-env';
import { createBenchDatabase } from './lib/database';
import { startBenchServer } from './lib/app';
import { GraphQLClient } from './lib/http-client';
import { profiled, runScript } from './lib/profile';
import { PAGE, READS, bareGraphql, buildReadsOrg } from './scenarios/reads';

/**
 * `BENCH_CPU_PROFILE=<dir> npm run bench:profile-reads`: V8 CPU profiles of the reads
 * scenario's answer (`runs(first: 50)` with `toolCalls`), through graphql-js `execute()`
 * and over HTTP, one caller, for reading where an answer's CPU goes. Not a measurement for
 * the record.
 */
async function main(): Promise<void> {
  const answers = Number(process.env.PROFILE_ANSWERS ?? 300);
  const db = await createBenchDatabase((line) => process.stderr.write(`${line}\n`));
  const server = await startBenchServer(db);
  try {
    const org = await buildReadsOrg(server);
    const bare = bareGraphql(server, org.adminKey);
    const client = new GraphQLClient(server.url, 1);
    const overHttp = () => client.request(READS, { first: PAGE }, org.adminKey);
    for (const [name, op] of [
      ['reads-execute', bare],
      ['reads-http', overHttp],
    ] as const) {
      for (let i = 0; i < answers / 3; i++) await op();
      (globalThis as { gc?: () => void }).gc?.();
      const started = process.hrtime.bigint();
      const cpu = process.cpuUsage();
      await profiled(name, async () => {
        for (let i = 0; i < answers; i++) await op();
      });
      const used = process.cpuUsage(cpu);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      process.stderr.write(
        `${name}: ${answers} answers in ${ms.toFixed(0)} ms, ${(answers / (ms / 1000)).toFixed(0)}/s, CPU ${((used.user + used.system) / 1000 / answers).toFixed(2)} ms/answer\n`,
      );
    }
    client.close();
  } finally {
    await server.close();
    await db.drop();
  }
}

runScript(main);
