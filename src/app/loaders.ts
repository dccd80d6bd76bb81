import type { EntityManager } from '@mikro-orm/postgresql';
import type { SqlRunner } from '../db/raw-transaction';
import type { RequestLoaders } from '../graphql/context';
import { orgRows } from '../graphql/loaders';
import { apiKeyLoaders } from '../auth/api-key.loaders';
import { approvalLoaders } from '../approvals/approval.loaders';
import { toolCallLoaders } from '../gateway/tool-call.loaders';
import { ledgerEventLoaders } from '../ledger/ledger-event.loaders';
import { specialistLoaders } from '../orgs/specialist.loaders';
import { policyDecisionLoaders } from '../policy/policy-decision.loaders';
import { runLoaders } from '../runs/run.loaders';
import { personLoaders } from '../identity/person.loaders';

/**
 * One request's batch loaders, scoped to the caller's org: every feature's (their
 * `*.loaders.ts`). A feature that declares a loader and is missing here fails to compile.
 */
export function createLoaders(em: EntityManager, sql: SqlRunner, orgId: string | null): RequestLoaders {
  const rows = orgRows(em, sql, orgId);
  return {
    ...toolCallLoaders(rows),
    ...ledgerEventLoaders(rows),
    ...policyDecisionLoaders(rows),
    ...approvalLoaders(rows),
    ...runLoaders(rows),
    ...specialistLoaders(rows),
    ...apiKeyLoaders(rows),
    ...personLoaders(rows),
  };
}
