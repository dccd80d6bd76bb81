import type { EntityManager } from '@mikro-orm/postgresql';
import type { Caller } from '../auth/caller';
import { PolicyDecision } from './policy-decision.entity';
import { findRun } from '../runs/run-query.service';
import { paginate } from '../graphql/paging';
import { toPolicyDecisionType, type PolicyDecisionsArgs } from './policy-decision.types';

export async function listPolicyDecisions(em: EntityManager, caller: Caller, args: PolicyDecisionsArgs) {
  const filter = args.filter ?? {};
  const orgId = caller.orgId;
  if (filter.runId) await findRun(em, caller, filter.runId);
  const where = {
    orgId,
    ...(filter.runId ? { runId: filter.runId } : {}),
    ...(filter.outcome ? { outcome: filter.outcome } : {}),
  };
  return paginate(em, PolicyDecision, where, args, 'newest_first', toPolicyDecisionType);
}
