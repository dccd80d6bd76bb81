import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { RssSampler } from './load';
import { latencyStats, type RunStats } from './stats';

export type LatencyStats = Pick<RunStats, 'p50' | 'p95' | 'p99' | 'mean' | 'max'>;

/**
 * Time shared by processes: `performance.timeOrigin + performance.now()` is a wall-clock
 * reading in milliseconds with sub-millisecond resolution, comparable across the bench
 * process and its children (after a clock-offset check, see ws-fleet.ts).
 */
export const wallNow = (): number => performance.timeOrigin + performance.now();

/** A positive integer from the environment (e.g. BENCH_SUBSCRIBERS), or `fallback` when unset. */
export function envInt(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer`);
  return n;
}

export const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every `intervalMs` until it holds; rejects after `timeoutMs` naming `what`. */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000, intervalMs = 10): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await pause(intervalMs);
  }
}

/** Rejects when `promise` has not settled within `timeoutMs`; the timer never outlives it. */
export function bounded<T>(promise: Promise<T>, what: string, timeoutMs = 15_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    gc();
  }
}

/**
 * One measured run of this process's resources: CPU (user + system) and RSS sampled every
 * 20 ms, from `start()` until `finish()`, which turns the latencies into a RunStats.
 */
export class RunMeter {
  private readonly rss = new RssSampler();
  private cpu = process.cpuUsage();
  private startedAt = performance.now();

  start(): this {
    collectGarbage();
    this.rss.start();
    this.cpu = process.cpuUsage();
    this.startedAt = performance.now();
    return this;
  }

  /**
   * `ops` (default: the latencies) over `elapsedMs` (default: since start) gives the
   * throughput; pass `throughput: NaN` where a rate means nothing (one operation at a time).
   */
  finish(
    latencies: number[] | LatencyStats,
    options: { ops?: number; elapsedMs?: number; errors?: number; throughput?: number; cpuOps?: number } = {},
  ): RunStats {
    const cpuUsed = process.cpuUsage(this.cpu);
    this.rss.stop();
    const elapsedMs = options.elapsedMs ?? performance.now() - this.startedAt;
    const stats = Array.isArray(latencies) ? latencyStats(latencies) : latencies;
    const ops = options.ops ?? (Array.isArray(latencies) ? latencies.length : 0);
    return {
      ops,
      errors: options.errors ?? 0,
      elapsedMs,
      throughput: options.throughput ?? (ops / elapsedMs) * 1000,
      p50: stats.p50,
      p95: stats.p95,
      p99: stats.p99,
      mean: stats.mean,
      max: stats.max,
      peakRssMb: this.rss.peakMb,
      startRssMb: this.rss.startMb,
      loadAvg1m: os.loadavg()[0],
      cpuMsPerOp: (cpuUsed.user + cpuUsed.system) / 1000 / Math.max(1, options.cpuOps ?? ops),
    };
  }

  /** Stops sampling without a result (a failed run). */
  abort(): void {
    this.rss.stop();
  }
}

export function fmtMs(ms: number): string {
  return Number.isFinite(ms) ? ms.toFixed(2).padStart(6) : '     –';
}
