import fs from 'node:fs/promises';
import path from 'node:path';
import { Session } from 'node:inspector/promises';

/**
 * BENCH_CPU_PROFILE=<dir>: a V8 CPU profile of this process around chosen measurements
 * (`<dir>/<name>.cpuprofile`, open in Chrome DevTools or speedscope). Off by default;
 * profiling slows the process, so figures of a profiled run are not for the record.
 */
export async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
  const dir = process.env.BENCH_CPU_PROFILE;
  if (!dir) return work();
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
    try {
      return await work();
    } finally {
      const { profile } = await session.post('Profiler.stop');
      await fs.mkdir(dir, { recursive: true });
      await fs.writeFile(path.join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    }
  } finally {
    session.disconnect();
  }
}

/** `total` operations shared by `callers` concurrent loops, each calling `op(itsIndex)`. */
export async function drive(callers: number, total: number, op: (caller: number) => Promise<unknown>): Promise<void> {
  let left = total;
  await Promise.all(
    Array.from({ length: callers }, async (_, i) => {
      while (left-- > 0) await op(i);
    }),
  );
}

/**
 * One profiled measurement of a profiling script: `warmup` operations, then `calls` inside
 * `profiled(name)`, and a line on stderr with the rate and the process's CPU per call.
 */
export async function profileOps(
  name: string,
  callers: number,
  calls: number,
  warmup: number,
  op: (caller: number) => Promise<unknown>,
): Promise<void> {
  await drive(callers, warmup, op);
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  await profiled(name, () => drive(callers, calls, op));
  const used = process.cpuUsage(cpu);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  process.stderr.write(
    `${name}: ${calls} calls in ${ms.toFixed(0)} ms, ${(calls / (ms / 1000)).toFixed(0)}/s, CPU ${((used.user + used.system) / 1000 / calls).toFixed(2)} ms/call\n`,
  );
}

/** A script's entry: exit 0 when `main` resolves, 1 (with the error) when it rejects — open handles (pools, sockets) must not keep it alive. */
export function runScript(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
