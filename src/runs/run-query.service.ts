import type { EntityManager } from '@mikro-orm/postgresql';
import { AgentRun } from './agent-run.entity';
import { notFound } from '../errors/app-error';
import { isUuid } from '../db/ids';
import { findSpecialist } from '../orgs/org.service';
import { createdWithin, paginate } from '../graphql/pagination';
import { toRunType, type RunsArgs } from './run.types';

/** A run of the caller's org; another org's run is NOT_FOUND, exactly like a missing one. */
export async function findRun(em: EntityManager, orgId: string, runId: string): Promise<AgentRun> {
  const run = isUuid(runId) ? await em.findOne(AgentRun, { id: runId, orgId }) : null;
  if (!run) throw notFound('Run');
  return run;
}

export async function listRuns(em: EntityManager, orgId: string, args: RunsArgs) {
  const filter = args.filter ?? {};
  if (filter.specialistId) await findSpecialist(em, orgId, filter.specialistId);
  const where = {
    orgId,
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.specialistId ? { specialistId: filter.specialistId } : {}),
    ...createdWithin(filter.created),
  };
  return paginate(em, AgentRun, where, args, 'newest_first', toRunType);
}
