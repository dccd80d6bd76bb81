import os from 'node:os';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config';
import type { Logger } from '../logger';
import type { InFlightCalls } from './in-flight';
import type { Reconciler } from './reconciler';

/** Past an interrupted attempt's timeout, how long a vendor may still take to act on it. */
const LANDING_GRACE_MS = 2000;

export interface NodeLiveness {
  /** The id graphile-worker locks this node's jobs with (its worker pool's): recorded at once and with every heartbeat. */
  addLockOwner(lockOwner: string): void;
  /** One pass now: heartbeat, reap dead nodes, reconcile abandoned calls (tests call it directly). */
  sweep(): Promise<SweepResult>;
  /** Stops the heartbeat and records how this node ended; `clean` false hands its work to the others. */
  stop(clean: boolean): Promise<void>;
}

export interface SweepResult {
  /** Dead nodes this pass reaped (their job locks released). */
  reaped: string[];
  /** Calls this pass took over and settled. */
  reconciled: number;
}

interface Deps {
  orm: MikroORM;
  nodeId: string;
  settings: Config['node'];
  /** Default name: host:port (two processes cannot serve one port on one host). */
  defaultName: string;
  /** The vendor timeout: a non-idempotent call is looked up only once its interrupted attempt cannot land any more. */
  vendorTimeoutMs: number;
  inFlight: InFlightCalls;
  reconciler: Reconciler;
  logger: Logger;
  /** This node was declared dead by another while it still ran: it must stop at once. */
  onFenced(): void;
}

/**
 * Registers this node and keeps it alive: every NODE_HEARTBEAT_MS it heartbeats, reaps
 * nodes whose heartbeat is older than NODE_DEAD_AFTER_MS (or that stopped with work left)
 * — releasing their graphile-worker locks so their run steps continue here — and settles
 * the tool calls they left `running`, plus any of its own whose outcome could not be
 * written. Its previous incarnation (same name) is dead from the moment it starts.
 */
export async function startNodeLiveness(deps: Deps): Promise<NodeLiveness> {
  const { orm, nodeId, settings, logger } = deps;
  const log = logger.child({ component: 'liveness', nodeId });
  const name = settings.name ?? deps.defaultName;
  await orm.em.fork().transactional(async (tx) => {
    await tx.execute(
      `update toolgate_nodes set stopped_at = now(), clean_stop = false
        where name = ? and stopped_at is null and reaped_at is null`,
      [name],
    );
    await tx.execute(
      `insert into toolgate_nodes (id, name, hostname, pid, worker_ids, started_at, heartbeat_at) values (?, ?, ?, ?, '{}', now(), now())`,
      [nodeId, name, os.hostname(), process.pid],
    );
  });
  log.info({ name }, 'node registered');
  const lockOwners: string[] = [];
  const ownersLiteral = () => `{${lockOwners.join(',')}}`;

  let timer: NodeJS.Timeout | null = null;
  let running: Promise<SweepResult> | null = null;
  let stopped = false;

  const heartbeat = async (): Promise<void> => {
    const [row] = await orm.em
      .fork()
      .execute<{ reaped_at: Date | null }[]>('update toolgate_nodes set heartbeat_at = now(), worker_ids = ? where id = ? returning reaped_at', [
        ownersLiteral(),
        nodeId,
      ]);
    if (row?.reaped_at) {
      log.fatal('this node was declared dead by another node (heartbeats missed); its work was taken over; stopping');
      stopped = true;
      deps.onFenced();
    }
  };

  const reap = (): Promise<string[]> =>
    orm.em.fork().transactional(async (tx) => {
      const dead = await tx.execute<{ id: string; name: string; worker_ids: string[]; clean_stop: boolean | null }[]>(
        `update toolgate_nodes n set reaped_at = now(), reaped_by = ?
           from (select id from toolgate_nodes
                  where reaped_at is null and id <> ?
                    and (stopped_at is not null or heartbeat_at < now() - ? * interval '1 millisecond')
                  for update skip locked) dead
          where n.id = dead.id
          returning n.id, n.name, n.worker_ids, n.clean_stop`,
        [nodeId, nodeId, settings.deadAfterMs],
      );
      // Rows of nodes long gone are kept a week for operators, then dropped.
      await tx.execute(`delete from toolgate_nodes where reaped_at < now() - interval '7 days'`);
      // Their jobs (run steps) become available again, to the workers of live nodes; so do
      // locks older than a heartbeat's worth that no live node claims (a node that died
      // before it could record its lock owner). Only owners still holding a lock are named:
      // a cleanly stopped node holds none, and its restart logs no warning.
      const [{ owners }] = await tx.execute<{ owners: string[] }[]>(
        `select array(
           select distinct locked_by from (
             select locked_by, locked_at from graphile_worker._private_jobs where locked_by is not null
             union all
             select locked_by, locked_at from graphile_worker._private_job_queues where locked_by is not null
           ) held
           where locked_by = any(?::text[])
              or (locked_at < now() - ? * interval '1 millisecond'
                  and locked_by <> all (select unnest(worker_ids) from toolgate_nodes
                                         where reaped_at is null and stopped_at is null
                                           and heartbeat_at >= now() - ? * interval '1 millisecond'))
         ) as owners`,
        [`{${dead.flatMap((node) => node.worker_ids).join(',')}}`, settings.deadAfterMs, settings.deadAfterMs],
      );
      if (owners.length > 0) {
        await tx.execute('select graphile_worker.force_unlock_workers(?::text[])', [`{${owners.join(',')}}`]);
        log.warn({ lockOwners: owners }, 'job locks of dead nodes released');
      }
      for (const node of dead) {
        if (node.clean_stop) log.debug({ deadNodeId: node.id, name: node.name }, 'stopped node reaped');
        else
          log.warn(
            { deadNodeId: node.id, name: node.name, lockOwners: node.worker_ids },
            'dead node reaped: its job locks are released and its calls reconciled',
          );
      }
      return dead.map((node) => node.id);
    });

  /** Running calls nobody is executing: of dead or stopped nodes, of unknown nodes, or abandoned here. */
  const abandoned = async (): Promise<{ id: string; node_id: string | null }[]> => {
    // A non-idempotent call is asked about only once its interrupted attempt can no longer
    // reach the vendor (its timeout has passed since it started), or "not performed" could
    // be followed by the request landing after all.
    const candidates = await orm.em.fork().execute<{ id: string; node_id: string | null }[]>(
      `select c.id, c.node_id from tool_calls c
         left join toolgate_nodes n on n.id = c.node_id
         left join tool_definitions d on d.tool_name = c.tool_name and d.action = c.action
        where c.status = 'running'
          and (c.node_id = ?
               or n.reaped_at is not null or n.stopped_at is not null
               or n.heartbeat_at < now() - ? * interval '1 millisecond'
               or (n.id is null and c.updated_at < now() - ? * interval '1 millisecond'))
          and (d.idempotent or c.updated_at < now() - (coalesce(d.timeout_ms, ?) + ?) * interval '1 millisecond')
        order by c.updated_at limit 100`,
      [nodeId, settings.deadAfterMs, settings.deadAfterMs, deps.vendorTimeoutMs, LANDING_GRACE_MS],
    );
    // Checked after the read: a call joins the set before its `running` row commits.
    return candidates.filter((c) => c.node_id !== nodeId || !deps.inFlight.has(c.id));
  };

  const sweep = (): Promise<SweepResult> =>
    (running ??= (async () => {
      try {
        await heartbeat();
        if (stopped) return { reaped: [], reconciled: 0 };
        const reaped = await reap();
        let reconciled = 0;
        for (const call of await abandoned()) {
          const reason = call.node_id === nodeId ? 'outcome_not_written' : 'node_dead';
          try {
            if (await deps.reconciler.reconcile(call.id, call.node_id, reason)) reconciled += 1;
          } catch (error) {
            log.warn({ err: error, toolCallId: call.id }, 'reconciling an interrupted call failed; retried at the next sweep');
          }
        }
        return { reaped, reconciled };
      } finally {
        running = null;
      }
    })());

  const loop = () => {
    timer = setTimeout(() => {
      sweep()
        .catch((error: unknown) => log.warn({ err: error }, 'liveness sweep failed (database unreachable?); retrying'))
        .finally(() => {
          if (!stopped) loop();
        });
    }, settings.heartbeatMs);
    timer.unref();
  };
  // The first pass at once: a restart recovers its previous incarnation's work without waiting.
  await sweep().catch((error: unknown) => log.warn({ err: error }, 'first liveness sweep failed'));
  loop();

  return {
    addLockOwner: (lockOwner) => {
      lockOwners.push(lockOwner);
      orm.em
        .fork()
        .execute('update toolgate_nodes set worker_ids = ? where id = ?', [ownersLiteral(), nodeId])
        .catch((error: unknown) => log.warn({ err: error }, 'could not record the job lock owner yet; the next heartbeat will'));
    },
    sweep,
    stop: async (clean) => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => undefined);
      await orm.em
        .fork()
        .execute('update toolgate_nodes set stopped_at = now(), clean_stop = ?, heartbeat_at = now() where id = ?', [clean, nodeId])
        .catch((error: unknown) => log.warn({ err: error }, 'could not record the node stop; it will be found dead by its heartbeat'));
    },
  };
}
