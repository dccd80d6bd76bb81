import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import { ApprovalRequest, type ApprovalKind } from './approval-request.entity';
import { ToolCall } from '../gateway/tool-call.entity';
import { appendLedgerEvents, type LedgerEntry } from '../ledger/ledger.service';
import { AppError, notFound } from '../errors/app-error';
import { ERROR_CATALOG } from '../errors/error-codes';
import { isUuid } from '../db/ids';
import { enqueueRunStep } from '../runs/run-jobs';
import type { Caller } from '../auth/caller';

export type ApprovalDecision = 'approve' | 'reject';

/** Which role resolves which kind: experts the expert queue, clients their own. */
const RESOLVER_ROLE: Record<ApprovalKind, Caller['role']> = { expert: 'expert', client: 'client' };

/**
 * Resolves a pending approval exactly once: the conditional UPDATE lets one of any number
 * of concurrent or repeated resolutions win; the others get APPROVAL_ALREADY_RESOLVED (or
 * APPROVAL_EXPIRED once its time is up). Approve leaves the call `approved` for the agent
 * runtime to execute; reject blocks it.
 */
export async function resolveApproval(
  em: EntityManager,
  caller: Caller,
  approvalId: string,
  decision: ApprovalDecision,
  reason: string | null,
  /** Told about an approval this call found expired and expired (it is signalled like the job's). */
  onExpired?: (approval: ApprovalRequest) => void,
): Promise<ApprovalRequest> {
  if (reason !== null && (reason.length > 2000 || reason.includes('\u0000'))) {
    throw new AppError('BAD_USER_INPUT', 'reason must be at most 2000 characters', { field: 'reason' });
  }
  const approval = isUuid(approvalId) ? await em.findOne(ApprovalRequest, { id: approvalId, orgId: caller.orgId }) : null;
  if (!approval) throw notFound('Approval request');
  if (RESOLVER_ROLE[approval.kind] !== caller.role) {
    throw new AppError('FORBIDDEN', `Only ${RESOLVER_ROLE[approval.kind]} keys resolve ${approval.kind} approvals`);
  }
  const outcome = await em.transactional(async (tx): Promise<ApprovalRequest | { expired: ApprovalRequest }> => {
    const status = decision === 'approve' ? 'approved' : 'rejected';
    const won = await tx.execute<{ id: string }[]>(
      `update approval_requests set status = ?, resolved_by = ?, reason = ?, resolved_at = now()
        where id = ? and org_id = ? and status = 'pending' and expires_at > now() returning id`,
      [status, caller.keyId, reason, approval.id, caller.orgId],
    );
    if (won.length === 0) {
      const current = await tx.findOneOrFail(ApprovalRequest, { id: approval.id }, { refresh: true });
      if (current.status === 'pending') {
        // Its time ran out before the expiry job came by: expire it now (committed), as the job would.
        await expireApproval(tx, current);
        return { expired: current };
      }
      throw new AppError('APPROVAL_ALREADY_RESOLVED', `The approval request is already ${current.status}`, {
        approvalStatus: current.status,
      });
    }
    const resolved = await tx.findOneOrFail(ApprovalRequest, { id: approval.id }, { refresh: true });
    const call = await tx.findOneOrFail(ToolCall, { id: resolved.toolCallId });
    const events: LedgerEntry[] = [];
    const base = { orgId: call.orgId, runId: call.runId, resourceId: call.id, actor: caller };
    const tool = `${call.toolName}.${call.action}`;
    if (decision === 'approve') {
      call.status = 'approved';
      events.push({ ...base, type: 'tool_call.approved', metadata: { tool, approvalRequestId: resolved.id, kind: resolved.kind, reason } });
    } else {
      const code = resolved.kind === 'expert' ? 'EXPERT_REJECTED' : 'CLIENT_REJECTED';
      call.status = 'blocked';
      call.errorCode = code;
      call.errorText = ERROR_CATALOG[code].modelMessage ?? null;
      resolved.sealedParams = null;
      events.push({
        ...base,
        type: 'tool_call.rejected',
        metadata: { tool, approvalRequestId: resolved.id, kind: resolved.kind, reason: resolved.kind === 'expert' ? 'expert_rejected' : 'client_rejected', errorCode: code, note: reason },
      });
    }
    call.updatedAt = new Date();
    await tx.flush();
    events.push(...(await releaseRun(tx, call.runId, call.orgId, caller)));
    await appendLedgerEvents(tx, events);
    return resolved;
  });
  if ('expired' in outcome) {
    onExpired?.(outcome.expired);
    throw new AppError('APPROVAL_EXPIRED', 'The approval request expired before it was resolved');
  }
  return outcome;
}

/** Expires pending approvals whose time is up (the scheduled job). Returns them. */
export async function expireDueApprovals(em: EntityManager, limit = 100): Promise<ApprovalRequest[]> {
  return em.transactional(async (tx) => {
    const due = await tx.find(
      ApprovalRequest,
      { status: 'pending', expiresAt: { $lte: new Date() } },
      // Several nodes may run the job: each takes rows the others have not locked.
      { orderBy: { expiresAt: 'asc' }, limit, lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE },
    );
    for (const approval of due) await expireApproval(tx, approval);
    return due;
  });
}

/** Marks one approval expired and blocks its call with APPROVAL_EXPIRED. In the caller's transaction. */
async function expireApproval(tx: EntityManager, approval: ApprovalRequest): Promise<void> {
  approval.status = 'expired';
  approval.resolvedAt = new Date();
  approval.sealedParams = null;
  const call = await tx.findOneOrFail(ToolCall, { id: approval.toolCallId });
  call.status = 'blocked';
  call.errorCode = 'APPROVAL_EXPIRED';
  call.errorText = ERROR_CATALOG.APPROVAL_EXPIRED.modelMessage ?? null;
  call.updatedAt = new Date();
  await tx.flush();
  const events: LedgerEntry[] = [
    {
      orgId: call.orgId,
      runId: call.runId,
      resourceId: call.id,
      type: 'tool_call.expired',
      metadata: { tool: `${call.toolName}.${call.action}`, approvalRequestId: approval.id, kind: approval.kind, reason: 'approval_expired', errorCode: 'APPROVAL_EXPIRED' },
    },
    ...(await releaseRun(tx, call.runId, call.orgId, null)),
  ];
  await appendLedgerEvents(tx, events);
}

/** One fewer pending approval; the last one brings a waiting run back to running. */
async function releaseRun(tx: EntityManager, runId: string, orgId: string, actor: Caller | null): Promise<LedgerEntry[]> {
  const [previous] = await tx.execute<{ status: string }[]>('select status from agent_runs where id = ? for update', [runId]);
  const [run] = await tx.execute<{ status: string; driver: string }[]>(
    `update agent_runs
        set pending_approval_count = greatest(pending_approval_count - 1, 0),
            status = case when pending_approval_count <= 1 and status = 'waiting_approval' then 'running' else status end,
            updated_at = now()
      where id = ? returning status, driver`,
    [runId],
  );
  if (run && previous?.status === 'waiting_approval' && run.status === 'running') {
    // Toolgate's own runtime continues the run in a durable job, on whichever node.
    if (run.driver === 'internal') await enqueueRunStep(tx, runId);
    return [{ orgId, type: 'run.resumed', runId, resourceId: runId, actor, metadata: {} }];
  }
  return [];
}
