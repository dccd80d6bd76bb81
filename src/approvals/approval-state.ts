import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import type { LedgerEvent } from '../ledger/ledger-event.entity';
import type { MetadataStorage } from '@mikro-orm/core';
import { ApprovalRequest, type ApprovalKind, type ApprovalStatus } from './approval-request.entity';
import type { SqlRunner } from '../db/raw-transaction';
import { insertSql } from '../db/insert-sql';
import type { JoinedWrite } from '../ledger/ledger.service';
import { sqlList } from '../db/sql-list';
import type { SealedJson } from '../credentials/sealed-json';
import type { EscalationStep } from '../policy/approval-routing';

/**
 * The ApprovalRequest state machine and its only writer. Each transition is one
 * conditional UPDATE from `pending`, in the caller's transaction; the ledger records it
 * with the event of the tool call it decides (tool_call.approved / rejected / expired /
 * blocked run_cancelled), appended by the caller in the same transaction.
 *
 *   (new) → pending                  openApproval (its INSERT travels with the call's batch)
 *   pending → approved | rejected    resolveApprovalRow (only before it expires; approve may carry an edit)
 *   pending → expired                expireApprovalRow
 *   pending (votes, no status change) rebindPendingApproval (a quorum vote's edit), escalateApprovalRow (the ladder's next step)
 *   pending → cancelled              cancelRunApprovals (its run was cancelled)
 */
export const APPROVAL_TRANSITIONS = {
  approve: { from: ['pending'], to: 'approved' },
  reject: { from: ['pending'], to: 'rejected' },
  expire: { from: ['pending'], to: 'expired' },
  cancel: { from: ['pending'], to: 'cancelled' },
} as const satisfies Record<string, { from: readonly ApprovalStatus[]; to: ApprovalStatus }>;

/**
 * What an approval with edits writes with its resolution: the edited params sealed in place
 * of the requested ones, bound by their own hash; the requested binding is kept, so a
 * repeated MCP call of the requested params still finds this approval.
 */
export interface ApprovalEditWrite {
  bindingHash: string;
  sealedParams: SealedJson;
  editedParamsRedacted: unknown;
}

/** What a new approval is opened with: the call it decides, who approves, and its params sealed and bound. */
export interface NewApproval {
  orgId: string;
  runId: string;
  toolCallId: string;
  kind: ApprovalKind;
  bindingHash: string;
  sealedParams: SealedJson;
  requestedBy: string | null;
  expiresAt: Date;
  /** The rule's quorum and ladder (absent: one approver, no ladder). */
  quorum?: number;
  escalation?: EscalationStep[];
  stepEndsAt?: Date | null;
}

/**
 * (new) → pending. The row is built here and returned with its INSERT, which the caller
 * sends in the one statement that appends the call's ledger events (the gateway's hot path
 * costs no round trip more for it).
 */
export function openApproval(metadata: MetadataStorage, fields: NewApproval): { approval: ApprovalRequest; insert: JoinedWrite } {
  const approval = Object.assign(new ApprovalRequest(), fields);
  return { approval, insert: insertSql(metadata, 'ApprovalRequest', approval) };
}

/** The approved params have served their one use (the call ran, or was refused or blocked): only the redacted copy stays. */
export async function dropSealedParams(tx: SqlRunner, approvalId: string): Promise<void> {
  await tx.execute('update approval_requests set sealed_params = null where id = ?', [approvalId]);
}

/** pending → approved | rejected, by one of any number of concurrent resolutions (an approval may carry an edit). */
export async function resolveApprovalRow(
  tx: EntityManager,
  approval: { id: string; orgId: string },
  decision: 'approve' | 'reject',
  resolvedBy: string | null,
  reason: string | null,
  edit: ApprovalEditWrite | null = null,
): Promise<ApprovalRequest | null> {
  const transition = decision === 'approve' ? APPROVAL_TRANSITIONS.approve : APPROVAL_TRANSITIONS.reject;
  // A rejected call never runs: its sealed params go at once. SET reads the row as it was:
  // requested_binding_hash takes the binding the call was requested with.
  const extra =
    decision === 'reject'
      ? ', sealed_params = null'
      : edit
        ? ', requested_binding_hash = coalesce(requested_binding_hash, binding_hash), binding_hash = ?, sealed_params = ?, edited_params_redacted = ?, edited_by = ?'
        : '';
  const editParams =
    decision === 'approve' && edit
      ? [edit.bindingHash, JSON.stringify(edit.sealedParams), JSON.stringify(edit.editedParamsRedacted), resolvedBy]
      : [];
  const [won] = await tx.execute<Record<string, unknown>[]>(
    `update approval_requests set status = ?, resolved_by = ?, reason = ?, resolved_at = now()${extra}
      where id = ? and org_id = ? and status in (${sqlList(transition.from)}) and expires_at > now() returning *`,
    [transition.to, resolvedBy, reason, ...editParams, approval.id, approval.orgId],
  );
  // The row as resolved, as the transaction's entity: no read after the write.
  return won ? tx.map(ApprovalRequest, won) : null;
}

/** A pending approval locked for a vote (votes of one approval take turns); null when it is not pending. */
export async function lockPendingApproval(
  tx: EntityManager,
  approval: { id: string; orgId: string },
): Promise<{ bindingHash: string; quorum: number; live: boolean } | null> {
  const [row] = await tx.execute<{ binding_hash: string; quorum: number; live: boolean }[]>(
    `select binding_hash, quorum, expires_at > now() as live from approval_requests
      where id = ? and org_id = ? and status in (${sqlList(APPROVAL_TRANSITIONS.approve.from)}) for update`,
    [approval.id, approval.orgId],
  );
  return row ? { bindingHash: row.binding_hash, quorum: row.quorum, live: row.live } : null;
}

/**
 * A quorum approval's params edited by a vote: pending stays pending, bound to the edited
 * params (earlier votes were for others and no longer count). The requested binding is kept.
 */
export async function rebindPendingApproval(
  tx: EntityManager,
  approval: { id: string; orgId: string },
  edit: ApprovalEditWrite,
  editedBy: string | null,
): Promise<boolean> {
  const rows = await tx.execute<{ id: string }[]>(
    `update approval_requests set requested_binding_hash = coalesce(requested_binding_hash, binding_hash), binding_hash = ?, sealed_params = ?,
            edited_params_redacted = ?, edited_by = ?
      where id = ? and org_id = ? and status = 'pending' returning id`,
    [edit.bindingHash, JSON.stringify(edit.sealedParams), JSON.stringify(edit.editedParamsRedacted), editedBy, approval.id, approval.orgId],
  );
  return rows.length > 0;
}

/** The next step of its escalation ladder, once its step has ended (the scheduled job); false when another got there first. */
export async function escalateApprovalRow(tx: EntityManager, approval: { id: string; step: number }, stepEndsAt: Date | null): Promise<boolean> {
  const rows = await tx.execute<{ id: string }[]>(
    `update approval_requests set step = step + 1, step_ends_at = ? where id = ? and status = 'pending' and step = ? returning id`,
    [stepEndsAt, approval.id, approval.step],
  );
  return rows.length > 0;
}

/** Pending approvals whose ladder step has ended at `now`, locked for this transaction (other nodes skip them). */
export function lockDueEscalations(tx: EntityManager, now: Date, limit: number): Promise<ApprovalRequest[]> {
  return tx.find(
    ApprovalRequest,
    { status: 'pending', stepEndsAt: { $lte: now } },
    { orderBy: { stepEndsAt: 'asc' }, limit, lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE },
  );
}

/** pending → expired (its sealed params are dropped). */
export async function expireApprovalRow(tx: EntityManager, approvalId: string): Promise<boolean> {
  const rows = await tx.execute<{ id: string }[]>(
    `update approval_requests set status = '${APPROVAL_TRANSITIONS.expire.to}', resolved_at = now(), sealed_params = null
      where id = ? and status in (${sqlList(APPROVAL_TRANSITIONS.expire.from)}) returning id`,
    [approvalId],
  );
  return rows.length > 0;
}

/** Pending approvals whose time is up, locked for this transaction (other nodes skip them). */
export function lockDueApprovals(tx: EntityManager, limit: number, now: Date = new Date()): Promise<ApprovalRequest[]> {
  return tx.find(
    ApprovalRequest,
    { status: 'pending', expiresAt: { $lte: now } },
    { orderBy: { expiresAt: 'asc' }, limit, lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE },
  );
}

/** Every pending approval of a cancelled run → cancelled. */
export async function cancelRunApprovals(tx: EntityManager, runId: string, resolvedBy: string | null): Promise<number> {
  const rows = await tx.execute<{ id: string }[]>(
    `update approval_requests set status = '${APPROVAL_TRANSITIONS.cancel.to}', resolved_at = now(), resolved_by = ?, reason = 'run cancelled', sealed_params = null
      where run_id = ? and status in (${sqlList(APPROVAL_TRANSITIONS.cancel.from)}) returning id`,
    [resolvedBy, runId],
  );
  return rows.length;
}

/** Ledger event → the change of approval it records (the approval dashboard's feed). */
export function approvalChangeOf(event: Pick<LedgerEvent, 'type' | 'metadata'>): string | null {
  switch (event.type) {
    case 'tool_call.approval_requested':
      return 'requested';
    case 'tool_call.approved':
      return 'approved';
    case 'tool_call.rejected':
      return 'rejected';
    case 'tool_call.expired':
      return 'expired';
    case 'approval.vote_recorded':
      return 'voted';
    case 'approval.escalated':
      return 'escalated';
    case 'tool_call.blocked':
      return event.metadata.reason === 'run_cancelled' ? 'cancelled' : null;
    default:
      return null;
  }
}
