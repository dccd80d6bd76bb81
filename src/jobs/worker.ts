import { EventEmitter } from 'node:events';
import { Logger as WorkerLogger, run, runMigrations, type Runner, type TaskList, type WorkerEvents } from 'graphile-worker';
import { Pool } from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../support/logger';
import { expireDueApprovals } from '../approvals/approval.service';
import { escalateDueApprovals } from '../approvals/approval-escalation';
import type { AgentRuntime } from '../runtime/agent-runtime';
import { RUN_AGENT_TASK } from '../runs/run-jobs';
import type { WebhookDeliverer } from '../webhooks/webhook-deliverer';
import { WEBHOOK_DELIVER_TASK } from '../webhooks/webhook-jobs';
import type { ToolgateMetrics } from '../telemetry/metrics';
import { traceRunStep } from '../telemetry/trace-runs';
import { describeUnavailable, isDatabaseUnavailable } from '../db/unavailable';
import { HeldJobs } from './held-jobs';

export const EXPIRE_APPROVALS_TASK = 'expire_approvals';

/**
 * Durable jobs on PostgreSQL (graphile-worker): picked up on any node through
 * LISTEN/NOTIFY, each job run once. Run steps of the agent runtime (one queue per run);
 * webhook attempts (one queue per org, in a worker pool of their own); scheduled: approval
 * expiry and escalation, every minute.
 */
export function jobTasks(orm: MikroORM, logger: Logger, runtime?: AgentRuntime, webhooks?: WebhookDeliverer, metrics?: ToolgateMetrics): TaskList {
  return {
    ...(webhooks
      ? {
          [WEBHOOK_DELIVER_TASK]: async (payload: unknown) => {
            const deliveryId = (payload as { deliveryId?: unknown } | null)?.deliveryId;
            if (typeof deliveryId === 'string') await webhooks.deliver(deliveryId);
          },
        }
      : {}),
    ...(runtime
      ? {
          [RUN_AGENT_TASK]: async (payload: unknown) => {
            const job = (payload ?? {}) as { runId?: unknown; trace?: unknown; cause?: unknown };
            if (typeof job.runId === 'string') await traceRunStep(job, job.runId, () => runtime.step(job.runId as string));
          },
        }
      : {}),
    [EXPIRE_APPROVALS_TASK]: async () => {
      // Escalation ladders first (one step per pass, until none is due), then expiry.
      for (;;) {
        const escalated = await escalateDueApprovals(orm.em.fork());
        if (escalated.length > 0) logger.info({ count: escalated.length }, 'approval requests escalated');
        if (escalated.length === 0) break;
      }
      // Drain in batches so a backlog after downtime is cleared in one run.
      for (;;) {
        const expired = await expireDueApprovals(orm.em.fork());
        if (expired.length > 0) logger.info({ count: expired.length }, 'approval requests expired');
        for (const approval of expired) metrics?.approvalResolved(approval);
        if (expired.length < 100) return;
      }
    },
  };
}

export interface Worker {
  /** Stops taking jobs, waits for running ones, and closes the worker's connections. */
  stop(): Promise<void>;
}

/** graphile-worker's schema, installed before node liveness's first sweep reads its job tables (a fresh database has none). */
export async function installWorkerSchema(connectionString: string): Promise<void> {
  await runMigrations({ connectionString, logger: new WorkerLogger(() => () => undefined) });
}

/** Waits between restarts of a runner that ended on its own: doubled each time, reset once one stays up a minute. */
const RESTART_MIN_MS = 500;
const RESTART_MAX_MS = 5000;
const STEADY_MS = 60_000;
/** A dead pool's jobs still running here are waited for this long before its locks are handed back anyway. */
const RETIRE_WAIT_MS = 60_000;

export async function startWorker(options: {
  connectionString: string;
  orm: MikroORM;
  runtime: AgentRuntime;
  /** Sends webhook deliveries (without it this node leaves them to others). */
  webhooks?: WebhookDeliverer;
  logger: Logger;
  /** Jobs (run steps, approval expiry) this node runs at once. */
  concurrency?: number;
  /** Webhook attempts this node sends at once, in their own pool (WEBHOOK_CONCURRENCY). */
  webhookConcurrency?: number;
  metrics?: ToolgateMetrics;
  /** Where the jobs this node's pools run are noted (node liveness reads it). */
  heldJobs?: HeldJobs;
  /**
   * Told the id graphile-worker locks this node's jobs with (its worker pool's), as soon as
   * the pool exists: node liveness records it, so that when the node dies a live node
   * releases exactly its locks and its run steps continue elsewhere at once. A restarted
   * runner has a new pool, told here too.
   */
  onLockOwner?: (lockOwner: string) => void;
  /** The same for the webhook pool's id (its jobs are released with the node's, but local steps never lock with it). */
  onWebhookLockOwner?: (lockOwner: string) => void;
  /** A pool that ended on its own has no job running here any more: its locks (a completion it could not write) are free to release. */
  onLockOwnerRetired?: (lockOwner: string) => void;
}): Promise<Worker> {
  const concurrency = options.concurrency ?? 2;
  const webhookConcurrency = options.webhookConcurrency ?? 4;
  const log = options.logger.child({ component: 'worker' });
  const held = options.heldJobs ?? new HeldJobs();
  const { [WEBHOOK_DELIVER_TASK]: deliver, ...steps } = jobTasks(options.orm, log, options.runtime, options.webhooks, options.metrics);
  // Our own pool, so shutdown can wait for every worker connection (each runner's LISTEN
  // client included) before the database goes away, and a dropped connection is logged, not fatal.
  const pgPool = new Pool({ connectionString: options.connectionString, max: concurrency + 2 + (deliver ? webhookConcurrency + 2 : 0) });
  const lost = (error: Error) => log.warn({ err: error }, 'worker database connection lost');
  pgPool.on('error', lost);
  pgPool.on('connect', (client) => client.on('error', lost));
  const pools: SupervisedRunner[] = [];
  try {
    // Run steps and approval expiry never wait behind a tenant's slow webhook receivers:
    // webhook attempts (up to WEBHOOK_TIMEOUT_MS each) run in a pool of their own, which
    // takes only that task, one job per org queue at a time (src/webhooks/webhook-jobs.ts).
    pools.push(
      await superviseRunner({
        pgPool,
        log,
        held,
        concurrency,
        taskList: steps,
        crontab: `* * * * * ${EXPIRE_APPROVALS_TASK}`,
        onLockOwner: options.onLockOwner,
        onLockOwnerRetired: options.onLockOwnerRetired,
      }),
    );
    if (deliver) {
      pools.push(
        await superviseRunner({
          pgPool,
          log: log.child({ pool: 'webhooks' }),
          held,
          concurrency: webhookConcurrency,
          taskList: { [WEBHOOK_DELIVER_TASK]: deliver },
          onLockOwner: options.onWebhookLockOwner,
          onLockOwnerRetired: options.onLockOwnerRetired,
        }),
      );
    }
  } catch (error) {
    await Promise.all(pools.map((pool) => pool.stop()));
    await pgPool.end();
    throw error;
  }
  return {
    stop: async () => {
      await Promise.all(pools.map((pool) => pool.stop()));
      await pgPool.end();
    },
  };
}

interface SupervisedRunner {
  stop(): Promise<void>;
}

/** One graphile-worker runner on `pgPool`, restarted (with backoff) when it ends on its own. */
async function superviseRunner(options: {
  pgPool: Pool;
  log: Logger;
  held: HeldJobs;
  concurrency: number;
  taskList: TaskList;
  crontab?: string;
  onLockOwner?: (lockOwner: string) => void;
  onLockOwnerRetired?: (lockOwner: string) => void;
}): Promise<SupervisedRunner> {
  const { pgPool, log, held, concurrency } = options;
  const events: WorkerEvents = new EventEmitter();
  // graphile-worker locks jobs and queues with the pool's id (not a worker's): report it.
  let poolId: string | null = null;
  events.on('pool:create', ({ workerPool }) => {
    poolId = workerPool.id;
    options.onLockOwner?.(workerPool.id);
  });
  // graphile-worker 0.17.3 starts a job's completion (or failure) write and does not await
  // it: in an outage it rejects unhandled (logged by the rejection guard of `toolgate start`)
  // and the lock stays. Noted here, node liveness releases a lock that outlives its run.
  events.on('job:start', ({ worker, job }) => held.hold(job.id, worker.workerPool.id));
  events.on('job:complete', ({ job }) => held.end(job.id));
  const runOnce = () =>
    run({
      pgPool,
      concurrency,
      noHandleSignals: true,
      pollInterval: 2000,
      taskList: options.taskList,
      ...(options.crontab ? { crontab: options.crontab } : {}),
      events,
      logger: new WorkerLogger((scope) => (level, message, meta) => {
        // Its listener and cron retrying through an outage are not errors of ours: warn, as every other loop does.
        const outage = level === 'error' && isDatabaseUnavailable(meta?.error ?? meta?.fatalError);
        const method = level === 'error' && !outage ? 'error' : level === 'warning' || outage ? 'warn' : 'debug';
        log[method]({ scope: scope.label, ...(meta ?? {}) }, message);
      }),
    });
  let runner: Runner = await runOnce();

  let stopping = false;
  let wake: (() => void) | null = null;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        wake = null;
        resolve();
      }, ms);
      wake = () => {
        clearTimeout(timer);
        wake = null;
        resolve();
      };
    });
  // Retires a dead pool's lock owner once none of its jobs runs here (they end fast in an outage).
  const retire = async (owner: string) => {
    const until = Date.now() + RETIRE_WAIT_MS;
    while (held.busy(owner) && Date.now() < until && !stopping) await pause(250);
    if (!stopping) options.onLockOwnerRetired?.(owner);
  };
  const supervise = async () => {
    let delay = RESTART_MIN_MS;
    for (;;) {
      const startedAt = Date.now();
      const owner = poolId;
      const ended = await runner.promise.then(
        () => null,
        (error: unknown) => error,
      );
      if (stopping) return;
      log.warn(
        { cause: ended ? describeUnavailable(ended) : undefined, err: ended && !isDatabaseUnavailable(ended) ? ended : undefined, lockOwner: owner },
        'job worker stopped on its own; restarting it',
      );
      if (owner) void retire(owner);
      if (Date.now() - startedAt >= STEADY_MS) delay = RESTART_MIN_MS;
      for (;;) {
        await pause(delay);
        if (stopping) return;
        delay = Math.min(RESTART_MAX_MS, delay * 2);
        try {
          runner = await runOnce();
          if (stopping) {
            await runner.stop().catch(() => undefined);
            await runner.promise.catch(() => undefined);
            return;
          }
          log.warn({ lockOwner: poolId }, 'job worker restarted');
          break;
        } catch (error) {
          log.warn(
            { cause: describeUnavailable(error), err: isDatabaseUnavailable(error) ? undefined : error, retryInMs: delay },
            'job worker could not restart yet',
          );
        }
      }
    }
  };
  const supervising = supervise();
  return {
    stop: async () => {
      stopping = true;
      wake?.();
      const current = runner;
      await current.stop().catch(() => undefined);
      // stop() resolves before the pool's last jobs and the LISTEN client are released.
      await current.promise.catch(() => undefined);
      await supervising;
    },
  };
}
