import type { SqlRunner } from '../db/raw-transaction';

/**
 * The one place Toolgate writes graphile-worker's private tables (`_private_jobs`,
 * `_private_job_queues`), against graphile-worker 0.17.3 as pinned by
 * test/jobs/graphile-internals.test.ts — the upgrade test of every function here.
 *
 * Why private: graphile-worker's documented surface (add_job, the admin functions
 * complete_jobs / permanently_fail_jobs / reschedule_jobs / remove_job, the `jobs` view,
 * force_unlock_workers, WorkerUtils) has no way to
 * - lock a given job for a given owner (only its workers' get_job locks, a job of its choice);
 * - complete or fail a job while it is locked: the admin functions skip locked jobs
 *   (those locked under 4 hours), and graphile's own completion is internal to its worker;
 * - release one job's lock: force_unlock_workers releases every lock of an owner.
 * Local steps (src/runtime/local-steps.ts) need the first two on every startAgentRun,
 * postMessage and resolveApproval; node liveness the third for a completion lost in an
 * outage. Each function writes the same columns and values as the graphile-worker code it
 * mirrors (named per function), job and queue in one statement, so the worker finds
 * the rows as its own code leaves them. Reads of locks go through the public `jobs` view
 * (src/jobs/job-locks.ts), not through here.
 */

/**
 * Locks an available job and its queue for `owner`, as get_job does (attempts counted at
 * the lock), only while no one holds the queue; both or neither. False: left to the workers.
 */
export async function claimJob(tx: SqlRunner, jobId: string, owner: string): Promise<boolean> {
  const rows = await tx.execute<{ id: string }[]>(
    `with job as (
       select j.id, j.job_queue_id from graphile_worker._private_jobs j
        where j.id = ? and j.is_available and j.run_at <= now()),
     queue as (
       update graphile_worker._private_job_queues q set locked_by = ?, locked_at = now()
         from job where q.id = job.job_queue_id and q.locked_at is null
       returning q.id)
     update graphile_worker._private_jobs j set attempts = j.attempts + 1, locked_by = ?, locked_at = now()
       from queue where j.id = ? returning j.id`,
    [jobId, owner, owner, jobId],
  );
  return rows.length > 0;
}

/**
 * Completes a job `owner` still holds, as the worker's completion does (delete, release
 * the queue), plus a wake-up its own worker would not need: a job queued behind it
 * meanwhile found the queue locked and no worker is looking.
 */
export async function completeClaimedJob(em: SqlRunner, jobId: string, owner: string): Promise<void> {
  await em.execute(
    `with job as (
       delete from graphile_worker._private_jobs where id = ? and locked_by = ? returning job_queue_id),
     queue as (
       update graphile_worker._private_job_queues q set locked_by = null, locked_at = null
         from job where q.id = job.job_queue_id and q.locked_by = ? returning q.id)
     select pg_notify('jobs:insert', json_build_object('r', random(), 'count', 1)::text)
       from queue where exists (select 1 from graphile_worker._private_jobs j where j.job_queue_id = queue.id and j.is_available)`,
    [jobId, owner, owner],
  );
}

/** Fails a job `owner` still holds, as the worker's failure does: released with its backoff (attempts were counted at the claim). */
export async function failClaimedJob(em: SqlRunner, jobId: string, owner: string, message: string): Promise<void> {
  await em.execute(
    `with job as (
       update graphile_worker._private_jobs
          set last_error = ?, run_at = greatest(now(), run_at) + (exp(least(attempts, 10)) * interval '1 second'),
              locked_by = null, locked_at = null
        where id = ? and locked_by = ? returning job_queue_id)
     update graphile_worker._private_job_queues q set locked_by = null, locked_at = null
       from job where q.id = job.job_queue_id and q.locked_by = ?`,
    [message, jobId, owner, owner],
  );
}

/**
 * Releases one job's lock and its queue's (only while still held by `owner`), as
 * force_unlock_workers does for a whole owner; the job keeps its attempts and run_at, so a
 * worker takes it at once (the NOTIFY wakes them). False: `owner` no longer held it.
 */
export async function releaseJobLock(em: SqlRunner, jobId: string, owner: string): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    `with job as (
       update graphile_worker._private_jobs set locked_by = null, locked_at = null
        where id = ? and locked_by = ? returning id, job_queue_id),
     queue as (
       update graphile_worker._private_job_queues q set locked_by = null, locked_at = null
         from job where q.id = job.job_queue_id and q.locked_by = ? returning q.id)
     select job.id::text as id, pg_notify('jobs:insert', json_build_object('r', random(), 'count', 1)::text)
       from job left join queue on true`,
    [jobId, owner, owner],
  );
  return rows.length > 0;
}
