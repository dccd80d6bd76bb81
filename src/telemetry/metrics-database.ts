import type { MikroORM } from '@mikro-orm/postgresql';
import { Gauge } from 'prom-client';
import type { Logger } from '../support/logger';
import { describeUnavailable, isDatabaseUnavailable } from '../db/unavailable';
import type { ToolgateMetrics } from './metrics';
import { EXPIRE_APPROVALS_TASK } from '../jobs/worker';
import { RUN_AGENT_TASK } from '../runs/run-jobs';
import { APPROVAL_KINDS } from '../approvals/approval-request.entity';

/** Shown at 0 when none are queued, so a dashboard has a line and `absent()` is no concern (approval kinds alike). */
const JOB_TASKS = [RUN_AGENT_TASK, EXPIRE_APPROVALS_TASK];
const JOB_STATES = ['ready', 'scheduled', 'running', 'failed'];

interface ApprovalRow {
  kind: string;
  pending: string;
  oldest_seconds: number | null;
}

interface JobRow {
  task: string;
  state: string;
  jobs: string;
  oldest_seconds: number | null;
}

/**
 * Gauges read from PostgreSQL at scrape time (two short statements per scrape, never on
 * a request's path): pending approvals, and graphile-worker's job queue — the same numbers
 * on every node, since they are the cluster's. A failed read leaves the gauges empty for
 * that scrape and logs a warning; the scrape itself still answers.
 */
export function addDatabaseMetrics(metrics: ToolgateMetrics, orm: MikroORM, logger: Logger): void {
  const registers = [metrics.registry];
  const approvals = shared(() =>
    orm.em.fork().execute<ApprovalRow[]>(
      `select kind, count(*) as pending, extract(epoch from now() - min(created_at))::float8 as oldest_seconds
         from approval_requests where status = 'pending' group by kind`,
    ),
  );
  const jobs = shared(async () => {
    const [schema] = await orm.em.fork().execute<{ present: boolean }[]>("select to_regclass('graphile_worker.jobs') is not null as present");
    if (!schema?.present) return [];
    // ready: waiting for a worker now; scheduled: run_at in the future (a retry's backoff, the cron);
    // running: locked by a worker; failed: out of attempts, never retried again.
    return orm.em.fork().execute<JobRow[]>(
      `select task_identifier as task, state, count(*) as jobs,
              extract(epoch from now() - min(run_at))::float8 as oldest_seconds
         from (select task_identifier, run_at,
                      case when attempts >= max_attempts then 'failed'
                           when locked_at is not null then 'running'
                           when run_at > now() then 'scheduled'
                           else 'ready' end as state
                 from graphile_worker.jobs) jobs
        group by task_identifier, state`,
    );
  });
  const read = async <T>(what: string, query: () => Promise<T[]>): Promise<T[]> => {
    try {
      return await query();
    } catch (error) {
      if (isDatabaseUnavailable(error)) logger.warn({ metric: what, cause: describeUnavailable(error) }, 'metrics: could not read the database');
      else logger.warn({ err: error, metric: what }, 'metrics: could not read the database');
      return [];
    }
  };

  new Gauge({
    name: 'toolgate_approvals_pending',
    help: 'Approval requests waiting for a person, by kind (expert, client)',
    labelNames: ['kind'] as const,
    registers,
    async collect() {
      this.reset();
      for (const kind of APPROVAL_KINDS) this.set({ kind }, 0);
      for (const row of await read('approvals', approvals)) this.set({ kind: row.kind }, Number(row.pending));
    },
  });
  new Gauge({
    name: 'toolgate_approvals_oldest_pending_age_seconds',
    help: 'Age of the oldest pending approval request, by kind',
    labelNames: ['kind'] as const,
    registers,
    async collect() {
      this.reset();
      for (const kind of APPROVAL_KINDS) this.set({ kind }, 0);
      for (const row of await read('approvals', approvals)) this.set({ kind: row.kind }, Math.max(0, row.oldest_seconds ?? 0));
    },
  });
  new Gauge({
    name: 'toolgate_job_queue_depth',
    help: 'Jobs in the graphile-worker queue by task and state (ready, scheduled, running, failed)',
    labelNames: ['task', 'state'] as const,
    registers,
    async collect() {
      this.reset();
      for (const task of JOB_TASKS) for (const state of JOB_STATES) this.set({ task, state }, 0);
      for (const row of await read('jobs', jobs)) this.set({ task: row.task, state: row.state }, Number(row.jobs));
    },
  });
  new Gauge({
    name: 'toolgate_job_queue_oldest_ready_age_seconds',
    help: 'How long the oldest job ready to run has waited for a worker (since its run_at), by task',
    labelNames: ['task'] as const,
    registers,
    async collect() {
      this.reset();
      for (const task of JOB_TASKS) this.set({ task }, 0);
      for (const row of await read('jobs', jobs)) if (row.state === 'ready') this.set({ task: row.task }, Math.max(0, row.oldest_seconds ?? 0));
    },
  });
}

/** One read for the gauges of one scrape (prom-client collects them concurrently). */
function shared<T>(query: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | null = null;
  return () => {
    inFlight ??= query().finally(() => {
      inFlight = null;
    });
    return inFlight;
  };
}
