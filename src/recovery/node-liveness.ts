import os from 'node:os';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config';
import type { Logger } from '../support/logger';
import type { InFlightCalls } from './in-flight';
import type { Reconciler } from './reconciler';
import type { HeldJobs } from '../jobs/held-jobs';
import { forceUnlockWorkers, jobLocksOf } from '../jobs/job-locks';
import { releaseJobLock } from '../jobs/graphile-private';
import { describeUnavailable, isDatabaseUnavailable } from '../db/unavailable';

/** Past an interrupted attempt's timeout, how long a vendor may still take to act on it. */
const LANDING_GRACE_MS = 2000;
/**
 * A lock of this node's own is stale when its job's run here ended this long ago (the
 * completion was lost: an outage), or, for a job no run here knows, once this old (a pool
 * that died, a lock taken as the process started).
 */
const ENDED_LOCK_STALE_MS = 10_000;
const UNKNOWN_LOCK_STALE_MS = 30_000;

export interface NodeLiveness {
  /** The id graphile-worker locks this node's jobs with (its worker pool's): recorded at once and with every heartbeat. */
  addLockOwner(lockOwner: string): void;
  /** A lock owner this node no longer uses (its pool ended): its remaining locks are released at the next pass. */
  retireLockOwner(lockOwner: string): void;
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
  /** Job locks (each with its queue's) of this node's own released this pass: stale ones, and one per retired owner. */
  ownLocksReleased: number;
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
  /** The jobs this process runs or is still completing: any other lock of its own is stale. */
  heldJobs?: HeldJobs;
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
  /** Owners this node no longer uses, whose locks are still to be released. */
  const retired = new Set<string>();

  let timer: NodeJS.Timeout | null = null;
  let running: Promise<SweepResult> | null = null;
  let stopped = false;
  /**
   * Since when this node has reached the database without a break. Other nodes' heartbeats
   * prove their death only once it has been connected for twice NODE_DEAD_AFTER_MS: after
   * an outage every heartbeat is old, those of live nodes cut off with it too, and they
   * need a moment (a heartbeat, their pools' reconnection) to write a new one. (0: no
   * outage seen since the start, when a restart must recover its peers at once.)
   */
  let connectedSince: number | null = 0;
  const heartbeatsTell = () => connectedSince !== null && Date.now() - connectedSince >= 2 * settings.deadAfterMs;

  const heartbeat = async (): Promise<void> => {
    const [row] = await orm.em
      .fork()
      .execute<{ reaped_at: Date | null }[]>('update toolgate_nodes set heartbeat_at = now(), worker_ids = ? where id = ? returning reaped_at', [
        ownersLiteral(),
        nodeId,
      ]);
    connectedSince ??= Date.now();
    if (row?.reaped_at) {
      log.fatal('this node was declared dead by another node (heartbeats missed); its work was taken over; stopping');
      stopped = true;
      deps.onFenced();
    }
  };

  const reap = (trustHeartbeats: boolean): Promise<string[]> =>
    orm.em.fork().transactional(async (tx) => {
      const dead = await tx.execute<{ id: string; name: string; worker_ids: string[]; clean_stop: boolean | null }[]>(
        `update toolgate_nodes n set reaped_at = now(), reaped_by = ?
           from (select id from toolgate_nodes
                  where reaped_at is null and id <> ?
                    and (stopped_at is not null or (? and heartbeat_at < now() - ? * interval '1 millisecond'))
                  for update skip locked) dead
          where n.id = dead.id
          returning n.id, n.name, n.worker_ids, n.clean_stop`,
        [nodeId, nodeId, trustHeartbeats, settings.deadAfterMs],
      );
      // Rows of nodes long gone are kept a week for operators, then dropped.
      await tx.execute(`delete from toolgate_nodes where reaped_at < now() - interval '7 days'`);
      // Their jobs (run steps) become available again, to the workers of live nodes; so do
      // locks older than a heartbeat's worth that no live node claims (a node that died
      // before it could record its lock owner). Read in graphile-worker's public `jobs`
      // view — inside this short transaction, against its docs' advice for long ones, so a
      // failed unlock leaves the nodes unreaped for the next sweep to retry; only owners
      // still holding a lock are named: a cleanly stopped node holds none, and its restart
      // logs no warning.
      const deadOwners = dead.flatMap((node) => node.worker_ids);
      const [{ owners }] = await tx.execute<{ owners: string[] }[]>(
        `select array(
           select distinct locked_by from graphile_worker.jobs
            where locked_by = any(?::text[])
               or (locked_at < now() - ? * interval '1 millisecond'
                   and locked_by <> all (select unnest(worker_ids) from toolgate_nodes
                                          where reaped_at is null and stopped_at is null
                                            and (not ? or heartbeat_at >= now() - ? * interval '1 millisecond')))
         ) as owners`,
        [`{${deadOwners.join(',')}}`, settings.deadAfterMs, trustHeartbeats, settings.deadAfterMs],
      );
      // Every owner of a dead node too, holding a job lock or not (a no-op for a clean stop).
      await forceUnlockWorkers(tx, [...new Set([...owners, ...deadOwners])]);
      if (owners.length > 0) log.warn({ lockOwners: owners }, 'job locks of dead nodes released');
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

  /**
   * Locks of this node's own that nothing here holds: every lock of a retired owner (once
   * none of its jobs runs here), and a current owner's lock on a job that is not running
   * here (see ENDED_LOCK_STALE_MS, UNKNOWN_LOCK_STALE_MS).
   */
  const releaseOwnLocks = async (): Promise<number> => {
    const held = deps.heldJobs;
    if (!held) return 0;
    let released = 0;
    const idle = [...retired].filter((owner) => !held.busy(owner));
    if (idle.length > 0) {
      await forceUnlockWorkers(orm.em.fork(), idle);
      for (const owner of idle) retired.delete(owner);
      log.warn({ lockOwners: idle }, "job locks of this node's ended worker pool released");
      released += idle.length;
    }
    const em = orm.em.fork();
    for (const { jobId, owner, ageMs } of await jobLocksOf(em, lockOwners)) {
      const here = held.about(jobId);
      const stale = here === null ? ageMs >= UNKNOWN_LOCK_STALE_MS : !here.running && here.endedMsAgo >= ENDED_LOCK_STALE_MS;
      if (!stale || !(await releaseJobLock(em, jobId, owner))) continue;
      released += 1;
      log.warn({ jobId, lockOwner: owner }, 'stale job lock of this node released (no step here runs it)');
    }
    return released;
  };

  /** Running calls nobody is executing: of dead or stopped nodes, of unknown nodes, or abandoned here. */
  const abandoned = async (trustHeartbeats: boolean): Promise<{ id: string; node_id: string | null }[]> => {
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
               or (? and n.heartbeat_at < now() - ? * interval '1 millisecond')
               or (n.id is null and c.updated_at < now() - ? * interval '1 millisecond'))
          and (d.idempotent or c.updated_at < now() - (coalesce(d.timeout_ms, ?) + ?) * interval '1 millisecond')
        order by c.updated_at limit 100`,
      [nodeId, trustHeartbeats, settings.deadAfterMs, settings.deadAfterMs, deps.vendorTimeoutMs, LANDING_GRACE_MS],
    );
    // Checked after the read: a call joins the set before its `running` row commits.
    return candidates.filter((c) => c.node_id !== nodeId || !deps.inFlight.has(c.id));
  };

  const sweep = (): Promise<SweepResult> =>
    (running ??= (async () => {
      try {
        await heartbeat();
        if (stopped) return { reaped: [], reconciled: 0, ownLocksReleased: 0 };
        const trustHeartbeats = heartbeatsTell();
        const reaped = await reap(trustHeartbeats);
        const ownLocksReleased = await releaseOwnLocks();
        let reconciled = 0;
        for (const call of await abandoned(trustHeartbeats)) {
          const reason = call.node_id === nodeId ? 'outcome_not_written' : 'node_dead';
          try {
            if (await deps.reconciler.reconcile(call.id, call.node_id, reason)) reconciled += 1;
          } catch (error) {
            log.warn({ err: error, toolCallId: call.id }, 'reconciling an interrupted call failed; retried at the next sweep');
          }
        }
        return { reaped, reconciled, ownLocksReleased };
      } catch (error) {
        if (isDatabaseUnavailable(error)) connectedSince = null;
        throw error;
      } finally {
        running = null;
      }
    })());

  // While the database is unreachable: one warning, a retry every heartbeat (no longer: a
  // node back later than its peers by NODE_DEAD_AFTER_MS would be reaped), one line when it answers again.
  let outageSince: number | null = null;
  const loop = () => {
    timer = setTimeout(() => {
      sweep()
        .then(
          () => {
            if (outageSince !== null) log.warn({ afterMs: Date.now() - outageSince }, 'database reachable again: node liveness resumed');
            outageSince = null;
          },
          (error: unknown) => {
            if (outageSince !== null) return;
            outageSince = Date.now();
            if (isDatabaseUnavailable(error))
              log.warn({ cause: describeUnavailable(error) }, 'liveness sweep failed: database unreachable; retrying every heartbeat');
            else log.warn({ err: error }, 'liveness sweep failed; retrying');
          },
        )
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
    retireLockOwner: (lockOwner) => {
      const index = lockOwners.indexOf(lockOwner);
      if (index >= 0) lockOwners.splice(index, 1);
      retired.add(lockOwner);
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
