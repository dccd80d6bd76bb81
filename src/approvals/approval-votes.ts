import type { EntityManager } from '@mikro-orm/postgresql';
import type { Caller } from '../auth/caller';
import type { VoteDecision } from './approval-vote.entity';

/**
 * The votes of quorum approvals (issue 33, item 3). Each vote is one INSERT, made under the
 * approval's row lock (approval-state.ts `lockPendingApproval`) so that the count that
 * follows sees every earlier vote and two last votes take turns: exactly one completes it.
 * The unique constraint `approval_votes_once` makes the same voter count once per bound
 * params: a person by `people.id` (however many principals they act through), else the key.
 */
export function voterOf(caller: Pick<Caller, 'keyId' | 'person'>): string {
  return caller.person ? `person:${caller.person.id}` : `key:${caller.keyId}`;
}

/** Records a vote; false when this voter already voted for these params (nothing written). */
export async function recordVote(
  tx: EntityManager,
  approval: { id: string; orgId: string },
  caller: Caller,
  decision: VoteDecision,
  bindingHash: string,
): Promise<boolean> {
  const rows = await tx.execute<{ id: string }[]>(
    `insert into approval_votes (id, org_id, approval_id, key_id, person_id, voter, decision, binding_hash, created_at)
       values (gen_random_uuid(), ?, ?, ?, ?, ?, ?, ?, now())
       on conflict on constraint approval_votes_once do nothing returning id`,
    [approval.orgId, approval.id, caller.keyId, caller.person?.id ?? null, voterOf(caller), decision, bindingHash],
  );
  return rows.length > 0;
}

/** Distinct approvers of these params so far (votes for earlier, edited-away params do not count). */
export async function countApprovals(tx: EntityManager, approvalId: string, bindingHash: string): Promise<number> {
  const [row] = await tx.execute<{ n: number }[]>(
    `select count(*)::int as n from approval_votes where approval_id = ? and binding_hash = ? and decision = 'approve'`,
    [approvalId, bindingHash],
  );
  return row.n;
}
