import 'reflect-metadata';
import './lib/production-env';
import { fork } from 'node:child_process';
import { initOrm } from '../src/db/orm';
import { ENTITIES } from '../src/app/entities';
import { createKey, createOrg, createSpecialist } from '../src/orgs/org.service';
import type { PolicyRuleInput } from '../src/policy/policy-rule.service';
import { type PolicySimulation, simulatePolicy } from '../src/policy/policy-simulation.service';
import { rawPool, TOOLS } from './lib/app';
import { createBenchDatabase } from './lib/database';
import { CALLS_PER_RUN, seedHistory } from './lib/growth-seed';
import { median } from './lib/stats';
import { envInt } from './lib/timing';

/**
 * `npm run bench:replay`: policy replay (simulatePolicy) over the growth scenario's history,
 * BENCH_REPLAY_RUNS (25,000) runs of 4 calls = 100,000 recorded calls, seeded in SQL
 * (bench/lib/growth-seed.ts), against a draft of 20 rules that changes every call's
 * decision. Each replay runs in a child process of its own (so its memory is the replay's
 * alone), over the first tenth of the calls and over all of them: time (median of
 * BENCH_REPLAY_ROUNDS), calls/s, the heap before and after (after a GC), the peak heap
 * (sampled every 5 ms) and the peak RSS. A replay reads in pages, so its memory must not
 * grow with the range. Uses DATABASE_URL's server (else an embedded PostgreSQL).
 */
interface ReplayReport {
  result: Omit<PolicySimulation, 'examples'> & { examples: number };
  ms: number[];
  heapBeforeMb: number;
  heapAfterMb: number;
  peakHeapMb: number;
  maxRssMb: number;
}

const MB = 1024 * 1024;
const gc = () => (globalThis as { gc?: () => void }).gc?.();

/** Eighteen rules that match nothing of the history, then the two that decide every call. */
function draft(): PolicyRuleInput[] {
  const rule = (i: number, fields: Partial<PolicyRuleInput>): PolicyRuleInput => ({
    name: `rule ${i}`,
    position: i,
    toolPattern: '*',
    actionPattern: '*',
    conditions: [],
    roles: [],
    risk: 'medium',
    decision: 'observe',
    enabled: true,
    ...fields,
  });
  const idle = Array.from({ length: 18 }, (_, i) =>
    rule(i, i % 2 === 0 ? { toolPattern: `refund_${i}` } : { conditions: [{ path: 'amount', op: 'gt', value: 1000 * i }] }),
  );
  const [lookup, product] = TOOLS;
  return [
    ...idle,
    rule(18, {
      toolPattern: lookup.toolName,
      conditions: [{ path: 'orderId', op: 'equals', value: lookup.params.orderId }],
      risk: 'high',
      decision: 'require_expert_approval',
    }),
    rule(19, {
      toolPattern: `${product.toolName.split('_')[0]}_*`,
      conditions: [{ path: 'productId', op: 'in', value: [product.params.productId] }],
    }),
  ];
}

async function child(): Promise<void> {
  const [url, orgId, from, to, rounds] = process.argv.slice(3);
  const orm = await initOrm({ entities: ENTITIES, clientUrl: url, poolMax: 2 });
  try {
    const request = { from: new Date(from), to: new Date(to), rules: draft(), first: 100 };
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    let peakHeap = heapBefore;
    const sampler = setInterval(() => {
      peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
    }, 5);
    const ms: number[] = [];
    let result: PolicySimulation | null = null;
    for (let i = 0; i < Number(rounds); i++) {
      const started = performance.now();
      result = await simulatePolicy(orm.em.fork(), orgId, request);
      ms.push(performance.now() - started);
    }
    clearInterval(sampler);
    gc();
    const report: ReplayReport = {
      result: { ...(result as PolicySimulation), examples: (result as PolicySimulation).examples.length },
      ms,
      heapBeforeMb: heapBefore / MB,
      heapAfterMb: process.memoryUsage().heapUsed / MB,
      peakHeapMb: peakHeap / MB,
      maxRssMb: process.resourceUsage().maxRSS / 1024,
    };
    process.send?.(report, () => process.exit(0));
  } finally {
    await orm.close(true);
  }
}

function replayIn(url: string, orgId: string, from: string, to: string, rounds: number): Promise<ReplayReport> {
  return new Promise((resolve, reject) => {
    const replay = fork(__filename, ['child', url, orgId, from, to, String(rounds)], {
      execArgv: ['--expose-gc'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let report: ReplayReport | null = null;
    replay.on('message', (message) => {
      report = message as ReplayReport;
    });
    replay.on('error', reject);
    replay.on('exit', (code) => (report ? resolve(report) : reject(new Error(`replay child exited with ${code} and no report`))));
  });
}

async function main(): Promise<void> {
  const runs = envInt('BENCH_REPLAY_RUNS', 25_000);
  const rounds = envInt('BENCH_REPLAY_ROUNDS', 3);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const db = await createBenchDatabase(log);
  const pool = rawPool(db, { max: 2 });
  try {
    const orm = await initOrm({ entities: ENTITIES, clientUrl: db.url, poolMax: 2 });
    const em = orm.em.fork();
    const { org, adminKey } = await createOrg(em, { name: 'Replay' });
    const admin = { orgId: org.id, role: 'admin' as const, keyId: adminKey.id };
    const agentKey = await createKey(em, org.id, 'agent', admin);
    const specialist = await createSpecialist(em, admin, { name: 'Support' });
    await orm.close(true);
    const benchOrg = {
      orgId: org.id,
      specialistId: specialist.id,
      agent: { orgId: org.id, role: 'agent' as const, keyId: agentKey.id },
      agentKey: agentKey.secret,
      adminKey: adminKey.secret,
    };
    log(`replay: seeding ${runs.toLocaleString('en')} runs, ${(runs * CALLS_PER_RUN).toLocaleString('en')} calls`);
    const seeded = await seedHistory(pool, [{ org: benchOrg, runs }]);
    log(`replay: seeded in ${(seeded.ms / 1000).toFixed(1)} s`);
    const bounds = await pool.query<{ first: string; tenth: string; last: string }>(
      `select min(created_at)::text as first, max(created_at)::text as last,
              (select created_at::text from tool_calls where org_id = $1 order by created_at, id offset $2 limit 1) as tenth
         from tool_calls where org_id = $1`,
      [org.id, Math.floor((runs * CALLS_PER_RUN) / 10)],
    );
    const { first, tenth, last } = bounds.rows[0];
    const end = new Date(Date.parse(last) + 1000).toISOString();
    const lines: string[] = [];
    for (const [label, to] of [
      ['a tenth', tenth],
      ['all', end],
    ] as const) {
      const report = await replayIn(db.url, org.id, first, to, rounds);
      const ms = median(report.ms);
      const calls = report.result.callsRead;
      lines.push(
        `${label.padEnd(8)} ${calls.toLocaleString('en').padStart(8)} calls: ${ms.toFixed(0)} ms median of ${rounds} (${report.ms.map((m) => m.toFixed(0)).join(', ')}), ` +
          `${Math.round(calls / (ms / 1000)).toLocaleString('en')} calls/s; changed ${report.result.changedCount.toLocaleString('en')}, ` +
          `undecidable ${report.result.undecidableCount}, ${report.result.changes.length} groups; heap ${report.heapBeforeMb.toFixed(1)} MB before, ` +
          `${report.heapAfterMb.toFixed(1)} MB after, peak ${report.peakHeapMb.toFixed(1)} MB; peak RSS ${report.maxRssMb.toFixed(0)} MB`,
      );
    }
    process.stdout.write(`Policy replay, 20 draft rules, pages of 1,000 (${db.where}):\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
  } finally {
    await pool.end();
    await db.drop();
  }
}

const entry = process.argv[2] === 'child' ? child : main;
entry().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
