import { EventEmitter } from 'node:events';
import { Logger as WorkerLogger, run, runMigrations, type TaskList, type WorkerEvents } from 'graphile-worker';
import { Pool } from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../logger';
import { expireDueApprovals } from '../approvals/approval.service';
import type { AgentRuntime } from '../runs/agent-runtime';
import { RUN_AGENT_TASK } from '../runs/run-jobs';
import type { WebhookDeliverer } from '../webhooks/webhook-deliverer';
import { WEBHOOK_DELIVER_TASK } from '../webhooks/webhook-jobs';
import type { ToolgateMetrics } from '../telemetry/metrics';
import { traceRunStep } from '../telemetry/trace-runs';

export const EXPIRE_APPROVALS_TASK = 'expire_approvals';

/**
 * Durable jobs on PostgreSQL (graphile-worker): picked up on any node through
 * LISTEN/NOTIFY, each job run once. Run steps of the agent runtime (one queue per run);
 * webhook attempts (one queue per endpoint); scheduled: approval expiry, every minute.
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

export async function startWorker(options: {
  connectionString: string;
  orm: MikroORM;
  runtime: AgentRuntime;
  /** Sends webhook deliveries (without it this node leaves them to others). */
  webhooks?: WebhookDeliverer;
  logger: Logger;
  /** Jobs (run steps) this node runs at once. */
  concurrency?: number;
  metrics?: ToolgateMetrics;
  /**
   * Told the id graphile-worker locks this node's jobs with (its worker pool's), as soon as
   * the pool exists: node liveness records it, so that when the node dies a live node
   * releases exactly its locks and its run steps continue elsewhere at once.
   */
  onLockOwner?: (lockOwner: string) => void;
}): Promise<Worker> {
  const concurrency = options.concurrency ?? 2;
  const log = options.logger.child({ component: 'worker' });
  // Our own pool, so shutdown can wait for every worker connection (its LISTEN client
  // included) before the database goes away, and a dropped connection is logged, not fatal.
  const pgPool = new Pool({ connectionString: options.connectionString, max: concurrency + 2 });
  const lost = (error: Error) => log.warn({ err: error }, 'worker database connection lost');
  pgPool.on('error', lost);
  pgPool.on('connect', (client) => client.on('error', lost));
  const events: WorkerEvents = new EventEmitter();
  // graphile-worker locks jobs and queues with the pool's id (not a worker's): report it.
  events.on('pool:create', ({ workerPool }) => options.onLockOwner?.(workerPool.id));
  const runner = await run({
    pgPool,
    concurrency,
    noHandleSignals: true,
    pollInterval: 2000,
    taskList: jobTasks(options.orm, log, options.runtime, options.webhooks, options.metrics),
    crontab: `* * * * * ${EXPIRE_APPROVALS_TASK}`,
    events,
    logger: new WorkerLogger((scope) => (level, message, meta) => {
      const method = level === 'error' ? 'error' : level === 'warning' ? 'warn' : 'debug';
      log[method]({ scope: scope.label, ...(meta ?? {}) }, message);
    }),
  }).catch(async (error: unknown) => {
    await pgPool.end();
    throw error;
  });
  return {
    stop: async () => {
      await runner.stop();
      // stop() resolves before the pool's last jobs and the LISTEN client are released.
      await runner.promise.catch(() => undefined);
      await pgPool.end();
    },
  };
}
