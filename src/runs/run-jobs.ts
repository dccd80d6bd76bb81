import type { EntityManager } from '@mikro-orm/postgresql';
import { jobTraceFields } from '../telemetry/trace-runs';

export const RUN_AGENT_TASK = 'run_agent';

/** A run step's job as graphile-worker's add_job returned it. */
export interface EnqueuedStep {
  jobId: string;
  runId: string;
  payload: { trace?: unknown; cause?: unknown };
}

/**
 * What a committing transaction offers the steps it enqueues: a claim that may start one
 * on this node after the commit (src/runtime/local-steps.ts implements it). Declared here, so
 * that the run's state owner enqueues steps without knowing the step runner.
 */
export interface StepClaims {
  claim(tx: EntityManager, step: EnqueuedStep): Promise<void>;
}

/**
 * Enqueues a step of a run's loop inside the caller's transaction, so the job exists
 * exactly when the change that needs it commits. One queue per run keeps its steps
 * serial on every node; the job key folds duplicate requests into one pending job.
 * With `local`, the committing node claims the step to start it itself after the commit
 * (src/runtime/local-steps.ts); the job stays the fallback.
 */
export async function enqueueRunStep(em: EntityManager, runId: string, local?: StepClaims | null): Promise<void> {
  // Traced, the payload also carries the run's trace context (src/telemetry/trace-runs.ts).
  const traced = jobTraceFields();
  const [job] = await em.execute<{ id: string | null; payload: Record<string, unknown> | null }[]>(
    `select (j).id, (j).payload from (select graphile_worker.add_job(?, json_build_object('runId', ?::text${traced ? `, ${traced.sql}` : ''}), queue_name := ?, job_key := ?, max_attempts := 5) as j) added`,
    [RUN_AGENT_TASK, runId, ...(traced ? [runId, traced.cause] : []), `run:${runId}`, `run:${runId}`],
  );
  // No job: the key's pending job was taken by a worker at that instant (that worker runs the step).
  if (local && job?.id) {
    await local.claim(em, { jobId: job.id, runId, payload: job.payload ?? {} });
  }
}
