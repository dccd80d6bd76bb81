import type { EntityManager } from '@mikro-orm/postgresql';

// graphile-worker's private tables, as local-steps.ts and node-liveness.ts already read them:
// the library releases locks only per owner (force_unlock_workers), never one job whose
// completion was lost. test/jobs/graphile-internals.test.ts pins the version and the columns,
// so an upgrade fails loudly before it can change them under this module.

/**
 * The job locks held under this node's lock owners (with their age), and queue locks held
 * without any job lock of theirs older than `queueOlderThanMs`. The caller keeps those of
 * jobs it still runs (HeldJobs); the rest are left over — a completion that could not be
 * written, a pool that died — and would keep a run's queue shut until the node stops.
 */
export async function ownLocks(
  em: EntityManager,
  owners: string[],
  queueOlderThanMs: number,
): Promise<{ jobs: { jobId: string; owner: string; ageMs: number }[]; queues: { queueId: number; owner: string }[] }> {
  if (owners.length === 0) return { jobs: [], queues: [] };
  const literal = `{${owners.join(',')}}`;
  const jobs = await em.execute<{ id: string; locked_by: string; age_ms: number }[]>(
    `select id::text as id, locked_by, (extract(epoch from now() - locked_at) * 1000)::float8 as age_ms
       from graphile_worker._private_jobs where locked_by = any(?::text[])`,
    [literal],
  );
  // A queue locked while none of its jobs is (the job is gone or was released alone).
  const queues = await em.execute<{ id: number; locked_by: string }[]>(
    `select q.id, q.locked_by from graphile_worker._private_job_queues q
      where q.locked_by = any(?::text[]) and q.locked_at < now() - ? * interval '1 millisecond'
        and not exists (select 1 from graphile_worker._private_jobs j where j.job_queue_id = q.id and j.locked_by = q.locked_by)`,
    [literal, queueOlderThanMs],
  );
  return {
    jobs: jobs.map((row) => ({ jobId: row.id, owner: row.locked_by, ageMs: row.age_ms })),
    queues: queues.map((row) => ({ queueId: row.id, owner: row.locked_by })),
  };
}

/**
 * Releases one job's lock and its queue's (only while still held by `owner`), as
 * graphile-worker's force_unlock_workers does for a whole owner; the job keeps its
 * attempts and run_at, so a worker takes it at once (the NOTIFY wakes them).
 */
export async function releaseJobLock(em: EntityManager, jobId: string, owner: string): Promise<boolean> {
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

export async function releaseQueueLock(em: EntityManager, queueId: number, owner: string): Promise<boolean> {
  const rows = await em.execute<{ id: number }[]>(
    `with queue as (
       update graphile_worker._private_job_queues set locked_by = null, locked_at = null
        where id = ? and locked_by = ? returning id)
     select queue.id, pg_notify('jobs:insert', json_build_object('r', random(), 'count', 1)::text) from queue`,
    [queueId, owner],
  );
  return rows.length > 0;
}
