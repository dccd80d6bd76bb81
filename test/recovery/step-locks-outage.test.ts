import { startTestApp, type TestApp } from '../support/app';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { TcpProxy } from '../support/tcp-proxy';
import { seedDemo, type SeedResult } from '../../src/seed/demo-seed';
import { withClient } from '../../src/db/throwaway-postgres';
import { RunClient, pause, until } from '../runs/run-helpers';

/**
 * Nothing stays locked by a live node after a database outage (the nodes reach a real
 * PostgreSQL through a TCP proxy the test cuts): a run step started here whose job could
 * not be completed while the database was gone is settled by this node once it is back;
 * node liveness releases its own locks that nothing here runs any more (a lost completion,
 * a worker pool that ended); and after an outage no node declares a live peer dead because
 * its heartbeat is old — the outage made every heartbeat old.
 */
const ENV = { ANTHROPIC_MODEL: 'claude-offline-1', ANTHROPIC_MAX_RETRIES: '0' };
const proxy = new TcpProxy();
let db: TestDatabase;
let proxied: TestDatabase;
let main: TestApp;
let seed: SeedResult;
let runs: RunClient;
const others: TestApp[] = [];

/** Straight to the database, past the proxy (the test's own reads while the nodes are cut off). */
const direct = <T>(sql: string, params: unknown[] = []): Promise<T[]> =>
  withClient(db.url, async (client) => (await client.query(sql, params)).rows as T[]);

let gate: Promise<void> | null = null;

beforeAll(async () => {
  db = await createTestDatabase();
  proxied = await proxy.proxy(db);
  main = await startTestApp(
    { ...ENV, LOCAL_STEP_CONCURRENCY: '1' },
    { sandboxes: true, offlineModel: true, worker: true, liveness: true, database: proxied },
  );
  seed = await seedDemo(main.em(), main.masterKey);
  runs = new RunClient(main, seed);
  // The next step waits on `gate` (once) before it runs.
  const runtime = main.services.runtime;
  const step = runtime.step.bind(runtime);
  runtime.step = async (runId, known) => {
    const held = gate;
    gate = null;
    await held;
    return step(runId, known);
  };
});
afterEach(() => proxy.resume());
afterAll(async () => {
  proxy.resume();
  for (const app of others) await app.close().catch(() => undefined);
  await main?.close();
  await proxy.stop();
  await db?.drop();
});

const queueLock = async (runId: string) =>
  (await direct<{ locked_by: string | null }>('select locked_by from graphile_worker._private_job_queues where queue_name = $1', [`run:${runId}`]))[0]
    ?.locked_by ?? null;

test('a step started here fails while the database is gone: once it is back this node settles its job and the run ends', async () => {
  let open!: () => void;
  gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const run = await runs.start("What's the status of my order #12345?");
  // Claimed here: the run's queue is locked by this node's worker lock owner while the step waits.
  await until(async () => (await queueLock(run.id)) !== null, 'the step claimed here');

  proxy.pause('reset');
  open();
  // Longer than the 5 settle attempts (≈ 5 s) this node used to make before leaving the lock until it stopped.
  await pause(6000);
  proxy.resume();

  await until(async () => (await queueLock(run.id)) === null, "the run's queue released", 8000);
  expect((await runs.waitFor(run.id, ['completed'], 20_000)).status).toBe('completed');
}, 40_000);

test("node liveness releases this node's own locks that nothing here runs: a stale one, and every lock of an ended pool", async () => {
  const owner = (await direct<{ worker_ids: string[] }>('select worker_ids from toolgate_nodes where id = $1', [main.services.nodeId]))[0]
    .worker_ids[0];
  expect(owner).toMatch(/^pool-/);
  const lockJob = async (queue: string, by: string, agoMs: number) => {
    const [{ id }] = await direct<{ id: string }>(
      `select (graphile_worker.add_job('expire_approvals', '{}'::json, queue_name := $1, run_at := now() + interval '1 hour')).id::text as id`,
      [queue],
    );
    await direct(
      `with job as (update graphile_worker._private_jobs set locked_by = $2, locked_at = now() - $3 * interval '1 millisecond' where id = $1 returning job_queue_id)
       update graphile_worker._private_job_queues q set locked_by = $2, locked_at = now() - $3 * interval '1 millisecond' from job where q.id = job.job_queue_id`,
      [id, by, agoMs],
    );
    return id;
  };
  const lockOf = async (id: string) =>
    (await direct<{ locked_by: string | null }>('select locked_by from graphile_worker._private_jobs where id = $1', [id]))[0]?.locked_by ?? null;

  const stale = await lockJob('stale-lock', owner, 60_000); // a completion lost a minute ago
  const fresh = await lockJob('fresh-lock', owner, 1000); // maybe a job this node's worker just took
  const running = await lockJob('running-lock', owner, 60_000);
  main.services.heldJobs.hold(running, owner); // a long step still running here
  const ended = await lockJob('ended-pool', 'pool-ended', 1000);
  main.liveness!.retireLockOwner('pool-ended');

  const sweep = await main.liveness!.sweep();
  expect(sweep.ownLocksReleased).toBe(2);
  expect({ stale: await lockOf(stale), fresh: await lockOf(fresh), running: await lockOf(running), ended: await lockOf(ended) }).toEqual({
    stale: null,
    fresh: owner,
    running: owner,
    ended: null,
  });
  const queues = await direct<{ queue_name: string; locked_by: string | null }>(
    `select queue_name, locked_by from graphile_worker._private_job_queues where queue_name in ('stale-lock', 'ended-pool') order by queue_name`,
  );
  expect(queues).toEqual([
    { queue_name: 'ended-pool', locked_by: null },
    { queue_name: 'stale-lock', locked_by: null },
  ]);
  main.services.heldJobs.end(running, true);
  await direct('delete from graphile_worker._private_jobs where id = any($1::bigint[])', [[stale, fresh, running, ended]]);
});

test('an outage longer than NODE_DEAD_AFTER_MS: afterwards neither of two live nodes declares the other dead', async () => {
  const node = () =>
    startTestApp({ ...ENV, NODE_HEARTBEAT_MS: '200', NODE_DEAD_AFTER_MS: '800' }, { liveness: true, database: proxied }).then((app) => {
      others.push(app);
      return app;
    });
  const [a, b] = [await node(), await node()];
  proxy.pause('reset');
  // Both see the outage (a sweep already holding a pooled connection as the proxy cut may
  // still finish: the next one fails), and every heartbeat grows older than NODE_DEAD_AFTER_MS.
  const seesOutage = async (app: TestApp) => {
    for (let attempt = 0; attempt < 20; attempt++) {
      if (
        await app.liveness!.sweep().then(
          () => false,
          () => true,
        )
      )
        return true;
      await pause(50);
    }
    return false;
  };
  expect([await seesOutage(a), await seesOutage(b)]).toEqual([true, true]);
  await pause(1500);
  proxy.resume();
  // A few heartbeats of both, well within the time that proves a silent node dead.
  for (const app of [a, b, a, b]) await app.liveness!.sweep();
  await pause(600);
  const reaped = await direct<{ id: string }>('select id from toolgate_nodes where id = any($1::uuid[]) and reaped_at is not null', [
    [a.services.nodeId, b.services.nodeId],
  ]);
  expect({ reaped, fenced: [...a.fenced, ...b.fenced] }).toEqual({ reaped: [], fenced: [] });
});
