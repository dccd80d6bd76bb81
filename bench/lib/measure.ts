import { runLoad, type LoadRun, type Operation } from './load';
import { GOALS, percent } from './goals';
import { median, summarize, type Summary } from './stats';

/** Durations and counts of one bench invocation (BENCH_QUICK=1 shrinks them). */
export interface BenchSettings {
  quick: boolean;
  runs: number;
  durationMs: number;
  warmupMs: number;
}

export interface BenchContext {
  settings: BenchSettings;
  /** A progress line on stderr. */
  log(line: string): void;
}

export interface Variant {
  key: string;
  label: string;
  op: Operation;
  /** Runs before the warm-up and before every measured run (e.g. fresh HTTP sockets). */
  prepare?: () => void;
}

export type Measured = Record<string, Summary & { runs: LoadRun[] }>;

/**
 * Measures variants side by side at one concurrency: a warm-up of each, then `runs`
 * rounds in which every variant runs once, the order reversed every other round so
 * drift (table growth, a neighbour's load) falls on all of them alike.
 */
export async function measure(ctx: BenchContext, title: string, concurrency: number, variants: Variant[]): Promise<Measured> {
  const { runs, durationMs, warmupMs } = ctx.settings;
  for (const variant of variants) {
    variant.prepare?.();
    const warm = await runLoad({ concurrency, durationMs: warmupMs, op: variant.op });
    if (warm.errors > 0 && warm.ops === 0) throw new Error(`${title} ${variant.label}: ${warm.firstError}`);
  }
  const results: Record<string, LoadRun[]> = Object.fromEntries(variants.map((v) => [v.key, []]));
  for (let round = 0; round < runs; round++) {
    const order = round % 2 === 0 ? variants : [...variants].reverse();
    for (const variant of order) {
      variant.prepare?.();
      collectGarbage();
      const run = await runLoad({ concurrency, durationMs, op: variant.op });
      results[variant.key].push(run);
      ctx.log(
        `  ${title} c=${concurrency} run ${round + 1}/${runs} ${variant.label.padEnd(26)} ` +
          `${run.throughput.toFixed(0).padStart(6)} ops/s  p50 ${fmt(run.p50)}  p95 ${fmt(run.p95)}  p99 ${fmt(run.p99)} ms` +
          `  cpu ${run.cpuMsPerOp.toFixed(2)} ms/op  rss ${run.peakRssMb.toFixed(0)} MB  load ${run.loadAvg1m.toFixed(1)}${run.errors ? `  ERRORS ${run.errors}: ${run.firstError}` : ''}`,
      );
    }
  }
  return Object.fromEntries(variants.map((v) => [v.key, summarize(results[v.key]) as Summary & { runs: LoadRun[] }]));
}

function fmt(ms: number): string {
  return ms.toFixed(2).padStart(6);
}

function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) gc();
}

export interface Goal {
  label: string;
  /** For the table, e.g. `≥50%`. */
  short: string;
  pass: boolean;
  /** A stretch goal: missing it is reported, not counted as a miss. */
  stretch?: boolean;
}

/** One figure of the report: a subject against its baseline, measured in the same rounds. */
export interface Figure {
  id: string;
  section: string;
  name: string;
  concurrency: number;
  subject: Summary;
  baselineName: string;
  baseline: Summary;
  /** Median over rounds of subject throughput / baseline throughput of the same round. */
  ratio: number;
  /** Median over rounds of subject p50 − baseline p50 (ms). */
  p50DeltaMs: number;
  goals: Goal[];
  /** SQL statements per operation, from the counting pass. */
  statements?: number;
  baselineStatements?: number;
  note?: string;
  /** What an operation is in this figure's throughput column (default `ops/s`). */
  unit?: string;
  /** What `concurrency` counts (default `callers`). */
  concurrencyLabel?: string;
  /** Median over rounds of subject p99 − baseline p99 (ms), when the figure compares latencies. */
  p99DeltaMs?: number;
  /** Further figures of this measurement (JSON), e.g. a latency breakdown. */
  extra?: Record<string, number>;
  /** Sentences shown under the section's table. */
  details?: string[];
}

export function figure(
  fields: Omit<Figure, 'ratio' | 'p50DeltaMs' | 'goals'>,
  goals: (f: { ratio: number; p50DeltaMs: number; p99DeltaMs: number; subject: Summary; baseline: Summary }) => Goal[] = () => [],
  options: { compareLatency?: boolean } = {},
): Figure {
  const pairs = fields.subject.runs.map((run, i) => ({ subject: run, baseline: fields.baseline.runs[i] }));
  const ratio = median(pairs.map((p) => p.subject.throughput / p.baseline.throughput));
  const compare = options.compareLatency ?? true;
  const p50DeltaMs = compare ? median(pairs.map((p) => p.subject.p50 - p.baseline.p50)) : Number.NaN;
  const p99DeltaMs = compare ? median(pairs.map((p) => p.subject.p99 - p.baseline.p99)) : Number.NaN;
  const computed = { ratio, p50DeltaMs, p99DeltaMs, subject: fields.subject, baseline: fields.baseline };
  return { ...fields, ratio, p50DeltaMs, p99DeltaMs: fields.p99DeltaMs ?? p99DeltaMs, goals: goals(computed) };
}

/**
 * The gateway goals (performance round three, bench/lib/goals.ts): over HTTP, at every
 * concurrency and in both org layouts, ≥ 65 % of raw pg with the same statements and CPU per
 * call ≤ 2× raw's; in-process, reported against raw without a goal.
 */
export function gatewayGoals(key: 'inproc' | 'http', { ratio, subject, baseline }: { ratio: number; subject: Summary; baseline: Summary }): Goal[] {
  if (key === 'inproc') return [];
  const cpu = GOALS.gatewayHttpCpuOfRaw;
  return [
    {
      label: `throughput ≥ ${percent(GOALS.gatewayHttpOfRaw)} of raw`,
      short: `≥${percent(GOALS.gatewayHttpOfRaw)}`,
      pass: ratio >= GOALS.gatewayHttpOfRaw,
    },
    {
      label: `CPU per call ≤ ${cpu}× raw (${subject.cpuMsPerOp.toFixed(2)} against ${baseline.cpuMsPerOp.toFixed(2)} ms: ${(subject.cpuMsPerOp / baseline.cpuMsPerOp).toFixed(1)}×)`,
      short: `CPU ≤${cpu}×`,
      pass: subject.cpuMsPerOp <= cpu * baseline.cpuMsPerOp,
    },
  ];
}

/** Against the minimal floor: over HTTP ≥ 50 %, in-process ≥ 75 %, at every concurrency. */
export function gatewayFloorGoals(key: 'inproc' | 'http', { ratio }: { ratio: number }): Goal[] {
  const goal = key === 'http' ? GOALS.gatewayHttpOfFloor : GOALS.gatewayInprocOfFloor;
  return [{ label: `throughput ≥ ${percent(goal)} of the minimal floor`, short: `≥${percent(goal)}`, pass: ratio >= goal }];
}
