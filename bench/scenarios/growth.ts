import { fork } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { BENCH_MASTER_KEY, newOrg, newRun, rawPool, startBenchServer, TOOLS, type BenchOrg, type BenchServer } from '../lib/app';
import { createMigratedSibling, type BenchDatabase } from '../lib/database';
import { EVENTS_PER_RUN, seedHistory, type SeedReport } from '../lib/growth-seed';
import { GraphQLClient } from '../lib/http-client';
import { figure, measure, type BenchContext, type Figure, type Goal, type Variant } from '../lib/measure';
import { median, summarize, type RunStats } from '../lib/stats';
import { envInt } from '../lib/timing';
import type { VerifyChildReport } from '../lib/verify-child';
import type { LedgerVerification } from '../../src/ledger/ledger-verify';
import type { ToolCallOutcome } from '../../src/gateway/gateway.types';
import { EXECUTE, nextCallIds } from './gateway';
import { checkPage, PAGE, READS, type RunsPage } from './reads';

/**
 * 9. Growth: does a large history slow the hot paths? One database holds an org with
 * BENCH_GROWTH_RUNS (100,000) finished runs of 4 calls and 11 ledger events each (1.1 M
 * events, a valid chain), seeded in SQL (bench/lib/growth-seed.ts); a second, freshly
 * migrated database holds an org with just one page of the same runs (60). A Toolgate server
 * on each, in this process; in the same rounds (order reversed every other round):
 * - the runs read (`runs(first: 50)` with toolCalls over HTTP, as scenario 3) of each org;
 * - executeToolCall in-process and over HTTP, 8 callers in each org, each on its own run;
 * goal: the big org within 10 % of the empty one. Then `toolgate ledger verify --org` (the
 * CLI's program in a child process, bench/lib/verify-child.ts) over the big org's chain, the
 * gateway's appends included, and over an org of a tenth of it: events/s and peak RSS; goals:
 * the chains hold, the peak RSS does not grow with the chain (within 10 %), nor does the
 * rate fall (within 10 %).
 */
const CALLERS = 8;
const ROUND_MS = 3000;
/** Runs of the empty org: one page and a few more, as scenario 3. */
const EMPTY_RUNS = 60;
const TOOL = TOOLS[0];

export interface GrowthEnv {
  db: BenchDatabase;
}

interface Side {
  db: BenchDatabase;
  server: BenchServer;
  org: BenchOrg;
  client: GraphQLClient;
  runIds: string[];
}

export async function growthScenario(outer: BenchContext, env: GrowthEnv): Promise<Figure[]> {
  const runs = envInt('BENCH_GROWTH_RUNS', outer.settings.quick ? 10_000 : 100_000);
  // Shorter rounds than the other scenarios (unless BENCH_DURATION_MS says otherwise): the
  // seeding and the verify take their time, and the full bench must end within 12 minutes.
  const durationMs = process.env.BENCH_DURATION_MS ? outer.settings.durationMs : Math.min(outer.settings.durationMs, ROUND_MS);
  const ctx: BenchContext = { ...outer, settings: { ...outer.settings, durationMs } };
  const sides: Side[] = [];
  const pools: pg.Pool[] = [];
  try {
    const big = await openSide(ctx, env.db, 'growth', 'Growth Org', sides);
    const empty = await openSide(ctx, env.db, 'empty', 'Empty Org', sides);
    const tenth = await newOrg(big.server, 'Growth Org (a tenth)');
    const none = await newOrg(big.server, 'Growth Org (no history)');

    const bigPool = rawPool(big.db);
    const emptyPool = rawPool(empty.db);
    pools.push(bigPool, emptyPool);
    ctx.log(`growth: seeding ${runs.toLocaleString('en')} runs (${(runs * EVENTS_PER_RUN).toLocaleString('en')} ledger events) and a tenth of that`);
    const seeded = await seedHistory(bigPool, [
      { org: tenth, runs: Math.round(runs / 10) },
      { org: big.org, runs },
    ]);
    await seedHistory(emptyPool, [{ org: empty.org, runs: EMPTY_RUNS }]);
    const size = await bigPool.query<{ size: string }>('select pg_size_pretty(pg_database_size(current_database())) as size');
    ctx.log(
      `growth: seeded in ${(seeded.ms / 1000).toFixed(1)} s (${seeded.rebuiltIndexes} indexes rebuilt, ` +
        `${seeded.replica ? 'foreign keys and triggers skipped while loading' : 'not a superuser: foreign keys and triggers on'}); database ${size.rows[0].size}`,
    );

    const figures: Figure[] = [];
    const section = `Growth — ${(runs * EVENTS_PER_RUN).toLocaleString('en')} ledger events, ${runs.toLocaleString('en')} runs in the org, against an empty org`;
    const note = `each against an org with no history (${EMPTY_RUNS} runs) in an empty database, same rounds (${ctx.settings.runs} of ${durationMs / 1000} s)`;
    const within = (f: { ratio: number }): Goal[] => [{ label: 'within 10 % of the empty org', short: '≥90%', pass: f.ratio >= 0.9 }];

    // The read first: the gateway's runs would be the newest, on the page.
    ctx.log(`growth: runs(first: ${PAGE}) over HTTP, ${CALLERS} callers`);
    const reads = await measure(ctx, 'growth reads', CALLERS, [readVariant('big', big), readVariant('empty', empty)]);
    figures.push(
      figure(
        {
          id: `growth.reads.http.c${CALLERS}`,
          section,
          name: `runs(first: ${PAGE}) over HTTP`,
          concurrency: CALLERS,
          subject: reads.big,
          baselineName: 'the same in the empty org',
          baseline: reads.empty,
          note,
          details: [seedingDetail(seeded, runs, size.rows[0].size), await totalCountDetail(big, empty)],
        },
        within,
      ),
    );

    for (const side of sides) for (let i = 0; i < CALLERS; i++) side.runIds.push(await newRun(side.server, side.org));
    ctx.log(`growth: executeToolCall, ${CALLERS} callers in one org`);
    const calls = await measure(ctx, 'growth gateway', CALLERS, [
      inProcessVariant('inproc.big', big),
      inProcessVariant('inproc.empty', empty),
      httpVariant('http.big', big),
      httpVariant('http.empty', empty),
    ]);
    for (const [key, name] of [
      ['inproc', 'executeToolCall in-process'],
      ['http', 'executeToolCall over HTTP'],
    ] as const) {
      figures.push(
        figure(
          {
            id: `growth.gateway.${key}.c${CALLERS}`,
            section,
            name,
            concurrency: CALLERS,
            subject: calls[`${key}.big`],
            baselineName: 'the same in the empty org',
            baseline: calls[`${key}.empty`],
            note,
          },
          within,
        ),
      );
    }

    ctx.log('growth: toolgate ledger verify --org, in a child process each');
    const zero = await verifyInChild(big.db, none.orgId);
    const small = await verifyInChild(big.db, tenth.orgId);
    const large = await verifyInChild(big.db, big.org.orgId);
    for (const [label, v] of [
      ['no history', zero],
      ['a tenth', small],
      ['the big org', large],
    ] as const) {
      ctx.log(
        `  verify ${label}: ${v.result.ok ? 'ok' : `BROKEN (${v.result.problem} at ${v.result.firstBadSequence})`}, ` +
          `${v.result.eventsChecked.toLocaleString('en')} events in ${(v.report.ms / 1000).toFixed(2)} s, ` +
          `${v === zero ? '' : `${v.rate(zero).toFixed(0)} events/s (start-up excluded), `}peak RSS ${v.report.maxRssMb.toFixed(0)} MB, CPU ${(v.report.cpuMs / 1000).toFixed(2)} s`,
      );
    }
    figures.push(verifyFigure(zero, small, large));
    return figures;
  } finally {
    for (const side of sides) side.client.close();
    for (const pool of pools) await pool.end().catch(() => undefined);
    for (const side of sides) {
      await side.server.close().catch((error: unknown) => ctx.log(`closing the ${side.db.name} server: ${error}`));
      await side.db.drop().catch((error: unknown) => ctx.log(`could not drop ${side.db.name}: ${error}`));
    }
  }
}

async function openSide(ctx: BenchContext, db: BenchDatabase, suffix: string, orgName: string, sides: Side[]): Promise<Side> {
  const sibling = await createMigratedSibling(db, suffix, ctx.log);
  let server: BenchServer;
  try {
    server = await startBenchServer(sibling);
  } catch (error) {
    await sibling.drop().catch(() => undefined);
    throw error;
  }
  const side: Side = { db: sibling, server, org: null as unknown as BenchOrg, client: new GraphQLClient(server.url, CALLERS), runIds: [] };
  sides.push(side);
  side.org = await newOrg(server, orgName);
  return side;
}

function readVariant(key: string, side: Side): Variant {
  return {
    key,
    label: `runs read, ${key} org`,
    prepare: () => side.client.reset(),
    op: async () => checkPage(await side.client.request<RunsPage>(READS, { first: PAGE }, side.org.adminKey)),
  };
}

function inProcessVariant(key: string, side: Side): Variant {
  return {
    key,
    label: `in-process, ${key.split('.')[1]} org`,
    op: async (i) => {
      const out = await side.server.services.gateway.execute({
        runId: side.runIds[i],
        toolName: TOOL.toolName,
        action: TOOL.action,
        params: TOOL.params,
        ...nextCallIds(),
        caller: side.org.agent,
      });
      expectSucceeded(out);
    },
  };
}

function httpVariant(key: string, side: Side): Variant {
  return {
    key,
    label: `over HTTP, ${key.split('.')[1]} org`,
    prepare: () => side.client.reset(),
    op: async (i) => {
      const data = await side.client.request<{ executeToolCall: ToolCallOutcome }>(
        EXECUTE,
        { input: { runId: side.runIds[i], toolName: TOOL.toolName, action: TOOL.action, params: TOOL.params, ...nextCallIds() } },
        side.org.agentKey,
      );
      expectSucceeded(data.executeToolCall);
    },
  };
}

function expectSucceeded(out: ToolCallOutcome): void {
  if (out.status !== 'succeeded') throw new Error(`call ${out.status}: ${out.error?.code ?? ''}`);
}

/**
 * Not a goal, but what a large history costs the console: its runs list asks `totalCount` on
 * every page, a count over the org's runs (O(runs), an index-only scan at best). Timed one
 * request at a time, alternating between the orgs.
 */
async function totalCountDetail(big: Side, empty: Side): Promise<string> {
  const query = 'query { runs(first: 1) { totalCount } }';
  const times: Record<'big' | 'empty', number[]> = { big: [], empty: [] };
  for (let i = 0; i < TOTAL_COUNT_SAMPLES; i++) {
    for (const [key, side] of [
      ['big', big],
      ['empty', empty],
    ] as const) {
      const started = performance.now();
      await side.client.request(query, {}, side.org.adminKey);
      times[key].push(performance.now() - started);
    }
  }
  return (
    `\`runs { totalCount }\` (the console's runs list asks it with every page; a count over the org's runs): ` +
    `p50 ${median(times.big).toFixed(1)} ms in the org, ${median(times.empty).toFixed(1)} ms in the empty org (${TOTAL_COUNT_SAMPLES} requests each, one at a time; no goal).`
  );
}
const TOTAL_COUNT_SAMPLES = 20;

function seedingDetail(seeded: SeedReport, runs: number, size: string): string {
  const events = seeded.orgs.reduce((n, o) => n + o.events, 0);
  return (
    `Seeding: ${events.toLocaleString('en')} ledger events, ${seeded.orgs.reduce((n, o) => n + o.runs, 0).toLocaleString('en')} runs, ` +
    `${seeded.orgs.reduce((n, o) => n + o.calls, 0).toLocaleString('en')} tool calls and their policy decisions (the org: ${runs.toLocaleString('en')} runs; ` +
    `an org of a tenth for the verify below) in ${(seeded.ms / 1000).toFixed(1)} s (${Math.round(events / (seeded.ms / 1000)).toLocaleString('en')} events/s, ` +
    `${seeded.rebuiltIndexes} secondary indexes dropped and rebuilt, ${seeded.replica ? 'foreign keys and triggers skipped while loading' : 'foreign keys and triggers on'}); database ${size}.`
  );
}

interface VerifyRun {
  report: VerifyChildReport;
  result: LedgerVerification;
  /** Events per second of the walk: the command's time less that of a chain with no history (start-up, connection). */
  rate(zero: VerifyRun): number;
}

function verifyInChild(db: BenchDatabase, orgId: string): Promise<VerifyRun> {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, '../lib/verify-child.js'), [orgId], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'silent', DATABASE_URL: db.url, MASTER_ENCRYPTION_KEY: BENCH_MASTER_KEY },
    });
    let report: VerifyChildReport | null = null;
    child.on('message', (message) => {
      report = message as VerifyChildReport;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (!report) return reject(new Error(`ledger verify child exited with ${code} and no report`));
      const done = report as VerifyChildReport;
      let result: LedgerVerification;
      try {
        result = JSON.parse(done.output) as LedgerVerification;
      } catch {
        return reject(new Error(`ledger verify printed no JSON line: ${done.output.slice(0, 200)}`));
      }
      resolve({
        report: done,
        result,
        rate: (zero) => result.eventsChecked / (Math.max(1, done.ms - zero.report.ms) / 1000),
      });
    });
  });
}

/** One "run" of a verify for the report's tables: its rate as throughput, its peak RSS. */
function verifyStats(v: VerifyRun, zero: VerifyRun): RunStats {
  return {
    ops: v.result.eventsChecked,
    errors: v.result.ok ? 0 : 1,
    elapsedMs: v.report.ms,
    throughput: v.rate(zero),
    p50: Number.NaN,
    p95: Number.NaN,
    p99: Number.NaN,
    mean: Number.NaN,
    max: Number.NaN,
    peakRssMb: v.report.maxRssMb,
    startRssMb: zero.report.maxRssMb,
    loadAvg1m: os.loadavg()[0],
    cpuMsPerOp: v.report.cpuMs / Math.max(1, v.result.eventsChecked),
  };
}

function verifyFigure(zero: VerifyRun, small: VerifyRun, large: VerifyRun): Figure {
  const subject = summarize([verifyStats(large, zero)]);
  const baseline = summarize([verifyStats(small, zero)]);
  const events = (v: VerifyRun) => v.result.eventsChecked.toLocaleString('en');
  return figure(
    {
      id: 'growth.verify',
      section: 'Growth — toolgate ledger verify',
      name: `ledger verify --org, ${events(large)} events`,
      concurrency: large.result.eventsChecked,
      concurrencyLabel: 'events',
      unit: 'events/s',
      subject,
      baselineName: `the same, ${events(small)} events`,
      baseline,
      note: 'the CLI in a child process; rate net of a verify of an org with no history (start-up, connection); peak RSS of the process',
      details: [
        `ledger verify --org: ${events(large)} events in ${(large.report.ms / 1000).toFixed(1)} s, ${events(small)} in ${(small.report.ms / 1000).toFixed(1)} s, ` +
          `${events(zero)} in ${(zero.report.ms / 1000).toFixed(2)} s (start-up and connection); peak RSS ${large.report.maxRssMb.toFixed(0)} MB, ` +
          `${small.report.maxRssMb.toFixed(0)} MB and ${zero.report.maxRssMb.toFixed(0)} MB.`,
      ],
    },
    () => [
      { label: 'every chain verifies', short: 'ok', pass: zero.result.ok && small.result.ok && large.result.ok },
      { label: 'peak RSS flat (within 10 % of the tenth)', short: 'RSS flat', pass: large.report.maxRssMb <= small.report.maxRssMb * 1.1 },
      { label: 'rate within 10 % of the tenth', short: '≥90%', pass: large.rate(zero) >= 0.9 * small.rate(zero) },
    ],
    { compareLatency: false },
  );
}
