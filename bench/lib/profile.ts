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
