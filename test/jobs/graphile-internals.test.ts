import { Pool, type PoolClient } from 'pg';
import { Logger as WorkerLogger, run, type Runner } from 'graphile-worker';
import { version } from 'graphile-worker/package.json';
import { createTestDatabase, type TestDatabase } from '../support/database';
import type { SqlRunner } from '../../src/db/raw-transaction';
import { claimJob, completeClaimedJob, failClaimedJob, releaseJobLock } from '../../src/jobs/graphile-private';
import { forceUnlockWorkers, jobLocksOf } from '../../src/jobs/job-locks';

/**
 * The upgrade test of src/jobs/graphile-private.ts, the one module that writes
 * graphile-worker's private tables (a step claimed by the node whose transaction enqueued
 * it, completed or failed there; one stale job lock released). It was written against the
 * version pinned here: an upgrade must fail this test before it can change, under the
 * adapter, the columns it writes or what the worker makes of the rows it leaves. The
 * round trip below runs on a real database with a real graphile-worker runner.
 */
const PINNED = '0.17.3';
const PRIVATE_COLUMNS: Record<string, string[]> = {
  _private_jobs: ['id', 'job_queue_id', 'locked_by', 'locked_at', 'attempts', 'is_available', 'run_at', 'last_error'],
  _private_job_queues: ['id', 'locked_by', 'locked_at'],
  // Public (stable by graphile-worker's word), read by job-locks.ts and node liveness.
  jobs: ['id', 'locked_by', 'locked_at'],
};
const OWNER = 'pool-adapter-test';
const OTHER = 'pool-someone-else';
const TASK = 'adapter_probe';

let db: TestDatabase;
let pool: Pool;
let sql: SqlRunner;

/** The adapter's `?` placeholders on a pg client (what the ORM's execute does). */
function runnerOn(client: Pool | PoolClient): SqlRunner {
  return {
    execute: async (text: string, params: unknown[] = []) => {
      let n = 0;
      return (
        await client.query(
          text.replace(/\?/g, () => `$${++n}`),
          params,
        )
      ).rows;
    },
  } as unknown as SqlRunner;
}

async function inTransaction<T>(work: (tx: SqlRunner) => Promise<T>, commit = true): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const result = await work(runnerOn(client));
    await client.query(commit ? 'commit' : 'rollback');
    return result;
  } finally {
    client.release();
  }
}

async function addJob(queue: string): Promise<string> {
  const { rows } = await pool.query<{ id: string }>(
    `select (graphile_worker.add_job($1, json_build_object('queue', $2::text), queue_name := $2)).id::text as id`,
    [TASK, queue],
  );
  return rows[0].id;
}

/** The job's row and its queue's lock, as graphile-worker's own code reads them. */
async function state(jobId: string) {
  const { rows } = await pool.query<{
    locked_by: string | null;
    attempts: number;
    last_error: string | null;
    later: boolean;
    queue_locked_by: string | null;
  }>(
    `select j.locked_by, j.attempts, j.last_error, j.run_at > now() as later, q.locked_by as queue_locked_by
       from graphile_worker._private_jobs j join graphile_worker._private_job_queues q on q.id = j.job_queue_id
      where j.id = $1`,
    [jobId],
  );
  return rows[0] ?? null;
}

async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  db = await createTestDatabase();
  pool = new Pool({ connectionString: db.url, max: 4 });
  // pool.end() resolves before its sockets close: the drop at cleanup (with force) may still
  // terminate one, whose error the pool emits with nobody listening (an unhandled error then).
  pool.on('error', () => undefined);
  sql = runnerOn(pool);
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

test('graphile-worker is the version the adapter to its private tables was written against', () => {
  expect(version).toBe(PINNED);
});

test('the private columns the adapter writes, and the public view columns read beside it, exist', async () => {
  const { rows } = await pool.query<{ table_name: string; column_name: string }>(
    "select table_name, column_name from information_schema.columns where table_schema = 'graphile_worker' and table_name = any($1)",
    [Object.keys(PRIVATE_COLUMNS)],
  );
  for (const [table, columns] of Object.entries(PRIVATE_COLUMNS)) {
    const present = new Set(rows.filter((r) => r.table_name === table).map((r) => r.column_name));
    expect({ table, missing: columns.filter((c) => !present.has(c)) }).toEqual({ table, missing: [] });
  }
});

test("claim, complete, fail and release leave graphile-worker's rows as its worker would: a worker started afterwards runs each job once", async () => {
  // Claimed in the enqueuing transaction: job and queue locked by the owner, one attempt.
  const completed = await addJob('q-complete');
  const behind = await addJob('q-complete'); // the same run's next step, queued behind it
  expect(await inTransaction((tx) => claimJob(tx, completed, OWNER))).toBe(true);
  expect(await state(completed)).toEqual({ locked_by: OWNER, attempts: 1, last_error: null, later: false, queue_locked_by: OWNER });
  // Both or neither: a held queue refuses its other job, a held job a second claim.
  expect(await inTransaction((tx) => claimJob(tx, behind, OWNER))).toBe(false);
  expect(await inTransaction((tx) => claimJob(tx, completed, OTHER))).toBe(false);
  expect(await state(behind)).toMatchObject({ locked_by: null, attempts: 0, queue_locked_by: OWNER });
  // A claim whose transaction rolls back leaves nothing locked.
  const rolledBack = await addJob('q-rolled-back');
  expect(await inTransaction((tx) => claimJob(tx, rolledBack, OWNER), false)).toBe(true);
  expect(await state(rolledBack)).toMatchObject({ locked_by: null, attempts: 0, queue_locked_by: null });

  const failed = await addJob('q-fail');
  const released = await addJob('q-release');
  const wrongOwner = await addJob('q-wrong-owner');
  const forced = await addJob('q-forced');
  for (const id of [failed, released, wrongOwner]) expect(await inTransaction((tx) => claimJob(tx, id, OWNER))).toBe(true);
  expect(await inTransaction((tx) => claimJob(tx, forced, OTHER))).toBe(true);
  // The public view shows the claimed jobs' locks (what node liveness reads).
  expect((await jobLocksOf(sql, [OWNER])).map((lock) => lock.jobId).sort()).toEqual([completed, failed, released, wrongOwner].sort());

  const ran: string[] = [];
  // The worker's own pool, with the same error listener as ours (graphile would end its pool at
  // stop; a socket still closing then meets the forced drop with nobody listening).
  const workerPool = new Pool({ connectionString: db.url, max: 4 });
  workerPool.on('error', () => undefined);
  const runner: Runner = await run({
    pgPool: workerPool,
    concurrency: 2,
    noHandleSignals: true,
    pollInterval: 100,
    logger: new WorkerLogger(() => () => undefined),
    taskList: {
      [TASK]: async (_payload, helpers) => {
        ran.push(helpers.job.id);
      },
    },
  });
  try {
    // The rolled-back claim's job is free: the worker takes it; the claimed ones and the one behind stay.
    await eventually(() => ran.includes(rolledBack), 'the worker runs the unclaimed job');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ran).toEqual([rolledBack]);

    // Completed by its owner: deleted, the queue released, the job behind it woken and run.
    await completeClaimedJob(sql, completed, OWNER);
    expect(await state(completed)).toBeNull();
    await eventually(() => ran.includes(behind), 'the job behind the completed one runs');

    // Completion by another owner (the lock was handed away) changes nothing.
    await completeClaimedJob(sql, wrongOwner, OTHER);
    expect(await state(wrongOwner)).toMatchObject({ locked_by: OWNER, queue_locked_by: OWNER });

    // Failed by its owner: unlocked with the worker's backoff and the error, attempts as counted at the claim.
    await failClaimedJob(sql, failed, OWNER, 'step failed here');
    expect(await state(failed)).toEqual({ locked_by: null, attempts: 1, last_error: 'step failed here', later: true, queue_locked_by: null });
    // Unlocked, the public admin functions apply to it again: due now, a worker retries it.
    await pool.query('select graphile_worker.reschedule_jobs(array[$1::bigint], run_at := now())', [failed]);
    await eventually(() => ran.includes(failed), 'the failed job retried by the worker');

    // One job's lock released, only by its holder: attempts kept, the worker takes it.
    expect(await releaseJobLock(sql, released, OTHER)).toBe(false);
    expect(await releaseJobLock(sql, released, OWNER)).toBe(true);
    await eventually(() => ran.includes(released), 'the released job runs');
    expect(await releaseJobLock(sql, wrongOwner, OWNER)).toBe(true);
    await eventually(() => ran.includes(wrongOwner), 'the other released job runs');

    // A claimed job is released with its queue by the public force_unlock_workers too (dead nodes).
    await forceUnlockWorkers(sql, [OTHER]);
    await eventually(() => ran.includes(forced), 'the force-unlocked job runs');

    await new Promise((resolve) => setTimeout(resolve, 300));
    expect([...ran].sort()).toEqual([rolledBack, behind, failed, released, wrongOwner, forced].sort());
    const { rows } = await pool.query<{ n: number }>(
      'select (select count(*) from graphile_worker._private_jobs)::int + (select count(*) from graphile_worker._private_job_queues where locked_by is not null)::int as n',
    );
    expect(rows[0].n).toBe(0);
  } finally {
    await runner.stop();
    await runner.promise.catch(() => undefined);
    await workerPool.end();
  }
}, 30_000);
