import type { EntityManager } from '@mikro-orm/postgresql';
import { ApprovalRequest } from './approval-request.entity';
import { findRun } from '../runs/run-query.service';
import { paginate } from '../graphql/pagination';
import { toApprovalRequestType, type ApprovalRequestsArgs } from './approval.types';

export async function listApprovalRequests(em: EntityManager, orgId: string, args: ApprovalRequestsArgs) {
  const filter = args.filter ?? {};
  if (filter.runId) await findRun(em, orgId, filter.runId);
  const where = {
    orgId,
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.kind ? { kind: filter.kind } : {}),
    ...(filter.runId ? { runId: filter.runId } : {}),
  };
  return paginate(em, ApprovalRequest, where, args, 'newest_first', toApprovalRequestType);
}
