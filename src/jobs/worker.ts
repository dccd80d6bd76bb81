import { randomUUID } from 'node:crypto';
import { Logger as WorkerLogger, run, type Runner, type RunnerOptions, type TaskList } from 'graphile-worker';
import { workerIdsFor } from '../recovery/node-liveness';
import { Pool } from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../logger';
import type { GatewayEvents } from '../gateway/gateway-events';
import { expireDueApprovals } from '../approvals/approval.service';
import type { AgentRuntime } from '../runs/agent-runtime';
import { RUN_AGENT_TASK } from '../runs/run-jobs';

export const EXPIRE_APPROVALS_TASK = 'expire_approvals';

/**
 * Durable jobs on PostgreSQL (graphile-worker): picked up on any node through
 * LISTEN/NOTIFY, each job run once. Run steps of the agent runtime (one queue per run);
 * scheduled: approval expiry, every minute.
 */
export function jobTasks(orm: MikroORM, events: GatewayEvents, logger: Logger, runtime?: AgentRuntime): TaskList {
  return {
    ...(runtime
      ? {
          [RUN_AGENT_TASK]: async (payload: unknown) => {
            const runId = (payload as { runId?: unknown } | null)?.runId;
            if (typeof runId === 'string') await runtime.step(runId);
          },
        }
      : {}),
    [EXPIRE_APPROVALS_TASK]: async () => {
      // Drain in batches so a backlog after downtime is cleared in one run.
      for (;;) {
        const expired = await expireDueApprovals(orm.em.fork());
        for (const approval of expired) events.emitApprovalResolved(approval);
        if (expired.length > 0) logger.info({ count: expired.length }, 'approval requests expired');
        if (expired.length < 100) return;
      }
    },
  };
}

export interface Worker {
  /** Stops taking jobs, waits for running ones, and closes the worker's connections. */
  stop(): Promise<void>;
}

export async function startWorker(options: {
  connectionString: string;
  orm: MikroORM;
  events: GatewayEvents;
  runtime: AgentRuntime;
  logger: Logger;
  /**
   * One job worker per id, each taking one job at a time. The ids are this node's
   * (src/recovery/node-liveness.ts): when the node dies, a live node releases exactly
   * their locks, so its run steps continue elsewhere at once instead of after hours.
   */
  workerIds?: string[];
}): Promise<Worker> {
  const workerIds = options.workerIds ?? workerIdsFor(randomUUID(), 2);
  const log = options.logger.child({ component: 'worker' });
  // Our own pool, so shutdown can wait for every worker connection (its LISTEN client
  // included) before the database goes away, and a dropped connection is logged, not fatal.
  const pgPool = new Pool({ connectionString: options.connectionString, max: workerIds.length * 2 + 2 });
  const lost = (error: Error) => log.warn({ err: error }, 'worker database connection lost');
  pgPool.on('error', lost);
  pgPool.on('connect', (client) => client.on('error', lost));
  const taskList = jobTasks(options.orm, options.events, log, options.runtime);
  const logger = new WorkerLogger((scope) => (level, message, meta) => {
    const method = level === 'error' ? 'error' : level === 'warning' ? 'warn' : 'debug';
    log[method]({ scope: scope.label, ...(meta ?? {}) }, message);
  });
  // graphile-worker names a worker only when it runs alone: one runner per worker id.
  const runners: Runner[] = [];
  try {
    for (const [index, workerId] of workerIds.entries()) {
      // `workerId` is honoured by run() with concurrency 1, though RunnerOptions does not declare it.
      const runnerOptions: RunnerOptions & { workerId: string } = {
        pgPool,
        workerId,
        concurrency: 1,
        noHandleSignals: true,
        pollInterval: 2000,
        taskList,
        ...(index === 0 ? { crontab: `* * * * * ${EXPIRE_APPROVALS_TASK}` } : {}),
        logger,
      };
      runners.push(await run(runnerOptions));
    }
  } catch (error) {
    await Promise.all(runners.map((r) => r.stop().catch(() => undefined)));
    await pgPool.end();
    throw error;
  }
  return {
    stop: async () => {
      await Promise.all(runners.map((r) => r.stop()));
      // stop() resolves before the pool's last jobs and the LISTEN client are released.
      await Promise.all(runners.map((r) => r.promise.catch(() => undefined)));
      await pgPool.end();
    },
  };
}
