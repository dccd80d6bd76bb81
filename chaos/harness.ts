import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Cluster } from './lib/cluster';
import { openDatabaseServer, type DatabaseServer } from './lib/database';
import { Driver } from './lib/driver';
import { killAll } from './lib/processes';
import { runScenario, scenarioNodeEnv, settle, SCENARIOS, type ScenarioName, type ScenarioRecord } from './lib/scenarios';
import { verifyScenario, type ScenarioResult } from './lib/verify';
import { openStores, type ScenarioStores } from './lib/store-scenarios';

/**
 * The crash harness (`npm run chaos`, and a small configuration in test/chaos): for each
 * scenario a database, a sandbox process and real `toolgate start` nodes; kills at the
 * scenario's kill point; restarts; then the invariants from the API, the vendor's records
 * and `toolgate ledger verify`. Everything it starts is killed and dropped at the end.
 */
export interface ChaosOptions {
  scenarios: ScenarioName[];
  /** Invoice runs per scenario. */
  runs: number;
  /** Invoice runs per kill. */
  batch: number;
  /** Invoice runs of two_nodes (one kill). */
  twoNodeRuns: number;
  /** Order-lookup runs per batch where a scenario has them. */
  lookups: number;
  slowMs: number;
  terminalWithinMs: number;
  /** VENDOR_TIMEOUT_MS of vendor_timeout's and vendor_5xx's nodes (vendor_timeout answers 1 s later). */
  vendorTimeoutMs: number;
  /** Seed of the choice of each failpoint's n. */
  seed: number;
  logDir: string;
  logLevel: string;
  heartbeatMs: number;
  deadAfterMs: number;
  workerConcurrency: number;
  /** Keep the database of a scenario that failed (for a look inside; default: drop it). */
  keepFailed: boolean;
}

export const DEFAULTS: Omit<ChaosOptions, 'seed' | 'logDir'> = {
  scenarios: [...SCENARIOS],
  runs: 9,
  batch: 3,
  twoNodeRuns: 8,
  lookups: 1,
  slowMs: 1500,
  terminalWithinMs: 60_000,
  vendorTimeoutMs: 10_000,
  logLevel: 'warn',
  heartbeatMs: 250,
  deadAfterMs: 1500,
  workerConcurrency: 4,
  keepFailed: false,
};

export function defaultLogDir(): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return path.join(os.tmpdir(), `toolgate-chaos-${stamp}`);
}

/** A small deterministic PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface ChaosReport {
  options: ChaosOptions;
  database: string;
  startedAt: string;
  finishedAt: string;
  results: ScenarioResult[];
  /** Scenarios that could not run to their verification (setup or driver errors). */
  errors: { scenario: string; error: string }[];
  ok: boolean;
}

export async function runChaos(
  options: ChaosOptions,
  log: (line: string) => void,
  hooks: { onDatabaseServer?: (server: DatabaseServer) => void } = {},
): Promise<ChaosReport> {
  fs.mkdirSync(options.logDir, { recursive: true });
  const startedAt = new Date().toISOString();
  const server = await openDatabaseServer(log);
  hooks.onDatabaseServer?.(server);
  const random = prng(options.seed);
  const results: ScenarioResult[] = [];
  const errors: ChaosReport['errors'] = [];
  try {
    for (const name of options.scenarios) {
      const began = Date.now();
      log(`scenario ${name}`);
      let cluster: Cluster | null = null;
      let stores: ScenarioStores | null = null;
      let failed = true;
      try {
        // A store scenario's own PostgreSQL (to crash) or Redis (to lose).
        stores = await openStores(name, log);
        cluster = await Cluster.create(name, stores?.server ?? server, {
          logDir: options.logDir,
          logLevel: options.logLevel,
          heartbeatMs: options.heartbeatMs,
          deadAfterMs: options.deadAfterMs,
          nodeEnv: { WORKER_CONCURRENCY: String(options.workerConcurrency), ...scenarioNodeEnv(name, options.vendorTimeoutMs), ...stores?.nodeEnv },
        });
        const driver = new Driver(cluster, log);
        const record: ScenarioRecord = {
          name,
          startedAt: Date.now(),
          kills: [],
          expectUnknown: name === 'outcome_unknown',
          expectKills: name !== 'vendor_timeout' && name !== 'vendor_5xx',
          notes: [],
          terminalAfterMs: null,
          clockStart: 0,
          quietAfter: 0,
          outages: [],
        };
        const ctx = {
          cluster,
          driver,
          record,
          log,
          stores,
          settings: {
            runs: name === 'two_nodes' ? options.twoNodeRuns : options.runs,
            batch: options.batch,
            lookups: options.lookups,
            slowMs: options.slowMs,
            terminalWithinMs: options.terminalWithinMs,
            vendorTimeoutMs: options.vendorTimeoutMs,
            random,
          },
        };
        await runScenario(ctx);
        await settle(ctx);
        const result = await verifyScenario(cluster, driver, record, options.terminalWithinMs);
        results.push(result);
        failed = result.failures.length > 0;
        log(
          `  ${result.failures.length === 0 ? 'ok' : `${result.failures.length} failure(s)`}: ${result.runs} runs, ${result.kills} kill(s), ${result.invoices} invoices, reconciled ${JSON.stringify(result.reconciled)} (${((Date.now() - began) / 1000).toFixed(0)} s)`,
        );
        for (const failure of result.failures) log(`    FAIL ${failure}`);
      } catch (error) {
        const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
        errors.push({ scenario: name, error: message });
        log(`  ERROR ${message}`);
      } finally {
        const kept = await cluster?.dispose(failed && options.keepFailed).catch((error: unknown) => {
          log(`  cleanup of ${name} failed: ${String(error)}`);
          return false;
        });
        if (kept) log(`  kept the database of ${name}: ${cluster!.db.url}`);
        await stores?.close().catch((error: unknown) => log(`  stopping the private store of ${name} failed: ${String(error)}`));
      }
    }
  } finally {
    await killAll();
    await server.close();
  }
  const report: ChaosReport = {
    options,
    database: server.where,
    startedAt,
    finishedAt: new Date().toISOString(),
    results,
    errors,
    ok: errors.length === 0 && results.length === options.scenarios.length && results.every((r) => r.failures.length === 0),
  };
  fs.writeFileSync(path.join(options.logDir, 'report.json'), JSON.stringify(report, null, 2));
  return report;
}
