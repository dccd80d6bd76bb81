import type { EntityManager } from '@mikro-orm/postgresql';
import { ApprovalRequest } from './approval-request.entity';
import { APPROVAL_RESOLVER } from '../auth/access';
import type { Caller } from '../auth/caller';
import type { MasterKeyring } from '../credentials/keyring';
import { isUuid } from '../db/ids';
import { AppError, notFound } from '../errors/app-error';
import { ToolCall } from '../gateway/tool-call.entity';
import { openApprovedParams } from '../gateway/approved-params';
import { appendLedgerEvent } from '../ledger/ledger.service';
import { containsMarker } from '../redaction/markers';

export interface RevealedParams {
  approvalId: string;
  toolCallId: string;
  /** The call's real params: what the approval is bound to, and what runs if it is approved. */
  params: Record<string, unknown>;
  /** JSON pointers to the values the stored (redacted) copy hides. */
  hiddenPaths: string[];
  bindingHash: string;
}

/**
 * Opens a pending approval's sealed params for a reviewer who may resolve it (the role of
 * its kind: experts expert approvals, clients client approvals; FORBIDDEN otherwise). The
 * params are checked against the approval's binding hash as the approved call's are
 * (CONFLICT when they do not match), so what the reviewer sees is what runs. Each view is
 * recorded as `approval.params_viewed` in the same transaction, before anything is
 * answered; a view changes nothing else (the binding, the approval and the call stay).
 */
export async function revealApprovalParams(em: EntityManager, keyring: MasterKeyring, caller: Caller, approvalId: string): Promise<RevealedParams> {
  return em.transactional(async (tx) => {
    const approval = isUuid(approvalId) ? await tx.findOne(ApprovalRequest, { id: approvalId, orgId: caller.orgId }) : null;
    if (!approval) throw notFound('Approval request');
    if (APPROVAL_RESOLVER[approval.kind] !== caller.role) {
      throw new AppError('FORBIDDEN', `Only ${APPROVAL_RESOLVER[approval.kind]} keys see the params of ${approval.kind} approvals`, {
        approvalKind: approval.kind,
      });
    }
    if (approval.status !== 'pending') {
      throw new AppError('APPROVAL_ALREADY_RESOLVED', `The approval request is already ${approval.status}`, { approvalStatus: approval.status });
    }
    const [due] = await tx.execute<{ due: boolean }[]>('select expires_at <= now() as due from approval_requests where id = ?', [approval.id]);
    if (due.due) throw new AppError('APPROVAL_EXPIRED', 'The approval request expired before it was resolved');
    const call = await tx.findOneOrFail(ToolCall, { id: approval.toolCallId, orgId: caller.orgId });
    const params = await openApprovedParams(tx, keyring, call, approval);
    const hiddenPaths = hiddenIn(call.inputRedacted, params);
    await appendLedgerEvent(tx, {
      orgId: caller.orgId,
      type: 'approval.params_viewed',
      runId: approval.runId,
      resourceId: call.id,
      actor: caller,
      metadata: { approvalRequestId: approval.id, kind: approval.kind, viewer: { keyId: caller.keyId, role: caller.role }, hiddenPaths },
    });
    return { approvalId: approval.id, toolCallId: call.id, params, hiddenPaths, bindingHash: approval.bindingHash };
  });
}

/** Where the stored copy differs from the real params: a redaction marker, or a value left out. */
function hiddenIn(stored: unknown, real: unknown, path = ''): string[] {
  if (typeof stored === 'string') return containsMarker(stored) && stored !== real ? [path || '/'] : [];
  if (real !== null && typeof real === 'object' && stored !== null && typeof stored === 'object') {
    return Object.entries(real).flatMap(([key, value]) =>
      hiddenIn((stored as Record<string, unknown>)[key], value, `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`),
    );
  }
  return [];
}
