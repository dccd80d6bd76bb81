import type DataLoader from 'dataloader';
import { ApprovalRequest } from './approval-request.entity';
import { ApprovalVote } from './approval-vote.entity';
import { HISTORY_EVENT_TYPES } from './approval-history';
import { LedgerEvent } from '../ledger/ledger-event.entity';
import { NESTED_LIST_CAP, firstOfEach, groupLoader, uniqueLoader, type OrgRows } from '../graphql/loaders';

declare module '../graphql/context' {
  interface RequestLoaders {
    approvalRequestByToolCall: DataLoader<string, ApprovalRequest | null>;
    /** The ledger events an approval's history is drawn from, per tool call (approval-history.ts). */
    approvalEventsByToolCall: DataLoader<string, LedgerEvent[]>;
    /** A quorum approval's votes, oldest first (at most quorum per bound params, so a handful). */
    approvalVotesByApproval: DataLoader<string, ApprovalVote[]>;
  }
}

export const approvalLoaders = (rows: OrgRows) => ({
  approvalRequestByToolCall: uniqueLoader(
    rows(ApprovalRequest, 'select * from approval_requests where org_id = ? and tool_call_id = any(?::uuid[])'),
    (row) => row.toolCallId,
  ),
  approvalVotesByApproval: groupLoader(
    rows(ApprovalVote, 'select * from approval_votes where org_id = ? and approval_id = any(?::uuid[]) order by created_at, id'),
    (row) => row.approvalId,
  ),
  // Capped like every nested list: a call's views (params_viewed) are one event each.
  approvalEventsByToolCall: groupLoader(
    rows(
      LedgerEvent,
      firstOfEach(
        'ledger_events',
        'resource_id',
        'text',
        'sequence asc',
        NESTED_LIST_CAP,
        ` and type in (${HISTORY_EVENT_TYPES.map((t) => `'${t}'`).join(', ')})`,
      ),
    ),
    (row) => row.resourceId ?? '',
  ),
});
