import type { EntityManager } from '@mikro-orm/postgresql';
import { jobTraceFields } from '../telemetry/trace-runs';

export const RUN_AGENT_TASK = 'run_agent';

/**
 * Enqueues a step of a run's loop inside the caller's transaction, so the job exists
 * exactly when the change that needs it commits. One queue per run keeps its steps
 * serial on every node; the job key folds duplicate requests into one pending job.
 */
export async function enqueueRunStep(em: EntityManager, runId: string): Promise<void> {
  // Traced, the payload also carries the run's trace context (src/telemetry/trace-runs.ts).
  const traced = jobTraceFields();
  await em.execute(
    `select graphile_worker.add_job(?, json_build_object('runId', ?::text${traced ? `, ${traced.sql}` : ''}), queue_name := ?, job_key := ?, max_attempts := 5)`,
    [RUN_AGENT_TASK, runId, ...(traced ? [runId, traced.cause] : []), `run:${runId}`, `run:${runId}`],
  );
}
