/** How long an ended job's entry is kept (far longer than any completion write can take). */
const FORGET_AFTER_MS = 10 * 60_000;

/** What this process knows of a job: running here, ended here that long ago (its completion on its way), or nothing. */
export type JobHere = { running: true } | { running: false; endedMsAgo: number } | null;

/**
 * The graphile-worker jobs this process runs (or ran), with the lock owner each was locked
 * under: the job worker's pools and the in-process steps both note theirs here. Node
 * liveness asks it before releasing a lock of this node's own — a lock that outlives its
 * job's run here is a completion lost in an outage — and before releasing every lock of an
 * owner this node no longer uses.
 */
export class HeldJobs {
  private readonly running = new Map<string, string>();
  /** Runs that ended, their completion not known to be written: job id → [owner, when]. */
  private readonly ended = new Map<string, [string, number]>();

  constructor(private readonly now: () => number = Date.now) {}

  hold(jobId: string, owner: string): void {
    this.ended.delete(jobId);
    this.running.set(jobId, owner);
  }

  /** The job's run here ended; `settled` when its completion is known to be written. */
  end(jobId: string, settled = false): void {
    const owner = this.running.get(jobId);
    this.running.delete(jobId);
    if (settled) this.ended.delete(jobId);
    else if (owner !== undefined) this.ended.set(jobId, [owner, this.now()]);
  }

  about(jobId: string): JobHere {
    if (this.running.has(jobId)) return { running: true };
    const ended = this.ended.get(jobId);
    if (!ended) return null;
    const ago = this.now() - ended[1];
    if (ago < FORGET_AFTER_MS) return { running: false, endedMsAgo: ago };
    this.ended.delete(jobId);
    return null;
  }

  /** Whether a job locked under `owner` still runs here. */
  busy(owner: string): boolean {
    for (const held of this.running.values()) if (held === owner) return true;
    return false;
  }
}
