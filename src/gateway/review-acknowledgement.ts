import type { EntityManager } from '@mikro-orm/postgresql';
import type { Caller } from '../auth/caller';
import { isUuid } from '../db/ids';
import { AppError, notFound } from '../errors/app-error';
import { appendLedgerEvent } from '../ledger/ledger.service';
import { ToolCall } from './tool-call.entity';
import { acknowledgeCallReview } from './tool-call-state';

export const REVIEW_NOTE_MAX = 2000;

/**
 * A reviewer acknowledges a call flagged for review (observed by policy, let through by
 * shadow mode, an outcome nobody could confirm), with an optional note: it leaves the review
 * queue and the ledger says who looked and what they noted (`tool_call.review_acknowledged`).
 * Once only: the conditional UPDATE lets one of any number of concurrent acknowledgements win
 * (REVIEW_ALREADY_ACKNOWLEDGED for the others); a call not flagged is REVIEW_NOT_REQUIRED.
 * Bad input changes nothing. Not a status change: the call keeps its status.
 */
export async function acknowledgeReview(em: EntityManager, caller: Caller, toolCallId: string, note: string | null, now: Date): Promise<ToolCall> {
  const text = note?.trim() ? note.trim() : null;
  if (text !== null && (text.length > REVIEW_NOTE_MAX || text.includes('\u0000'))) {
    throw new AppError('BAD_USER_INPUT', `note must be at most ${REVIEW_NOTE_MAX} characters, without NUL`, { field: 'note' });
  }
  return em.transactional(async (tx) => {
    const call = isUuid(toolCallId) ? await tx.findOne(ToolCall, { id: toolCallId, orgId: caller.orgId }) : null;
    if (!call) throw notFound('Tool call');
    if (!call.reviewRequired) throw new AppError('REVIEW_NOT_REQUIRED', 'The tool call is not marked for review; nothing changed');
    if (!(await acknowledgeCallReview(tx, call.id, caller.orgId, { keyId: caller.keyId, note: text, at: now }))) {
      throw new AppError('REVIEW_ALREADY_ACKNOWLEDGED', 'The review of this tool call is already acknowledged; nothing changed');
    }
    await appendLedgerEvent(tx, {
      orgId: caller.orgId,
      type: 'tool_call.review_acknowledged',
      runId: call.runId,
      resourceId: call.id,
      actor: caller,
      metadata: { tool: `${call.toolName}.${call.action}`, note: text, acknowledgedBy: { keyId: caller.keyId, role: caller.role } },
    });
    return tx.findOneOrFail(ToolCall, { id: call.id }, { refresh: true });
  });
}
