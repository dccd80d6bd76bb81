import os from 'node:os';
import { latencyStats, type RunStats } from './stats';

/**
 * Closed-loop load: `concurrency` callers, each issuing its next operation as soon as
 * the previous one answered, for `durationMs`. Operations still in flight at the deadline
 * are awaited and counted; throughput is operations over the time until the last answer.
 * RSS of this process is sampled every 20 ms while the load runs.
 */
export type Operation = (caller: number, iteration: number) => Promise<void>;

export interface LoadOptions {
  concurrency: number;
  durationMs: number;
  op: Operation;
}

export interface LoadRun extends RunStats {
  firstError: string | null;
}

export async function runLoad(options: LoadOptions): Promise<LoadRun> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | null = null;
  const rss = new RssSampler();
  rss.start();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const deadline = started + options.durationMs;

  const caller = async (index: number) => {
    let iteration = 0;
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        await options.op(index, iteration++);
        latencies.push(performance.now() - t0);
      } catch (error) {
        errors += 1;
        firstError ??= error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        // A failing operation must not turn into a hot loop of failures.
        if (errors > 50 && errors > latencies.length) throw new Error(`too many errors; first: ${firstError}`);
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, (_, i) => caller(i)));
  const elapsedMs = performance.now() - started;
  const cpuUsed = process.cpuUsage(cpu);
  rss.stop();
  return {
    ops: latencies.length,
    errors,
    elapsedMs,
    throughput: (latencies.length / elapsedMs) * 1000,
    ...latencyStats(latencies),
    peakRssMb: rss.peakMb,
    startRssMb: rss.startMb,
    loadAvg1m: os.loadavg()[0],
    cpuMsPerOp: (cpuUsed.user + cpuUsed.system) / 1000 / Math.max(1, latencies.length),
    firstError,
  };
}

export class RssSampler {
  private timer: NodeJS.Timeout | null = null;
  private peak = 0;
  private first = 0;

  start(): void {
    this.first = process.memoryUsage.rss();
    this.sample();
    this.timer = setInterval(() => this.sample(), 20);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.sample();
  }

  get startMb(): number {
    return this.first / 1024 / 1024;
  }

  get peakMb(): number {
    return this.peak / 1024 / 1024;
  }

  private sample(): void {
    const rss = process.memoryUsage.rss();
    if (rss > this.peak) this.peak = rss;
  }
}
