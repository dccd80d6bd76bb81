import fs from 'node:fs';
import path from 'node:path';
import { DEFAULTS, defaultLogDir, runChaos, type ChaosOptions } from './harness';
import type { DatabaseServer } from './lib/database';
import { killAll, killAllNow } from './lib/processes';
import { renderFailures, renderNotes, renderTable } from './lib/report';
import { SCENARIOS, type ScenarioName } from './lib/scenarios';

/**
 * `npm run chaos`: builds, then runs the crash harness (chaos/harness.ts) against the real
 * compiled server. Options as flags or environment variables (flags win):
 *
 *   --scenarios a,b     CHAOS_SCENARIOS      after_approval, vendor_call, after_vendor_response,
 *                                            during_model_stream, outcome_unknown, two_nodes,
 *                                            vendor_timeout, vendor_5xx, postgres_crash, redis_loss (default: all)
 *   --runs N            CHAOS_RUNS           invoice runs per scenario (default 9)
 *   --batch N           CHAOS_BATCH          invoice runs per kill (default 3)
 *   --two-node-runs N   CHAOS_TWO_NODE_RUNS  invoice runs of two_nodes (default 8)
 *   --lookups N         CHAOS_LOOKUPS        order-lookup runs per batch where a scenario has them (default 1)
 *   --slow-ms N         CHAOS_SLOW_MS        how long the sandbox holds a slowed request (default 1500)
 *   --vendor-timeout-ms N CHAOS_VENDOR_TIMEOUT_MS  VENDOR_TIMEOUT_MS of vendor_timeout and vendor_5xx (default 10000;
 *                                            vendor_timeout's creates answer 1 s later)
 *   --seed N            CHAOS_SEED           seed of the failpoints' n (default: random, printed)
 *   --log-dir DIR       CHAOS_LOG_DIR        logs of every process and report.json (default: a temp folder)
 *   --log-level L       CHAOS_LOG_LEVEL      LOG_LEVEL of the nodes (default warn)
 *   --keep-failed 1     CHAOS_KEEP_FAILED=1  keep the database of a failed scenario (default: every database is dropped)
 *                       CHAOS_CLI            another build's cli.js (default: dist/src/cli.js)
 *
 * Progress goes to stderr, the table to stdout; exit 1 when an invariant failed.
 */
const FLAGS: Record<string, string> = {
  scenarios: 'CHAOS_SCENARIOS',
  runs: 'CHAOS_RUNS',
  batch: 'CHAOS_BATCH',
  'two-node-runs': 'CHAOS_TWO_NODE_RUNS',
  lookups: 'CHAOS_LOOKUPS',
  'slow-ms': 'CHAOS_SLOW_MS',
  'vendor-timeout-ms': 'CHAOS_VENDOR_TIMEOUT_MS',
  seed: 'CHAOS_SEED',
  'log-dir': 'CHAOS_LOG_DIR',
  'log-level': 'CHAOS_LOG_LEVEL',
  'keep-failed': 'CHAOS_KEEP_FAILED',
};

class UsageError extends Error {}

function parseOptions(argv: string[], env: NodeJS.ProcessEnv): ChaosOptions {
  const values: Record<string, string> = {};
  for (const [flag, name] of Object.entries(FLAGS)) if (env[name]) values[flag] = env[name]!;
  for (let i = 0; i < argv.length; i++) {
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i]);
    if (!match || !(match[1] in FLAGS)) {
      if (argv[i] === '--help' || argv[i] === '-h') throw new UsageError('');
      throw new UsageError(`unknown argument ${argv[i]}`);
    }
    const value = match[2] ?? argv[++i];
    if (value === undefined) throw new UsageError(`--${match[1]} needs a value`);
    values[match[1]] = value;
  }
  const int = (flag: string, fallback: number, min = 0) => {
    if (values[flag] === undefined) return fallback;
    const n = Number(values[flag]);
    if (!Number.isInteger(n) || n < min) throw new UsageError(`--${flag} (${FLAGS[flag]}) must be an integer ≥ ${min}`);
    return n;
  };
  const scenarios = values.scenarios
    ? values.scenarios
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : [...SCENARIOS];
  const unknown = scenarios.filter((s) => !(SCENARIOS as readonly string[]).includes(s));
  if (unknown.length) throw new UsageError(`unknown scenario(s) ${unknown.join(', ')}; known: ${SCENARIOS.join(', ')}`);
  const logLevel = values['log-level'] ?? DEFAULTS.logLevel;
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) throw new UsageError('--log-level must be a pino level');
  return {
    ...DEFAULTS,
    scenarios: scenarios as ScenarioName[],
    runs: int('runs', DEFAULTS.runs, 1),
    batch: int('batch', DEFAULTS.batch, 1),
    twoNodeRuns: int('two-node-runs', DEFAULTS.twoNodeRuns, 1),
    lookups: int('lookups', DEFAULTS.lookups, 0),
    slowMs: int('slow-ms', DEFAULTS.slowMs, 600),
    vendorTimeoutMs: int('vendor-timeout-ms', DEFAULTS.vendorTimeoutMs, 500),
    seed: int('seed', Math.floor(Math.random() * 2 ** 31)),
    logDir: path.resolve(values['log-dir'] ?? defaultLogDir()),
    logLevel,
    keepFailed: ['1', 'true', 'yes'].includes((values['keep-failed'] ?? '').toLowerCase()),
  };
}

async function main(): Promise<number> {
  let options: ChaosOptions;
  try {
    options = parseOptions(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const doc = fs.readFileSync(__filename, 'utf8');
    process.stderr.write(
      `${error.message ? `chaos: ${error.message}\n\n` : ''}${
        /\/\*\*([\s\S]*?)\*\//
          .exec(doc)?.[1]
          .replace(/^ \* ?/gm, '')
          .trim() ?? ''
      }\n`,
    );
    return error.message ? 2 : 0;
  }
  const t0 = Date.now();
  const log = (line: string) => {
    const s = Math.round((Date.now() - t0) / 1000);
    process.stderr.write(`[${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}] ${line}\n`);
  };
  let server: DatabaseServer | null = null;
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) return;
    interrupted = true;
    log(`${signal}: killing every process the harness started and dropping its databases`);
    void (async () => {
      await killAll().catch(() => undefined);
      await server?.close().catch(() => undefined);
      process.exit(130);
    })();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('exit', killAllNow);

  log(
    `chaos: scenarios ${options.scenarios.join(', ')}; ${options.runs} invoice runs per scenario (${options.twoNodeRuns} in two_nodes), ` +
      `${options.batch} per kill, ${options.lookups} lookup(s) per batch; seed ${options.seed}; logs in ${options.logDir}`,
  );
  const report = await runChaos(options, log, { onDatabaseServer: (s) => (server = s) });
  const table = renderTable(report.results, options.terminalWithinMs);
  const command = `CHAOS_SEED=${options.seed} npm run chaos -- --scenarios ${options.scenarios.join(',')} --runs ${options.runs} --batch ${options.batch} --two-node-runs ${options.twoNodeRuns} --lookups ${options.lookups} --vendor-timeout-ms ${options.vendorTimeoutMs}`;
  const markdown = [
    `Chaos run ${report.startedAt} – ${report.finishedAt} on ${report.database}`,
    `Repeat: ${command}`,
    '',
    table,
    '',
    renderFailures(report.results),
    ...report.errors.map((e) => `- ${e.scenario}: harness error: ${e.error.split('\n')[0]}`),
    '',
    'Per scenario:',
    renderNotes(report.results),
    '',
    `Logs and report.json: ${options.logDir}`,
  ].join('\n');
  fs.writeFileSync(path.join(options.logDir, 'report.md'), `${markdown}\n`);
  process.stdout.write(`${markdown}\n`);
  return report.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  async (error: unknown) => {
    process.stderr.write(`chaos: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    await killAll().catch(() => undefined);
    process.exit(1);
  },
);
