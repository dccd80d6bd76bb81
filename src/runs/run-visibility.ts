import type { EntityManager } from '@mikro-orm/postgresql';
import { RUN_SCOPE } from '../auth/access';
import type { Caller } from '../auth/caller';
import { AppError } from '../errors/app-error';

/**
 * Which runs of its org a caller reads (RUN_SCOPE in src/auth/access.ts), as SQL: null when
 * it reads every run of the org, else a predicate over `agent_runs` aliased `alias`, with its
 * parameters. Toolgate's own runtime (no key) acts for one run and reads it.
 */
export function readableRunsSql(caller: Caller, alias: string): { sql: string; params: unknown[] } | null {
  if (caller.keyId === null) return null;
  const scope = RUN_SCOPE[caller.role];
  if (scope === 'org') return null;
  const owned = `${alias}.owner_key_id = ?`;
  if (scope === 'owned') return { sql: owned, params: [caller.keyId] };
  // Uncorrelated, so PostgreSQL hashes the org's client-approval runs once (a hashed SubPlan) instead of probing per run.
  return {
    sql: `(${owned} or ${alias}.id in (select a.run_id from approval_requests a where a.org_id = ? and a.kind = 'client'))`,
    params: [caller.keyId, caller.orgId],
  };
}

/** The same, as an ORM filter on the runs a caller reads (`{}`: every run of its org). */
export function readableRunsWhere(em: EntityManager, caller: Caller): Record<string, unknown> {
  if (caller.keyId === null || RUN_SCOPE[caller.role] === 'org') return {};
  if (RUN_SCOPE[caller.role] === 'owned') return { ownerKeyId: caller.keyId };
  return { id: { $in: readableRunIds(em, caller) } };
}

/** Only the run's owner drives it; the runtime (no key) drives internal runs. */
export function assertRunOwner(run: { ownerKeyId: string | null }, caller: Caller): void {
  if (caller.keyId === null || run.ownerKeyId === caller.keyId) return;
  throw new AppError('RUN_NOT_YOURS', 'Another API key owns this run; only its owner drives it (an admin can hand it over)');
}

/** The ids of the runs a caller reads, as a subquery for `runId: { $in: … }` (null: every run of its org). */
export function readableRunIds(em: EntityManager, caller: Caller) {
  const predicate = readableRunsSql(caller, 'r');
  if (!predicate) return null;
  // MikroORM's documented knex access (SqlEntityManager.getKnex): the ORM's `$in` takes a knex query as a subquery.
  return em
    .getKnex()
    .select('r.id')
    .from('agent_runs as r')
    .where('r.org_id', caller.orgId)
    .andWhereRaw(predicate.sql, predicate.params as never[]);
}

/**
 * For a subscription's filter: whether an event's run is one the caller reads, asked once
 * per run (a run found readable stays so; for clients, a run may gain a client approval, so
 * a refusal is asked again). Null when the caller reads every run of its org.
 */
export function readableRunCheck(em: EntityManager, caller: Caller): ((runId: string) => boolean | Promise<boolean>) | null {
  const predicate = readableRunsSql(caller, 'r');
  if (!predicate) return null;
  const known = new Map<string, boolean>();
  const remembersRefusals = RUN_SCOPE[caller.role] === 'owned';
  return (runId) => {
    const answer = known.get(runId);
    if (answer !== undefined) return answer;
    return em
      .getConnection()
      .execute<unknown[]>(`select 1 from agent_runs r where r.id = ? and r.org_id = ? and ${predicate.sql}`, [
        runId,
        caller.orgId,
        ...predicate.params,
      ])
      .then((rows) => {
        const readable = rows.length > 0;
        if (readable || remembersRefusals) {
          if (known.size >= 10_000) known.clear();
          known.set(runId, readable);
        }
        return readable;
      });
  };
}
