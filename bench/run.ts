import './lib/production-env';
import 'reflect-metadata';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import pg from 'pg';
import type { Notifier } from './lib/raw-tool-call';
import { projectRoot } from '../src/support/paths';
import { createBenchDatabase, serverFacts, type BenchDatabase } from './lib/database';
import { demoOrg, newOrg, POOL_MAX, rawPool, startBenchServer, type BenchOrg, type BenchServer } from './lib/app';
import type { BenchContext, BenchSettings, Figure } from './lib/measure';
import { median } from './lib/stats';
import { renderMarkdown, renderSummary, type Report } from './lib/report';
import { gatewayScenario } from './scenarios/gateway';
import { gatewayHistoryScenario } from './scenarios/gateway-history';
import { gatewayCedarScenario } from './scenarios/gateway-cedar';
import { ormScenario } from './scenarios/orm';
import { buildReadsOrg, readsScenario } from './scenarios/reads';
import { countStatements, type StatementCounts } from './scenarios/statements';
import { SUBSCRIPTIONS_10K, subscriptionsScenario } from './scenarios/subscriptions';
import { tokensScenario } from './scenarios/tokens';
import { approvalResumeScenario } from './scenarios/approval-resume';
import { mcpScenario } from './scenarios/mcp';
import { agentTurnsScenario } from './scenarios/agent-turns';
import { growthScenario } from './scenarios/growth';

/**
 * `npm run bench`: creates its own database, starts a Toolgate server in this process
 * against an instant vendor, measures each scenario against its baseline in the same
 * rounds, writes bench/results/report.{md,json} and prints a summary. Progress goes to
 * stderr. BENCH_QUICK=1: a ~1–2-minute smoke run (report-quick.*). BENCH_ONLY=gateway,orm,reads,
 * subscriptions,tokens,approval-resume,agent-turns,mcp,growth limits the scenarios; BENCH_DURATION_MS, BENCH_WARMUP_MS,
 * BENCH_RUNS override the timing (BENCH_SUBSCRIBERS, BENCH_SUBS_RATE, BENCH_SUBS_BURST,
 * BENCH_TOKEN_RUNS, BENCH_RESUMES, BENCH_TURNS, BENCH_VENDOR_MS those of the realtime and runtime scenarios, BENCH_GROWTH_RUNS
 * the growth scenario's history).
 */
const SPREAD_ORGS = 32;
const SCENARIOS = [
  'gateway',
  'gateway-history',
  'gateway-cedar',
  'orm',
  'reads',
  'subscriptions',
  'subscriptions-10k',
  'tokens',
  'approval-resume',
  'agent-turns',
  'mcp',
  'growth',
];
/** What runs without BENCH_ONLY: every scenario (each has a goal of round three or an earlier one). */
const DEFAULT_SCENARIOS = SCENARIOS;

function settingsFromEnv(): BenchSettings {
  const quick = process.env.BENCH_QUICK === '1' || process.env.BENCH_QUICK === 'true';
  const int = (name: string, fallback: number) => {
    const value = process.env[name];
    if (value === undefined || value === '') return fallback;
    const n = Number(value);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer`);
    return n;
  };
  return {
    quick,
    runs: int('BENCH_RUNS', 3),
    // 3 s rounds keep the full run within 12 minutes on 2 cores with scenarios 4b and 9.
    durationMs: int('BENCH_DURATION_MS', quick ? 700 : 3000),
    warmupMs: int('BENCH_WARMUP_MS', quick ? 300 : 1000),
  };
}

function gitRevision(): string {
  try {
    const root = projectRoot();
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    // What of the measured code (src/) differs from the commit, untracked files included.
    const src = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .split('\n')
      .map((line) => line.slice(3).trim())
      .filter(Boolean);
    if (src.length) return `${commit} (with uncommitted changes in src/: ${src.join(', ')})`;
    return dirty ? `${commit} (with uncommitted changes)` : commit;
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  const settings = settingsFromEnv();
  const only = new Set(
    (process.env.BENCH_ONLY ?? DEFAULT_SCENARIOS.join(','))
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
  const unknown = [...only].filter((name) => !SCENARIOS.includes(name));
  if (unknown.length) throw new Error(`BENCH_ONLY: unknown scenario(s) ${unknown.join(', ')}; known: ${SCENARIOS.join(', ')}`);
  // BENCH_ONLY=gateway runs the gateway with 20 history rules too (docs/policy.md).
  if (only.has('gateway')) only.add('gateway-history');
  // And with 20 Cedar policies (docs/policy.md, "Cedar").
  if (only.has('gateway')) only.add('gateway-cedar');
  const sqlScenarios =
    only.has('gateway') || only.has('gateway-history') || only.has('gateway-cedar') || only.has('orm') || only.has('reads') || only.has('mcp');
  const t0 = Date.now();
  const startedAt = new Date().toISOString();
  const log = (line: string) => {
    const s = Math.round((Date.now() - t0) / 1000);
    process.stderr.write(`[${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}] ${line}\n`);
  };
  const ctx: BenchContext = { settings, log };
  log(
    `toolgate bench${settings.quick ? ' (QUICK)' : ''}: ${settings.runs} runs × ${settings.durationMs} ms per variant, ` +
      `warm-up ${settings.warmupMs} ms; scenarios: ${[...only].join(', ')}`,
  );
  if (!(globalThis as { gc?: unknown }).gc) log('note: run node with --expose-gc to collect garbage between measurements');

  let db: BenchDatabase | null = null;
  let server: BenchServer | null = null;
  let pool: pg.Pool | null = null;
  let notifier: Notifier | null = null;
  let cleaning: Promise<void> | null = null;
  const cleanup = () =>
    (cleaning ??= (async () => {
      await server?.close().catch((e) => log(`closing the server: ${e}`));
      await pool?.end().catch(() => undefined);
      await notifier?.pool.end().catch(() => undefined);
      if (db) {
        await db.drop().then(
          () => log(`database ${db!.name} dropped`),
          (e) => log(`could not drop ${db!.name}: ${e}`),
        );
      }
    })());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`${signal}: cleaning up`);
      void cleanup().finally(() => process.exit(130));
    });
  }

  try {
    db = await createBenchDatabase(log);
    const facts = await serverFacts(db.url);
    server = await startBenchServer(db);
    pool = rawPool(db);
    // The baseline's ledger notices go out like PostgresBus sends them: a pool of 2.
    notifier = { pool: new pg.Pool({ connectionString: db.url, max: 2 }) };
    notifier.pool.on('error', () => undefined); // as rawPool's: the drop at cleanup may end a closing client
    log(`server on ${server.url}; ORM pool and raw pg pool: ${POOL_MAX} connections each`);

    const figures: Figure[] = [];
    let statements: StatementCounts = { perOp: {}, gatewayCall: [], rawCall: [], baselineDiff: [] };
    let connections: Report['connections'];
    if (sqlScenarios) {
      log('seeding: demo org, spread orgs, read dataset');
      const demo = await demoOrg(server);
      const spread: BenchOrg[] = [];
      for (let i = 0; i < SPREAD_ORGS; i += 8) {
        const batch = Array.from({ length: Math.min(8, SPREAD_ORGS - i) }, (_, j) => newOrg(server!, `Bench Org ${i + j + 1}`));
        spread.push(...(await Promise.all(batch)));
      }
      const reads = await buildReadsOrg(server);
      log(`seeded ${SPREAD_ORGS + 2} orgs`);

      statements = await countStatements(ctx, db, { demo, reads });
      if (only.has('gateway')) figures.push(...(await gatewayScenario(ctx, { server, pool, notifier, demo, spread })));
      if (only.has('gateway-history')) figures.push(...(await gatewayHistoryScenario(ctx, { server, pool, notifier, demo, spread })));
      if (only.has('gateway-cedar')) figures.push(...(await gatewayCedarScenario(ctx, { server, pool, notifier, demo, spread })));
      if (only.has('orm')) figures.push(...(await ormScenario(ctx, { server, pool, notifier, demo, spread })));
      if (only.has('reads')) figures.push(...(await readsScenario(ctx, { server, pool, org: reads })));
      if (only.has('mcp')) figures.push(...(await mcpScenario(ctx, { server, demo })));
      attachStatements(figures, statements.perOp);
    }
    if (only.has('subscriptions')) {
      const result = await subscriptionsScenario(ctx, { server });
      figures.push(...result.figures);
      connections = result.memory;
    }
    if (only.has('subscriptions-10k')) {
      const result = await subscriptionsScenario(ctx, { server }, SUBSCRIPTIONS_10K());
      figures.push(...result.figures);
      connections ??= result.memory;
    }
    if (only.has('tokens')) figures.push(...(await tokensScenario(ctx, { db })));
    if (only.has('approval-resume')) figures.push(...(await approvalResumeScenario(ctx, { db })));
    if (only.has('agent-turns')) figures.push(...(await agentTurnsScenario(ctx, { db })));
    if (only.has('growth')) figures.push(...(await growthScenario(ctx, { db })));
    const failed = new Set<string>();
    for (const f of figures) {
      for (const [name, s] of [
        [f.name, f.subject],
        [f.baselineName, f.baseline],
      ] as const) {
        if (s.errors > 0) failed.add(`${f.section}, ${f.concurrency} caller(s), ${name}: ${s.errors} failed operations (not counted)`);
      }
    }

    const report: Report = {
      startedAt,
      finishedAt: new Date().toISOString(),
      wallSeconds: (Date.now() - t0) / 1000,
      command: settings.quick ? 'BENCH_QUICK=1 npm run bench' : 'npm run bench',
      git: gitRevision(),
      settings,
      machine: {
        cpuModel: os.cpus()[0]?.model ?? 'unknown',
        cpus: os.availableParallelism(),
        memoryGb: os.totalmem() / 1024 ** 3,
        os: `${os.type()} ${os.release()} ${os.arch()}`,
        node: process.version,
        postgres: facts.version.split(' on ')[0],
        postgresSettings: facts.settings,
        database: db.where,
        loadAverage: loadAverage(figures),
      },
      statements,
      figures,
      connections,
      notes: [
        'Instant vendor: the executor returns a fixed Shopify order (an invoice for invoice.send) at once (createAppServices({ executor })); no vendor HTTP.',
        ...(sqlScenarios
          ? [
              `Gateway baseline: raw pg sends the gateway's statements (see the list above) in the same two transactions, pool of ${POOL_MAX} like the ORM.`,
              "Realtime bus as in production without REDIS_URL: after each commit that appended to the ledger the server publishes `select pg_notify(...)` on the bus's own pool of 2 (not awaited by the call); the raw baselines do the same. These 2 notices per call are not in the statement counts.",
            ]
          : ['Realtime bus as in production without REDIS_URL: PostgreSQL LISTEN/NOTIFY (ledger notices after commit, token deltas).']),
        'Rate limiter: on, with a bucket that never empties (RATE_LIMIT_POINTS and RATE_LIMIT_POINTS_PER_SECOND = 1e9); the bench measures capacity, not the limiter policy. Fair-use caps on sockets and subscriptions raised to 1e6 likewise.',
        'The HTTP load generator runs in the bench process (node:http, keep-alive, one socket per caller) and competes with the server for the same CPUs.',
        'PostgreSQL runs on the same machine and shares its cores.',
        ...(only.has('tokens') || only.has('approval-resume')
          ? [
              'Tokens and approval resume: "CPU ms/op" is all of this process\'s CPU per run (per resume): server, worker, offline model, SDK and subscriber together.',
            ]
          : []),
        ...(only.has('subscriptions')
          ? [
              "Subscriptions: the websocket clients (graphql-ws and raw) run in a child process (child_process.fork), so the server CPU and RSS are the bench process's alone (Toolgate server plus the raw baseline's WebSocketServer); latencies are computed on the child's clock after an offset check (wall clock via performance.timeOrigin + performance.now()).",
            ]
          : []),
        ...(only.has('tokens') || only.has('approval-resume')
          ? [
              'Tokens and approval resume: a second Toolgate server on the same database with the job worker (src/jobs/worker.ts: concurrency 2, LISTEN/NOTIFY, poll 2 s), the offline model served in-process and the instant vendor; the agent runtime streams with the real @anthropic-ai/sdk.',
            ]
          : []),
        ...failed,
      ],
    };
    const dir = path.join(projectRoot(), 'bench', 'results');
    await fs.mkdir(dir, { recursive: true });
    const base = settings.quick ? 'report-quick' : 'report';
    await fs.writeFile(path.join(dir, `${base}.md`), renderMarkdown(report));
    await fs.writeFile(path.join(dir, `${base}.json`), `${JSON.stringify(report, null, 2)}\n`);
    log(`wrote bench/results/${base}.md and ${base}.json`);
    process.stdout.write(`${renderSummary(report)}\n`);
  } finally {
    await cleanup();
  }
  // Everything the bench opened is closed by now: name what is still open (a leak to fix).
  await new Promise((resolve) => setImmediate(resolve));
  const open = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap' && r !== 'PipeWrap' && r !== 'FSReqCallback');
  if (open.length) process.stderr.write(`note: still open at the end: ${open.join(', ')}\n`);
}

function loadAverage(figures: Figure[]): { min: number; median: number; max: number } {
  const values = figures.flatMap((f) => [...f.subject.runs, ...f.baseline.runs].map((r) => r.loadAvg1m));
  return { min: Math.min(...values), median: median(values), max: Math.max(...values) };
}

/** Statements per operation for each figure's subject and baseline. */
function attachStatements(figures: Figure[], perOp: Record<string, number>): void {
  const subjects: Record<string, string> = {
    'executeToolCall in-process': 'gateway.inproc',
    'executeToolCall over HTTP': 'gateway.http',
    'MikroORM persisting one call': 'orm.orm',
    'over HTTP': 'reads.http',
    'graphql-js execute()': 'reads.bare',
  };
  for (const f of figures) {
    if (!/^(Gateway|ORM|Reads)/.test(f.section)) continue;
    f.statements = perOp[subjects[f.name]];
    const baseline = f.section.startsWith('Gateway')
      ? 'gateway.raw'
      : f.section.startsWith('ORM')
        ? 'orm.raw'
        : f.baselineName === 'graphql-js execute()'
          ? 'reads.bare'
          : 'reads.sql';
    f.baselineStatements = perOp[baseline];
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
