import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../support/logger';
import type { AgentRuntime } from './agent-runtime';
import type { KnownRun, LocalStepStarter, StepBatch } from '../runs/step-batches';
import { traceRunStep } from '../telemetry/trace-runs';
import { describeUnavailable, isDatabaseUnavailable } from '../db/unavailable';
import type { HeldJobs } from '../jobs/held-jobs';
import type { EnqueuedStep } from '../runs/run-jobs';
import { claimJob, completeClaimedJob, failClaimedJob } from '../jobs/graphile-private';

/** Waits between attempts to complete or fail a step's job (doubled up to the cap): until the database answers again. */
const SETTLE_RETRY_MS = 250;
const SETTLE_RETRY_MAX_MS = 2000;

interface Claimed extends EnqueuedStep {
  /** The lock owner it was claimed with. */
  owner: string;
  known: KnownRun | null;
}

/**
 * Run steps started by the node whose request committed them (startAgentRun, postMessage,
 * resolveApproval), without the durable queue's hop. Inside the committing transaction,
 * right after add_job, the new job and its run's queue are locked with this node's worker
 * lock owner — as graphile-worker's own get_job does, through the one adapter to its
 * private tables (src/jobs/graphile-private.ts) — so no worker anywhere takes the job or
 * any other step of the run; after the commit the step runs here and the job is completed
 * (or failed, for the normal retry) as the worker would.
 * A node that dies meanwhile is reaped by node liveness, which releases its lock owner's
 * locks: the job then runs on another node. When this node cannot take the step (no
 * worker, at its bound, shutting down, the run's queue busy) nothing is locked and the
 * worker picks the job up as before.
 *
 * Bound: LOCAL_STEP_CONCURRENCY steps at once, apart from the worker's WORKER_CONCURRENCY.
 * graphile-worker's pool has a fixed number of slots and no way to lend one; waiting for a
 * slot would hold a job lock without running it, and a step refused here still runs at
 * once on any node's worker, so a separate bound costs nothing but the cap.
 */
export class LocalSteps implements LocalStepStarter {
  private lockOwner: string | null = null;
  private accepting = true;
  /** Slots taken: steps running here plus claims in transactions not yet settled. */
  private taken = 0;
  private idle: (() => void) | null = null;

  constructor(
    private readonly deps: {
      orm: MikroORM;
      runtime: AgentRuntime;
      logger: Logger;
      /** Steps at once (0: every step goes through the job queue). */
      limit: number;
      /** Where claimed jobs are noted until their completion is written (node liveness leaves those alone). */
      heldJobs?: HeldJobs;
    },
  ) {}

  /** The id this node's worker locks jobs with (its pool's, recorded by node liveness); until then nothing is claimed. */
  attach(lockOwner: string): void {
    this.lockOwner = lockOwner;
  }

  /** The claims of one committing transaction. */
  batch(): StepBatch {
    return new ClaimedSteps(this);
  }

  /** Claims no more; resolves when the steps running here (and those of transactions still committing) have ended. */
  async stop(): Promise<void> {
    this.accepting = false;
    if (this.taken === 0) return;
    await new Promise<void>((resolve) => {
      this.idle = resolve;
    });
  }

  /** In the committing transaction: locks the job for this node when a slot is free (the lock owner); null leaves it to the workers. */
  async claim(tx: EntityManager, step: EnqueuedStep): Promise<string | null> {
    const owner = this.lockOwner;
    if (!owner || !this.accepting || this.taken >= this.deps.limit) return null;
    this.taken += 1;
    try {
      // As get_job: the queue only while no one holds it (a step of this run still running
      // anywhere keeps it), and the job only while available; both or neither.
      const claimed = await claimJob(tx, step.jobId, owner);
      if (!claimed) this.free();
      else this.deps.heldJobs?.hold(step.jobId, owner);
      return claimed ? owner : null;
    } catch (error) {
      this.free();
      throw error;
    }
  }

  /** A slot is free again: a step ended, or a claim's transaction did not commit (`jobId`: its locks rolled back with it). */
  free(jobId?: string): void {
    if (jobId !== undefined) this.deps.heldJobs?.end(jobId, true);
    this.taken -= 1;
    if (this.taken === 0 && !this.accepting) this.idle?.();
  }

  /** After the commit: runs the claimed step here, then completes or fails its job. */
  run(step: Claimed): void {
    void this.execute(step).finally(() => this.free());
  }

  private async execute(step: Claimed): Promise<void> {
    const log = this.deps.logger;
    let failure: unknown = null;
    try {
      await traceRunStep(step.payload, step.runId, () => this.deps.runtime.step(step.runId, step.known ?? undefined));
    } catch (error) {
      failure = error;
      log.warn({ err: error, runId: step.runId }, 'run step failed here; its job is retried by the workers');
    }
    // Held, the lock keeps the run's steps from every worker: retried until the database
    // answers again (an outage), so the run continues here within moments of its return.
    let delay = SETTLE_RETRY_MS;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.settle(step, failure);
        this.deps.heldJobs?.end(step.jobId, true);
        if (attempt > 1) log.warn({ runId: step.runId, jobId: step.jobId, attempts: attempt }, 'run step job settled after the database came back');
        return;
      } catch (error) {
        if (attempt === 1) {
          log.warn(
            { cause: describeUnavailable(error), err: isDatabaseUnavailable(error) ? undefined : error, runId: step.runId, jobId: step.jobId },
            'could not settle a run step job run here; retrying until the database answers',
          );
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(SETTLE_RETRY_MAX_MS, delay * 2);
      }
    }
  }

  private async settle(step: Claimed, failure: unknown): Promise<void> {
    const em = this.deps.orm.em.fork();
    if (failure === null) await completeClaimedJob(em, step.jobId, step.owner);
    // Failed: released with graphile-worker's backoff, for the normal retry.
    else await failClaimedJob(em, step.jobId, step.owner, failure instanceof Error ? failure.message : String(failure));
  }
}

/**
 * The steps one transaction enqueued: `enqueue` claims each for this node where it can;
 * once the transaction has committed `start` runs them, and `abandon` frees the slots of a
 * transaction that did not commit.
 */
class ClaimedSteps implements StepBatch {
  private readonly claimed: Claimed[] = [];
  private settled = false;

  constructor(private readonly steps: LocalSteps) {}

  async claim(tx: EntityManager, step: EnqueuedStep): Promise<void> {
    if (this.settled) return; // a batch serves one transaction
    const owner = await this.steps.claim(tx, step);
    if (owner) this.claimed.push({ ...step, owner, known: null });
  }

  /** What the committing request already holds about the run, handed to its step (only if claimed). */
  know(runId: string, known: KnownRun): void {
    for (const step of this.claimed) if (step.runId === runId) step.known = known;
  }

  start(): void {
    if (this.settled) return;
    this.settled = true;
    for (const step of this.claimed) this.steps.run(step);
  }

  abandon(): void {
    if (this.settled) return;
    this.settled = true;
    for (const step of this.claimed) this.steps.free(step.jobId);
  }
}
