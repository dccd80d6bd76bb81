import { newRun, rawPool, startBenchServer, TOOLS, type BenchOrg } from '../lib/app';
import type { BenchDatabase } from '../lib/database';
import { GraphQLClient } from '../lib/http-client';
import { rawToolCall } from '../lib/raw-tool-call';
import type { BenchContext } from '../lib/measure';
import { EXECUTE, nextCallIds } from './gateway';
import { loadTool, ormPersist } from './orm';
import { PAGE, READS, bareGraphql, handSql } from './reads';

/**
 * SQL statements per operation (BEGIN and COMMIT included), counted on a second server
 * whose ORM reports every statement (`initOrm({ onQuery })`) and on a raw pool that does
 * the same. Counting costs CPU, so the timed servers never count.
 */
export interface StatementCounts {
  perOp: Record<string, number>;
  /** The statements of one executeToolCall, in order (parameters not shown). */
  gatewayCall: string[];
  /** The raw baseline's statements for one call, normalized the same way. */
  rawCall: string[];
  /** Where the baseline's statements differ from the gateway's (empty: identical). */
  baselineDiff: string[];
}

const ROUNDS = 10;

export async function countStatements(ctx: BenchContext, db: BenchDatabase, orgs: { demo: BenchOrg; reads: BenchOrg }): Promise<StatementCounts> {
  ctx.log('counting SQL statements per operation (a separate, counting server)');
  const seen: string[] = [];
  const server = await startBenchServer(db, { onQuery: (sql) => seen.push(sql) });
  const pool = rawPool(db, { max: 2, onQuery: (sql) => seen.push(sql) });
  const client = new GraphQLClient(server.url, 1);
  try {
    const { demo, reads } = orgs;
    const runId = await newRun(server, demo);
    const tool = TOOLS[0];
    const persist = ormPersist(server, await loadTool(server));
    const bare = bareGraphql(server, reads.adminKey);
    const sql = handSql(pool, reads.adminKey);
    const raw = { orgId: demo.orgId, runId, caller: demo.agent, ...tool, policyVersion: 1 };
    const ops: Record<string, () => Promise<unknown>> = {
      'gateway.raw': () => rawToolCall(pool, { ...raw, ...nextCallIds() }, { reads: true, notifier: null }),
      'gateway.inproc': () =>
        server.services.gateway.execute({
          runId,
          toolName: tool.toolName,
          action: tool.action,
          params: tool.params,
          ...nextCallIds(),
          caller: demo.agent,
        }),
      'gateway.http': () =>
        client.request(
          EXECUTE,
          { input: { runId, toolName: tool.toolName, action: tool.action, params: tool.params, ...nextCallIds() } },
          demo.agentKey,
        ),
      'orm.raw': () => rawToolCall(pool, { ...raw, ...nextCallIds() }, { reads: false, notifier: null }),
      'orm.orm': () => persist(demo, runId),
      'reads.sql': () => sql(),
      'reads.bare': () => bare(),
      'reads.http': () => client.request(READS, { first: PAGE }, reads.adminKey),
    };
    const perOp: Record<string, number> = {};
    let gatewayCall: string[] = [];
    let rawCall: string[] = [];
    for (const [key, op] of Object.entries(ops)) {
      await op(); // caches warm (org config, catalog) before counting
      seen.length = 0;
      for (let i = 0; i < ROUNDS; i++) {
        if ((key === 'gateway.inproc' || key === 'gateway.raw') && i === ROUNDS - 1) {
          const before = seen.length;
          await op();
          if (key === 'gateway.inproc') gatewayCall = seen.slice(before).map(clean);
          else rawCall = seen.slice(before).map(clean);
        } else {
          await op();
        }
      }
      perOp[key] = seen.length / ROUNDS;
      ctx.log(`  ${key.padEnd(16)} ${perOp[key]} statements per operation`);
    }
    const baselineDiff = diff(gatewayCall, rawCall);
    if (baselineDiff.length) {
      ctx.log("  WARNING: the raw baseline no longer sends the gateway's statements:");
      for (const line of baselineDiff) ctx.log(`    ${line}`);
    } else {
      ctx.log(`  the raw baseline sends the gateway's ${gatewayCall.length} statements, in order`);
    }
    return { perOp, gatewayCall, rawCall, baselineDiff };
  } finally {
    client.close();
    await pool.end();
    await server.close();
  }
}

function diff(gateway: string[], raw: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < Math.max(gateway.length, raw.length); i++) {
    if (gateway[i] !== raw[i]) out.push(`#${i + 1}: gateway \`${gateway[i] ?? '(none)'}\` / baseline \`${raw[i] ?? '(none)'}\``);
  }
  return out;
}

/** `[query] insert into "x" (…) values (…) [took 1 ms, …]` → `insert into "x" (…) values (…)`. */
function clean(line: string): string {
  return line
    .replace(/^\[query\]\s*/, '')
    .replace(/\s*\[took [^\]]*\]\s*$/, '')
    .replace(/\s+/g, ' ')
    .trim();
}
