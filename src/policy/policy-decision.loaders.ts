import type DataLoader from 'dataloader';
import { PolicyDecision } from './policy-decision.entity';
import { uniqueLoader, type OrgRows } from '../graphql/loaders';

declare module '../graphql/context' {
  interface RequestLoaders {
    policyDecisionById: DataLoader<string, PolicyDecision | null>;
  }
}

export const policyDecisionLoaders = (rows: OrgRows) => ({
  policyDecisionById: uniqueLoader(rows(PolicyDecision, 'select * from policy_decisions where org_id = ? and id = any(?::uuid[])'), (row) => row.id),
});
