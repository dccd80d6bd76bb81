import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../support/app';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { seedDemo, type SeedResult } from '../../src/seed/demo-seed';
import { enqueueRunStep } from '../../src/runs/run-jobs';
import type { ExecutionOutcome } from '../../src/executor/executor.types';
import { RunClient, isInvoiceCreate, types, until } from './run-helpers';

/**
 * Run steps started by the node whose request committed them (src/runtime/local-steps.ts),
 * on a real database with real graphile-worker workers. `main` is a node with a worker and
 * LOCAL_STEP_CONCURRENCY=1; a dying node claims steps with its own lock owner and no worker,
 * so once it is declared dead only live nodes' workers can take its jobs.
 */
const ENV = { ANTHROPIC_MODEL: 'claude-offline-1', ANTHROPIC_MAX_RETRIES: '0' };
const ORDER_QUESTION = "What's the status of my order #12345?";
const INVOICE_REQUEST = 'Please send an invoice for $120.50 to customer 1';

let db: TestDatabase;
let main: TestApp;
let seed: SeedResult;
let runs: RunClient;
const dying: TestApp[] = [];

/** Per run: steps started (any way) and steps started by LocalSteps (claimed by the committing request), on `main`. */
const stepsOf = new Map<string, number>();
const localOf = new Map<string, number>();
/** Held steps: run id → release. A step of a run in `holds` waits (already claimed or picked up) until released. */
const holds = new Map<string, Promise<void>>();
/** The next run's first step is held on this (see holdNextRun). */
let nextRun: Promise<void> | null = null;
/** The run's job rows as the step saw them when it started. */
const jobsAtStart = new Map<string, { locked_by: string | null; attempts: number; queue_locked_by: string | null }[]>();

const count = (map: Map<string, number>, runId: string) => map.set(runId, (map.get(runId) ?? 0) + 1);

function instrument(app: TestApp, onStep?: (runId: string) => Promise<void>): void {
  const runtime = app.services.runtime;
  const step = runtime.step.bind(runtime);
  runtime.step = async (runId, known) => {
    if (!stepsOf.has(runId) && nextRun) {
      holds.set(runId, nextRun);
      nextRun = null;
    }
    count(stepsOf, runId);
    jobsAtStart.set(runId, await jobRows(runId));
    await onStep?.(runId);
    await holds.get(runId);
    return step(runId, known);
  };
  const local = app.services.localSteps;
  const run = local.run.bind(local);
  local.run = (claimed) => {
    count(localOf, claimed.runId);
    run(claimed);
  };
}

async function jobRows(runId: string) {
  return main.em().execute<{ locked_by: string | null; attempts: number; queue_locked_by: string | null }[]>(
    `select j.locked_by, j.attempts, q.locked_by as queue_locked_by
         from graphile_worker._private_jobs j join graphile_worker._private_job_queues q on q.id = j.job_queue_id
        where q.queue_name = ? order by j.id`,
    [`run:${runId}`],
  );
}

async function lockOwnerOf(app: TestApp): Promise<string> {
  let owners: string[] = [];
  await until(async () => {
    [{ worker_ids: owners }] = await app
      .em()
      .execute<{ worker_ids: string[] }[]>('select worker_ids from toolgate_nodes where id = ?', [app.services.nodeId]);
    return owners.length > 0;
  }, "the node's lock owner recorded");
  return owners[0];
}

/** Holds the first step of the next run started until the returned function is called. */
function holdNextRun(): (runId: string) => void {
  let release!: () => void;
  nextRun = new Promise<void>((resolve) => {
    release = resolve;
  });
  return (runId) => {
    holds.delete(runId);
    release();
  };
}

/**
 * A node that claims steps with its own lock owner (no worker) and is then declared dead as
 * after a kill -9: its heartbeat long past, no stop recorded. `step` is what its steps do.
 */
async function dyingNode(options: { step?: 'hang'; executor?: 'hang' } = {}): Promise<{ app: TestApp; owner: string; kill: () => Promise<void> }> {
  const app = await startTestApp(
    { ...ENV, SHUTDOWN_TIMEOUT_MS: '300' },
    {
      sandboxes: true,
      offlineModel: true,
      liveness: true,
      database: db,
      ...(options.executor === 'hang' ? { executor: { execute: () => new Promise<ExecutionOutcome>(() => undefined) } } : {}),
    },
  );
  dying.push(app);
  const owner = `dying-${randomUUID()}`;
  app.liveness!.addLockOwner(owner);
  app.services.localSteps.attach(owner);
  if (options.step === 'hang') {
    app.services.runtime.step = () => new Promise<void>(() => undefined);
  }
  await lockOwnerOf(app);
  const kill = async () => {
    await app
      .em()
      .execute(`update toolgate_nodes set heartbeat_at = now() - interval '1 day', stopped_at = null, clean_stop = null where id = ?`, [
        app.services.nodeId,
      ]);
  };
  return { app, owner, kill };
}

beforeAll(async () => {
  db = await createTestDatabase();
  main = await startTestApp(
    { ...ENV, LOCAL_STEP_CONCURRENCY: '1' },
    { sandboxes: true, offlineModel: true, worker: true, liveness: true, database: db },
  );
  seed = await seedDemo(main.em(), main.masterKey);
  runs = new RunClient(main, seed);
  instrument(main);
});
afterAll(async () => {
  for (const app of dying) await app.close().catch(() => undefined);
  await main?.close();
  await db?.drop();
});

describe('the committing node starts the step itself', () => {
  test('startAgentRun: the first step runs here with the job locked by this node, then the job is completed; no worker takes it', async () => {
    const owner = await lockOwnerOf(main);
    const modelBefore = main.model!.requests.length;
    const { id } = await runs.start(ORDER_QUESTION);
    const run = await runs.waitFor(id);
    await runs.jobsDone(id);
    expect(run.status).toBe('completed');
    expect(run.reply).toContain('TRACK-001');
    // One step, started by LocalSteps: locked as graphile-worker's get_job would (job and queue, one attempt).
    expect(stepsOf.get(id)).toBe(1);
    expect(localOf.get(id)).toBe(1);
    expect(jobsAtStart.get(id)).toEqual([{ locked_by: owner, attempts: 1, queue_locked_by: owner }]);
    expect(types(run)).toEqual(expect.arrayContaining(['run.created', 'run.started', 'run.completed']));
    expect(types(run).filter((t) => t === 'run.started')).toHaveLength(1);
    expect(main.model!.requests.length - modelBefore).toBe(2);
    const [queue] = await main
      .em()
      .execute<{ locked_by: string | null }[]>('select locked_by from graphile_worker._private_job_queues where queue_name = ?', [`run:${id}`]);
    expect(queue.locked_by).toBeNull();
  });

  test('resolveApproval: the resumed step runs here; one invoice is sent and the run completes', async () => {
    const { id } = await runs.start(INVOICE_REQUEST);
    const waiting = await runs.waitFor(id, ['waiting_approval']);
    await runs.jobsDone(id);
    expect(localOf.get(id)).toBe(1);
    const approvalId = waiting.toolCalls[0].approvalRequest!.id;
    const sent = runs.vendorRequests('nango', isInvoiceCreate);
    const resolved = await runs.resolve(approvalId, 'APPROVE');
    expect(resolved.body.data?.resolveApproval.status).toBe('approved');
    const done = await runs.waitFor(id);
    await runs.jobsDone(id);
    expect(done.status).toBe('completed');
    expect(stepsOf.get(id)).toBe(2);
    expect(localOf.get(id)).toBe(2);
    expect(jobsAtStart.get(id)).toEqual([expect.objectContaining({ attempts: 1, locked_by: await lockOwnerOf(main) })]);
    expect(runs.vendorRequests('nango', isInvoiceCreate) - sent).toBe(1);
    expect(done.toolCalls.map((c) => c.status)).toEqual(['succeeded']);
    expect(types(done).filter((t) => t === 'run.resumed')).toHaveLength(1);
  });

  test('at its bound the step goes to the worker; a second job of a running step waits for it, never beside it', async () => {
    // The first run's step is held here: the node's one local slot is taken.
    const releaseFirst = holdNextRun();
    const first = await runs.start(ORDER_QUESTION);
    await until(() => stepsOf.get(first.id) === 1, 'the first step started');
    // The second run is not claimed: the worker picks its job up.
    const second = await runs.start(ORDER_QUESTION);
    expect((await runs.waitFor(second.id)).status).toBe('completed');
    expect(localOf.get(second.id)).toBeUndefined();
    expect(stepsOf.get(second.id)).toBe(1);

    // Another step of the held run (as the reconciler enqueues one): its queue stays locked by the running step.
    await main.em().transactional((tx) => enqueueRunStep(tx, first.id));
    // A barrier: a later job (a step of the finished second run, a no-op) done by the worker, which passed the first run's.
    await main.em().transactional((tx) => enqueueRunStep(tx, second.id));
    await runs.jobsDone(second.id);
    expect(stepsOf.get(first.id)).toBe(1);
    const rows = await jobRows(first.id);
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.queue_locked_by !== null)).toBe(true);

    releaseFirst(first.id);
    expect((await runs.waitFor(first.id)).status).toBe('completed');
    await runs.jobsDone(first.id);
    // The queued job ran after the held one: two steps, one of them local, never both at once.
    expect(stepsOf.get(first.id)).toBe(2);
    expect(localOf.get(first.id)).toBe(1);
  });
});

describe('shutdown', () => {
  test('waits for a step this node started: the run completes, its job is completed, the node stops cleanly', async () => {
    const node = await startTestApp(ENV, { offlineModel: true, worker: true, liveness: true, database: db });
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const runtime = node.services.runtime;
    const step = runtime.step.bind(runtime);
    let entered = false;
    runtime.step = async (runId, known) => {
      entered = true;
      await held;
      return step(runId, known);
    };
    const { id } = await new RunClient(node, seed).start('Hello');
    await until(() => entered, 'the step started on the node');
    expect((await jobRows(id))[0]).toMatchObject({ locked_by: await lockOwnerOf(node), attempts: 1 });

    const closing = node.close();
    release();
    await closing;
    // The step ran to its end inside the shutdown (the ORM closes after it): completed, job done, a clean stop.
    const run = await runs.get(id);
    expect(run.status).toBe('completed');
    expect(run.reply).toContain('Hello!');
    expect(await jobRows(id)).toEqual([]);
    const [row] = await main.em().execute<{ clean_stop: boolean }[]>('select clean_stop from toolgate_nodes where id = ?', [node.services.nodeId]);
    expect(row.clean_stop).toBe(true);
  });
});

describe('a node that dies with a step it claimed', () => {
  test('before the step ran: a live node releases its locks and runs the step; the run completes once', async () => {
    const node = await dyingNode({ step: 'hang' });
    const runsThere = new RunClient(node.app, seed);
    const { id } = await runsThere.start(ORDER_QUESTION);
    // Claimed there (locked with its owner), never run: the node "died" right after the commit.
    await until(async () => (await jobRows(id))[0]?.locked_by === node.owner, 'the job locked by the dying node');
    expect((await jobRows(id))[0]).toEqual({ locked_by: node.owner, attempts: 1, queue_locked_by: node.owner });
    expect(stepsOf.get(id)).toBeUndefined();

    await node.kill();
    const { reaped } = await main.liveness!.sweep();
    expect(reaped).toContain(node.app.services.nodeId);
    const run = await runs.waitFor(id, ['completed', 'failed', 'cancelled'], 20_000);
    await runs.jobsDone(id);
    expect(run.status).toBe('completed');
    expect(stepsOf.get(id)).toBe(1); // on main, by its worker
    expect(localOf.get(id)).toBeUndefined();
    expect(types(run).filter((t) => t === 'run.started')).toHaveLength(1);
    expect(types(run).filter((t) => t === 'run.completed')).toHaveLength(1);
    expect(node.app.model!.requests).toHaveLength(0);
  });

  test('while the step ran (a tool call in flight): the call is reconciled and the step continues on a live node, nothing twice', async () => {
    const node = await dyingNode({ executor: 'hang' });
    const runsThere = new RunClient(node.app, seed);
    const { id } = await runsThere.start(ORDER_QUESTION);
    // The step ran there: the model's first turn stored, its order lookup stuck at the vendor.
    await until(
      async () => (await runs.count('tool_calls', "run_id = ? and status = 'running'", [id])) === 1,
      'the tool call in flight on the dying node',
    );
    expect((await jobRows(id))[0]).toMatchObject({ locked_by: node.owner, queue_locked_by: node.owner });
    expect(node.app.model!.requests).toHaveLength(1);

    await node.kill();
    const { reaped, reconciled } = await main.liveness!.sweep();
    expect(reaped).toContain(node.app.services.nodeId);
    expect(reconciled).toBe(1);
    const run = await runs.waitFor(id, ['completed', 'failed', 'cancelled'], 20_000);
    await runs.jobsDone(id);
    expect(run.status).toBe('completed');
    expect(run.reply).toContain('TRACK-001');
    // One tool call for the one tool_use, one assistant message per turn, one start and one end.
    expect(run.toolCalls).toHaveLength(1);
    expect(run.toolCalls[0].status).toBe('succeeded');
    expect(run.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(types(run).filter((t) => t === 'run.started')).toHaveLength(1);
    expect(types(run).filter((t) => t === 'run.completed')).toHaveLength(1);
    expect(localOf.get(id)).toBeUndefined();
    expect(stepsOf.get(id)).toBeGreaterThanOrEqual(1);
  });
});
