/** Nearest-rank percentile of an ascending array (p in 0..100). */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function median(values: number[]): number {
  const finite = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (finite.length === 0) return Number.NaN;
  const mid = Math.floor(finite.length / 2);
  return finite.length % 2 === 1 ? finite[mid] : (finite[mid - 1] + finite[mid]) / 2;
}

/** One measurement (one run of one variant). Latencies in ms, throughput in operations/s. */
export interface RunStats {
  ops: number;
  errors: number;
  elapsedMs: number;
  throughput: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  max: number;
  peakRssMb: number;
  /** RSS when the load started (after a GC when --expose-gc is on). */
  startRssMb: number;
  /** The machine's 1-minute load average when the run ended (this process included). */
  loadAvg1m: number;
  /**
   * CPU time (user + system) this process spent per operation: server, client and
   * baseline alike. Far less sensitive to a busy machine than wall-clock figures.
   */
  cpuMsPerOp: number;
}

/** Several runs of one variant, each figure the median of the runs. */
export interface Summary {
  runs: RunStats[];
  throughput: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  /** The highest RSS seen in any run (not a median: a peak is a peak). */
  peakRssMb: number;
  startRssMb: number;
  loadAvg1m: number;
  cpuMsPerOp: number;
  errors: number;
}

export function summarize(runs: RunStats[]): Summary {
  const pick = (key: keyof RunStats) => median(runs.map((r) => r[key]));
  return {
    runs,
    throughput: pick('throughput'),
    p50: pick('p50'),
    p95: pick('p95'),
    p99: pick('p99'),
    mean: pick('mean'),
    peakRssMb: Math.max(...runs.map((r) => r.peakRssMb)),
    startRssMb: pick('startRssMb'),
    loadAvg1m: pick('loadAvg1m'),
    cpuMsPerOp: pick('cpuMsPerOp'),
    errors: runs.reduce((n, r) => n + r.errors, 0),
  };
}

export function latencyStats(latencies: number[]): Pick<RunStats, 'p50' | 'p95' | 'p99' | 'mean' | 'max'> {
  const sorted = Float64Array.from(latencies).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    mean: sorted.length ? sum / sorted.length : Number.NaN,
    max: sorted.length ? sorted[sorted.length - 1] : Number.NaN,
  };
}
