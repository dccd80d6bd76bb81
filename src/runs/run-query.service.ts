import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import type { Caller } from '../auth/caller';
import { readableRunsWhere } from './run-visibility';
import { AgentRun } from './agent-run.entity';
import { notFound } from '../errors/app-error';
import { isUuid } from '../db/ids';
import { findSpecialist } from '../orgs/org.service';
import { createdWithin, paginate } from '../graphql/paging';
import { toRunType, type RunsArgs } from './run.types';

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

export async function listRuns(em: EntityManager, caller: Caller, args: RunsArgs) {
  const filter = args.filter ?? {};
  const orgId = caller.orgId;
  if (filter.specialistId) await findSpecialist(em, orgId, filter.specialistId);
  const where = {
    ...readableRunsWhere(em, caller),
    orgId,
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.specialistId ? { specialistId: filter.specialistId } : {}),
    ...createdWithin(filter.created),
  };
  return paginate(em, AgentRun, where as FilterQuery<AgentRun>, args, 'newest_first', toRunType);
}
