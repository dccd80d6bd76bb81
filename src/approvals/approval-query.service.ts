import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import type { Caller } from '../auth/caller';
import { ApprovalRequest } from './approval-request.entity';
import { findRun } from '../runs/run-query.service';
import { readableRunIds } from '../runs/run-visibility';
import { paginate } from '../graphql/pagination';
import { toApprovalRequestType, type ApprovalRequestsArgs } from './approval.types';

export async function listApprovalRequests(em: EntityManager, caller: Caller, args: ApprovalRequestsArgs) {
  const filter = args.filter ?? {};
  const orgId = caller.orgId;
  if (filter.runId) await findRun(em, caller, filter.runId);
  // A client reads client approvals and those of its own runs (RUN_SCOPE), never the rest.
  const runs = filter.runId ? null : readableRunIds(em, caller);
  const where = {
    orgId,
    ...(runs ? { runId: { $in: runs } } : {}),
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.kind ? { kind: filter.kind } : {}),
    ...(filter.runId ? { runId: filter.runId } : {}),
  };
  return paginate(em, ApprovalRequest, where as FilterQuery<ApprovalRequest>, args, 'newest_first', toApprovalRequestType);
}
