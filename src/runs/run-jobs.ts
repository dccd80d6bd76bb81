import type { EntityManager } from '@mikro-orm/postgresql';

export const RUN_AGENT_TASK = 'run_agent';

/**
 * Enqueues a step of a run's loop inside the caller's transaction, so the job exists
 * exactly when the change that needs it commits. One queue per run keeps its steps
 * serial on every node; the job key folds duplicate requests into one pending job.
 */
export async function enqueueRunStep(em: EntityManager, runId: string): Promise<void> {
  await em.execute(`select graphile_worker.add_job(?, json_build_object('runId', ?::text), queue_name := ?, job_key := ?, max_attempts := 5)`, [
    RUN_AGENT_TASK,
    runId,
    `run:${runId}`,
    `run:${runId}`,
  ]);
}
