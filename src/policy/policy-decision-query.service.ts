import type { EntityManager } from '@mikro-orm/postgresql';
import { PolicyDecision } from './policy-decision.entity';
import { findRun } from '../runs/run-query.service';
import { paginate } from '../graphql/pagination';
import { toPolicyDecisionType, type PolicyDecisionsArgs } from './policy-decision.types';

export async function listPolicyDecisions(em: EntityManager, orgId: string, args: PolicyDecisionsArgs) {
  const filter = args.filter ?? {};
  if (filter.runId) await findRun(em, orgId, filter.runId);
  const where = {
    orgId,
    ...(filter.runId ? { runId: filter.runId } : {}),
    ...(filter.outcome ? { outcome: filter.outcome } : {}),
  };
  return paginate(em, PolicyDecision, where, args, 'newest_first', toPolicyDecisionType);
}
