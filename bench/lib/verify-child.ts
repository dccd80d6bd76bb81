import 'reflect-metadata';
import { buildProgram } from '../../src/cli/program';

/**
 * `toolgate ledger verify --org <id> --json` in a process of its own (forked by the growth
 * scenario), so its memory is the command's alone: the CLI's own program (src/cli/program.ts),
 * as src/cli/main.ts runs it, with DATABASE_URL and the rest from the environment. Reports to the
 * parent the command's exit code, its JSON line, its time and the process's peak RSS.
 */
export interface VerifyChildReport {
  exitCode: number;
  /** The command's stdout: one JSON line (src/cli/ledger.ts). */
  output: string;
  /** From parsing the command to its end (connecting to the database included, Node's start not). */
  ms: number;
  /** Peak resident set size of this process (getrusage), MB. */
  maxRssMb: number;
  /** User + system CPU of this process during the command, ms. */
  cpuMs: number;
}

async function main(): Promise<void> {
  const orgId = process.argv[2];
  let output = '';
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array) => {
    output += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  }) as typeof process.stdout.write;
  const run = { exitCode: 0 };
  const cpu = process.cpuUsage();
  const started = performance.now();
  try {
    await buildProgram(run).parseAsync(['ledger', 'verify', '--org', orgId, '--json'], { from: 'user' });
  } finally {
    process.stdout.write = write;
  }
  const used = process.cpuUsage(cpu);
  const report: VerifyChildReport = {
    exitCode: run.exitCode,
    output,
    ms: performance.now() - started,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    cpuMs: (used.user + used.system) / 1000,
  };
  process.send?.(report, () => process.exit(0));
}

main().catch((error: unknown) => {
  process.stderr.write(`verify child: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
