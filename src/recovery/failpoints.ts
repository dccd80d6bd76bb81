import type { Config, FAILPOINT_NAMES } from '../config';

export type FailpointName = (typeof FAILPOINT_NAMES)[number];

/**
 * Named crash points for the chaos harness (TOOLGATE_FAILPOINTS): at a point's n-th hit
 * the process dies with SIGKILL, exactly as a killed node would, so recovery is proven on
 * the real code path. Unset (always, outside the harness), `hit` is one map lookup.
 */
export class Failpoints {
  private readonly remaining: Map<string, number>;

  constructor(config: Pick<Config, 'failpoints'>) {
    this.remaining = new Map(Object.entries(config.failpoints));
  }

  hit(name: FailpointName): void {
    const left = this.remaining.get(name);
    if (left === undefined) return;
    if (left > 1) {
      this.remaining.set(name, left - 1);
      return;
    }
    process.stderr.write(`toolgate: failpoint ${name} reached; killing the process (SIGKILL)\n`);
    process.kill(process.pid, 'SIGKILL');
  }
}

/** No crash points: for composition roots that have no configuration of their own. */
export const NO_FAILPOINTS = new Failpoints({ failpoints: {} });
