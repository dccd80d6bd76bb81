import type { EntityManager } from '@mikro-orm/postgresql';
import type { Caller } from '../auth/caller';
import { AppError, badInput } from '../errors/app-error';
import type { ErrorCode } from '../errors/error-codes';
import type { Logger } from '../support/logger';
import type { LocalStepStarter } from '../runs/step-batches';
import type { ApprovalRequest } from './approval-request.entity';
import { resolveApproval, type ApprovalDecision } from './approval.service';

/** The most approvals one bulk resolution takes (TOO_MANY_APPROVALS above): a page of the console's queue. */
export const MAX_BULK_APPROVALS = 50;

/** One item's answer: the request as resolved, or why it was not (its stable code). */
export type BulkResolution =
  | { approvalId: string; approval: ApprovalRequest; error: null }
  | { approvalId: string; approval: null; error: { code: ErrorCode; message: string } };

/**
 * Approves or rejects several approvals with one reason. Each goes through resolveApproval
 * in its own transaction — the same checks, binding, ledger events and state owner as one
 * reviewer's click — so one that fails (resolved elsewhere meanwhile, expired, another
 * kind's) changes nothing of its own and nothing of the others. Bad input (no ids, too many,
 * a repeated id, a bad reason) is refused before any item is touched. Items are resolved in
 * the order given.
 */
export async function resolveApprovals(
  em: EntityManager,
  caller: Caller,
  ids: readonly string[],
  decision: ApprovalDecision,
  reason: string | null,
  local: LocalStepStarter | null,
  logger: Logger,
): Promise<BulkResolution[]> {
  if (ids.length > MAX_BULK_APPROVALS) {
    throw new AppError('TOO_MANY_APPROVALS', `At most ${MAX_BULK_APPROVALS} approvals are resolved at once (${ids.length} sent)`, {
      limit: MAX_BULK_APPROVALS,
      field: 'ids',
    });
  }
  if (ids.length === 0) throw badInput('ids must name at least one approval request', { field: 'ids' });
  if (new Set(ids).size !== ids.length) throw badInput('ids must not repeat an approval request', { field: 'ids' });
  if (reason !== null && (reason.length > 2000 || reason.includes('\u0000'))) {
    throw badInput('reason must be at most 2000 characters', { field: 'reason' });
  }
  const results: BulkResolution[] = [];
  for (const approvalId of ids) {
    try {
      // A fork per item: one item's failure leaves nothing behind for the next.
      const approval = await resolveApproval(em.fork(), caller, approvalId, decision, reason, null, local);
      results.push({ approvalId, approval, error: null });
    } catch (error) {
      if (error instanceof AppError) {
        results.push({ approvalId, approval: null, error: { code: error.code, message: error.message } });
        continue;
      }
      // Unexpected (the database went away): the items before it are committed, so answer per item rather than fail them all.
      logger.error({ err: error, approvalId }, 'bulk approval resolution failed');
      results.push({ approvalId, approval: null, error: { code: 'INTERNAL_SERVER_ERROR', message: 'The approval could not be resolved' } });
    }
  }
  return results;
}
