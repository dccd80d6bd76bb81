import type { Figure } from './measure';
import type { BenchSettings } from './measure';
import type { StatementCounts } from '../scenarios/statements';
import type { ConnectionMemory } from '../scenarios/subscriptions';

export interface Machine {
  cpuModel: string;
  cpus: number;
  memoryGb: number;
  os: string;
  node: string;
  postgres: string;
  postgresSettings: Record<string, string>;
  database: string;
  /** 1-minute load average at the end of each measured run: min, median, max. */
  loadAverage: { min: number; median: number; max: number };
}

export interface Report {
  startedAt: string;
  finishedAt: string;
  wallSeconds: number;
  command: string;
  git: string;
  settings: BenchSettings;
  machine: Machine;
  statements: StatementCounts;
  figures: Figure[];
  /** Memory per idle connection (subscriptions scenario). */
  connections?: ConnectionMemory;
  notes: string[];
}

const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : '–');
/** CPU per operation: ms, or µs below 0.1 ms (per-frame figures). */
const cpu = (v: number) => (!Number.isFinite(v) ? '–' : v < 0.1 ? `${(v * 1000).toFixed(1)} µs` : v.toFixed(2));
const ops = (v: number) => (Number.isFinite(v) ? v.toFixed(0) : '–');
const pct = (v: number) => (Number.isFinite(v) ? `${(v * 100).toFixed(0)} %` : '–');
const signed = (v: number) => (Number.isFinite(v) ? `${v >= 0 ? '+' : ''}${v.toFixed(2)}` : '–');

export function goalText(f: Figure): string {
  if (f.goals.length === 0) return '–';
  return f.goals.map((g) => `${g.short}: ${g.pass ? 'pass' : g.stretch ? 'no' : '**MISS**'}`).join(' · ');
}

/** Misses of hard goals (stretch goals are reported apart). */
export function misses(figures: Figure[]): string[] {
  return figures.flatMap((f) =>
    f.goals
      .filter((g) => !g.pass && !g.stretch)
      .map((g) =>
        f.unit
          ? `${f.section}: ${f.name} — ${g.label} (${Number.isFinite(f.subject.p50) ? `p50 ${ms(f.subject.p50)} ms, p99 ${ms(f.subject.p99)} ms` : `${ops(f.subject.throughput)} ${f.unit}`}` +
            `${Number.isFinite(f.p50DeltaMs) ? `, p50 Δ ${signed(f.p50DeltaMs)} ms, p99 Δ ${signed(f.p99DeltaMs ?? Number.NaN)} ms` : ''}` +
            `${Number.isFinite(f.ratio) ? `, ratio ${pct(f.ratio)}` : ''})`
          : `${f.section}: ${f.name} at ${f.concurrency} caller(s) — ${g.label} (ratio ${pct(f.ratio)}, p50 ${signed(f.p50DeltaMs)} ms)`,
      ),
  );
}

const TABLE_HEAD =
  '| figure | callers | ops/s | p50 ms | p95 ms | p99 ms | CPU ms/op | baseline | base ops/s | base p50 | base p95 | base p99 | base CPU ms/op | ratio | p50 Δ ms | goals | peak RSS MB |\n' +
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |';

/** The realtime and runtime scenarios: their own unit, what `concurrency` counts, and p99 Δ. */
function latencyHead(f: Figure): string {
  const unit = f.unit ?? 'ops/s';
  return (
    `| figure | ${f.concurrencyLabel ?? 'callers'} | ${unit} | p50 ms | p95 ms | p99 ms | CPU ms/op | baseline | base ${unit} | base p50 | base p95 | base p99 | base CPU ms/op | ratio | p50 Δ ms | p99 Δ ms | goals | peak RSS MB |\n` +
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |'
  );
}

function latencyRow(f: Figure): string {
  const s = f.subject;
  const b = f.baseline;
  return `| ${f.name} | ${f.concurrency} | ${ops(s.throughput)} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.p99)} | ${cpu(s.cpuMsPerOp)} | ${f.baselineName} | ${ops(b.throughput)} | ${ms(b.p50)} | ${ms(b.p95)} | ${ms(b.p99)} | ${cpu(b.cpuMsPerOp)} | ${pct(f.ratio)} | ${signed(f.p50DeltaMs)} | ${signed(f.p99DeltaMs ?? Number.NaN)} | ${goalText(f)} | ${s.peakRssMb.toFixed(0)} |`;
}

function row(f: Figure): string {
  const s = f.subject;
  const b = f.baseline;
  return `| ${f.name} | ${f.concurrency} | ${ops(s.throughput)} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.p99)} | ${ms(s.cpuMsPerOp)} | ${f.baselineName} | ${ops(b.throughput)} | ${ms(b.p50)} | ${ms(b.p95)} | ${ms(b.p99)} | ${ms(b.cpuMsPerOp)} | ${pct(f.ratio)} | ${signed(f.p50DeltaMs)} | ${goalText(f)} | ${s.peakRssMb.toFixed(0)} |`;
}

export function renderMarkdown(report: Report): string {
  const { machine: m, settings } = report;
  const lines: string[] = [];
  lines.push('# Toolgate benchmark report', '');
  lines.push(
    `${report.startedAt} → ${report.finishedAt} (${report.wallSeconds.toFixed(0)} s wall), \`${report.command}\`, commit ${report.git}.`,
    '',
    `Each figure is the median of ${settings.runs} runs of ${(settings.durationMs / 1000).toFixed(1)} s ` +
      `(after a ${(settings.warmupMs / 1000).toFixed(1)} s warm-up per variant)${settings.quick ? ' — **quick smoke run (BENCH_QUICK=1): not for the record**' : ''}. ` +
      'The baseline of a figure is measured in the same rounds (order reversed every other round); the ratio is the median of ' +
      'per-round ratios of throughput (subject ÷ baseline), p50 Δ the median of per-round differences of p50. ' +
      'ops/s is throughput of a closed loop (each caller sends its next request when the previous one answered).',
    '',
  );
  lines.push('## Machine', '');
  lines.push('| | |', '| --- | --- |');
  lines.push(`| CPU | ${m.cpus} × ${m.cpuModel} |`);
  lines.push(`| memory | ${m.memoryGb.toFixed(1)} GB |`);
  lines.push(`| OS | ${m.os} |`);
  lines.push(`| Node | ${m.node} |`);
  lines.push(`| PostgreSQL | ${m.postgres} |`);
  lines.push(
    `| PostgreSQL settings | ${Object.entries(m.postgresSettings)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')} |`,
  );
  lines.push(`| database | ${m.database} |`);
  lines.push(
    `| load average (1 min) during the runs | min ${m.loadAverage.min.toFixed(1)}, median ${m.loadAverage.median.toFixed(1)}, max ${m.loadAverage.max.toFixed(1)} (this process and PostgreSQL included) |`,
    '',
  );

  const sections = [...new Set(report.figures.map((f) => f.section))];
  for (const section of sections) {
    lines.push(`## ${section}`, '');
    const figures = report.figures.filter((f) => f.section === section);
    const notes = [...new Set(figures.map((f) => f.note).filter(Boolean))];
    if (notes.length) lines.push(notes.map((n) => `_${n}_`).join(' · '), '');
    if (figures[0].unit) lines.push(latencyHead(figures[0]), ...figures.map(latencyRow), '');
    else lines.push(TABLE_HEAD, ...figures.map(row), '');
    const details = figures.flatMap((f) => f.details ?? []);
    if (details.length) lines.push(...details.map((d) => `- ${d}`), '');
  }

  const c = report.connections;
  if (c) {
    lines.push(`## Memory per idle connection (${c.clients} connections)`, '');
    lines.push(
      'RSS, V8 heap and external memory (Buffers) of the bench process (the server) after a forced GC, before and after opening the connections, divided by their number. ' +
        'graphql-ws: connection_init acknowledged and one live `runEvents` subscription each; raw: an open `ws` socket. Heap is the reliable figure: RSS rarely shrinks, ' +
        'so pages freed by earlier scenarios are reused and hide part of the growth.',
      '',
    );
    lines.push('| connection | KB RSS each | KB heap each | KB external each | open time (all) ms |', '| --- | ---: | ---: | ---: | ---: |');
    lines.push(
      `| graphql-ws + 1 subscription | ${c.gql.rssKb.toFixed(1)} | ${c.gql.heapKb.toFixed(1)} | ${c.gql.externalKb.toFixed(1)} | ${c.gql.openMs.toFixed(0)} |`,
    );
    lines.push(
      `| of which the connection (acknowledged) | ${c.connection.rssKb.toFixed(1)} | ${c.connection.heapKb.toFixed(1)} | ${c.connection.externalKb.toFixed(1)} | ${c.connection.openMs.toFixed(0)} |`,
    );
    lines.push(
      `| of which the runEvents subscription | ${c.subscription.rssKb.toFixed(1)} | ${c.subscription.heapKb.toFixed(1)} | ${c.subscription.externalKb.toFixed(1)} | ${c.subscription.openMs.toFixed(0)} |`,
    );
    lines.push(`| raw ws | ${c.raw.rssKb.toFixed(1)} | ${c.raw.heapKb.toFixed(1)} | ${c.raw.externalKb.toFixed(1)} | ${c.raw.openMs.toFixed(0)} |`);
    lines.push(
      '',
      `Client clock offset ${c.clockOffsetMs.toFixed(3)} ms (±${(c.clockRttMs / 2).toFixed(3)} ms), applied to every cross-process latency.`,
      '',
    );
  }

  const judged = report.figures.filter((f) => f.goals.length > 0);
  if (judged.length) {
    lines.push('## Goals, pass or miss', '');
    lines.push('| section | figure | at | goal | result |', '| --- | --- | ---: | --- | --- |');
    for (const f of judged) {
      for (const g of f.goals) {
        lines.push(
          `| ${f.section} | ${f.name} (vs ${f.baselineName}) | ${f.concurrency} | ${g.label} | ${g.pass ? 'pass' : g.stretch ? 'no (stretch)' : '**miss**'} |`,
        );
      }
    }
    lines.push('');
  }
  const missed = misses(report.figures);
  lines.push('## Goals missed', '');
  lines.push(...(missed.length ? missed.map((m) => `- ${m}`) : ['- none']), '');
  const stretch = report.figures.filter((f) => f.goals.some((g) => g.stretch && !g.pass));
  if (stretch.length) {
    lines.push(
      'Stretch goal (≥ 65 %) not reached: ' +
        stretch.map((f) => `${f.name} c=${f.concurrency}${f.id.endsWith('.spread') ? ' (spread)' : ''} (${pct(f.ratio)})`).join(', ') +
        '.',
      '',
    );
  }

  if (Object.keys(report.statements.perOp).length > 0) {
    lines.push('## SQL statements per operation', '', '(BEGIN/COMMIT included; counted on a separate counting server.)', '');
    lines.push('| operation | statements |', '| --- | ---: |');
    for (const [key, count] of Object.entries(report.statements.perOp)) lines.push(`| ${key} | ${count} |`);
    lines.push('', 'One executeToolCall (in-process), in order:', '', '```sql', ...report.statements.gatewayCall, '```', '');
    lines.push(
      report.statements.baselineDiff.length
        ? `**The raw baseline differs from these statements:**\n\n${report.statements.baselineDiff.map((d) => `- ${d}`).join('\n')}\n`
        : 'The raw `pg` baseline sends exactly these statements (text compared after whitespace is collapsed).\n',
    );
  }

  lines.push('## Peak RSS of the bench process under each load', '');
  lines.push(
    'The server runs inside the bench process, so this is the RSS of server + load generator + raw `pg` pool together, ' +
      'sampled every 20 ms; "at start" is the RSS when the load began (after a forced GC). In the subscriptions scenario the ' +
      "clients run in a child process: its rows are the server's (and the raw baseline's WebSocketServer). Tokens and approval " +
      'resume run a second server with the job worker and the offline model in this process.',
    '',
  );
  lines.push('| load | callers | variant | at start MB | peak MB |', '| --- | ---: | --- | ---: | ---: |');
  const seen = new Set<string>();
  for (const f of report.figures) {
    for (const [name, s] of [
      [f.name, f.subject],
      [f.baselineName, f.baseline],
    ] as const) {
      const key = `${f.section}|${f.concurrency}|${name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      lines.push(`| ${f.section} | ${f.concurrency} | ${name} | ${s.startRssMb.toFixed(0)} | ${s.peakRssMb.toFixed(0)} |`);
    }
  }
  lines.push('');
  if (report.notes.length) lines.push('## Notes', '', ...report.notes.map((n) => `- ${n}`), '');
  return lines.join('\n');
}

/** A compact plain-text table for stdout. */
export function renderSummary(report: Report): string {
  const lines = [`Toolgate bench (${report.settings.quick ? 'QUICK' : 'full'}) — ${report.wallSeconds.toFixed(0)} s`];
  let section = '';
  for (const f of report.figures) {
    if (f.section !== section) {
      section = f.section;
      lines.push('', section);
    }
    const unit = f.unit ?? 'ops/s';
    lines.push(
      `  ${f.name.padEnd(28)} c=${String(f.concurrency).padEnd(3)} ${ops(f.subject.throughput).padStart(6)} ${unit} ` +
        `p50 ${ms(f.subject.p50).padStart(7)} p99 ${ms(f.subject.p99).padStart(7)} cpu ${cpu(f.subject.cpuMsPerOp)} | vs ${f.baselineName.padEnd(26)} ` +
        `${ops(f.baseline.throughput).padStart(6)} ${unit} p50 ${ms(f.baseline.p50).padStart(7)} cpu ${cpu(f.baseline.cpuMsPerOp)} | ratio ${pct(f.ratio).padStart(5)} ` +
        `Δp50 ${signed(f.p50DeltaMs).padStart(7)}${f.goals.length ? `  ${goalText(f).replace(/\*\*/g, '')}` : ''}`,
    );
  }
  const missed = misses(report.figures);
  if (report.statements.baselineDiff.length) {
    lines.push('', "WARNING: the raw baseline no longer sends the gateway's statements (see the report); update bench/lib/raw-tool-call.ts");
  }
  const goals = report.figures.flatMap((f) => f.goals.filter((g) => !g.stretch));
  lines.push('', `Goals: ${goals.filter((g) => g.pass).length} pass, ${goals.filter((g) => !g.pass).length} miss`);
  lines.push(missed.length ? `Goals missed (${missed.length}):` : 'Goals missed: none');
  for (const m of missed) lines.push(`  - ${m.replace(/\*\*/g, '')}`);
  return lines.join('\n');
}
