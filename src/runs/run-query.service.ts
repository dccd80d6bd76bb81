import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import type { Caller } from '../auth/caller';
import { readableRunsSql, readableRunsWhere } from './run-visibility';
import { AgentRun } from './agent-run.entity';
import { notFound } from '../errors/app-error';
import { isUuid } from '../db/ids';
import { findSpecialist } from '../orgs/org.service';
import { createdWithinSql, paginateSql } from '../graphql/paging';
import { queryColumns } from '../db/plain-rows';
import type { SqlRunner } from '../db/raw-transaction';
import { toRunType, type RunFields, type RunsArgs } from './run.types';

/**
 * A run the caller reads (RUN_SCOPE): another org's run, or one of its org the key does not
 * read, is NOT_FOUND, exactly like a missing one.
 */
export async function findRun(em: EntityManager, caller: Caller, runId: string): Promise<AgentRun> {
  const run = isUuid(runId)
    ? await em.findOne(AgentRun, { $and: [{ id: runId, orgId: caller.orgId }, readableRunsWhere(em, caller)] } as FilterQuery<AgentRun>)
    : null;
  if (!run) throw notFound('Run');
  return run;
}

/**
 * A run of the caller's org, whoever owns it, for a path that then checks the owner
 * (assertRunOwner: RUN_NOT_YOURS, as the gateway answers); NOT_FOUND for another org's.
 */
export async function findRunToDrive(em: EntityManager, caller: Caller, runId: string): Promise<AgentRun> {
  const run = isUuid(runId) ? await em.findOne(AgentRun, { id: runId, orgId: caller.orgId }) : null;
  if (!run) throw notFound('Run');
  return run;
}

// Every column of RunFields and no other (the Record makes the compiler check both ways).
const PAGE_READ: Record<keyof RunFields, true> = {
  id: true,
  specialistId: true,
  status: true,
  metadata: true,
  pendingApprovalCount: true,
  inputTokens: true,
  outputTokens: true,
  cacheCreationInputTokens: true,
  cacheReadInputTokens: true,
  llmCostMicros: true,
  toolCostCents: true,
  correlationId: true,
  driver: true,
  ownerKeyId: true,
  errorCode: true,
  errorMessage: true,
  createdAt: true,
  updatedAt: true,
  completedAt: true,
};
const PAGE_COLUMNS = Object.keys(PAGE_READ) as (keyof RunFields)[];

/**
 * A page of the runs the caller reads, newest first: hand-written SQL (paginateSql), since
 * every console and API read of runs starts here and the query builder cost as much CPU as
 * the rest of the page (docs/benchmarks.md, "Reads, rows (item 3)").
 */
export async function listRuns(em: EntityManager, sql: SqlRunner, caller: Caller, args: RunsArgs) {
  const filter = args.filter ?? {};
  if (filter.specialistId) await findSpecialist(em, caller.orgId, filter.specialistId);
  const where = ['r.org_id = ?'];
  const params: unknown[] = [caller.orgId];
  const readable = readableRunsSql(caller, 'r');
  const and = (condition: string, ...values: unknown[]) => {
    where.push(condition);
    params.push(...values);
  };
  if (readable) and(readable.sql, ...readable.params);
  if (filter.status) and('r.status = ?', filter.status);
  if (filter.specialistId) and('r.specialist_id = ?', filter.specialistId);
  const created = createdWithinSql(filter.created, 'r.created_at');
  where.push(...created.sql);
  params.push(...created.params);
  return paginateSql(
    sql,
    { table: 'agent_runs', alias: 'r', where: where.join(' and '), params },
    args,
    (text, values) => queryColumns(em, sql, AgentRun, PAGE_COLUMNS, text, values),
    toRunType,
  );
}
