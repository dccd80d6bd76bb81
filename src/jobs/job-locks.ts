import type { SqlRunner } from '../db/raw-transaction';

// Job locks through graphile-worker's public surface: the `jobs` view (locked_by is the
// worker pool's id, locked_at when) and force_unlock_workers. Writes it has no public
// function for live in graphile-private.ts. The view shows job locks, not queue locks: a
// queue is locked and released together with its job by every writer (graphile's worker,
// force_unlock_workers, graphile-private.ts), so a job lock names every owner that holds
// one; a queue lock left without its job (only if a locked job were deleted by hand) is
// cleared by graphile-worker's own reset of locks older than four hours.

/** The job locks held under `owners`, with their age (the view, by lock owner). */
export async function jobLocksOf(em: SqlRunner, owners: string[]): Promise<{ jobId: string; owner: string; ageMs: number }[]> {
  if (owners.length === 0) return [];
  const rows = await em.execute<{ id: string; locked_by: string; age_ms: number }[]>(
    `select id::text as id, locked_by, (extract(epoch from now() - locked_at) * 1000)::float8 as age_ms
       from graphile_worker.jobs where locked_by = any(?::text[])`,
    [`{${owners.join(',')}}`],
  );
  return rows.map((row) => ({ jobId: row.id, owner: row.locked_by, ageMs: row.age_ms }));
}

/** Releases every job and queue lock of these owners (graphile-worker's force_unlock_workers). */
export async function forceUnlockWorkers(em: SqlRunner, owners: string[]): Promise<void> {
  if (owners.length === 0) return;
  await em.execute('select graphile_worker.force_unlock_workers(?::text[])', [`{${owners.join(',')}}`]);
}
