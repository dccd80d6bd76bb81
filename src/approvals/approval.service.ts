import type { EntityManager } from '@mikro-orm/postgresql';
import { ApprovalRequest } from './approval-request.entity';
import { appendLedgerEvents } from '../ledger/ledger.service';
import { AppError, badInput, notFound } from '../errors/app-error';
import { isUuid } from '../db/ids';
import { approveCall, expireCall, rejectCall } from '../gateway/tool-call-state';
import { releaseApproval } from '../runs/run-state';
import { expireApprovalRow, lockDueApprovals, lockPendingApproval, rebindPendingApproval, resolveApprovalRow } from './approval-state';
import { countApprovals, recordVote } from './approval-votes';
import type { Caller } from '../auth/caller';
import { type Clock, systemClock } from '../support/clock';
import { checkApprovalEdit, type ApprovalEditDeps } from './approval-edit';
import { APPROVAL_RESOLVER } from '../auth/access';
import { offeredToGroup } from '../policy/approval-routing';
import { withLocalSteps, type LocalStepStarter, type StepBatch } from '../runs/step-batches';

export type ApprovalDecision = 'approve' | 'reject';

/** Approve with edits: the params the call runs with instead of the requested ones. */
export interface ApprovalEdit {
  params: unknown;
  deps: ApprovalEditDeps;
}

/**
 * Resolves a pending approval exactly once: the conditional UPDATE lets one of any number
 * of concurrent or repeated resolutions win; the others get APPROVAL_ALREADY_RESOLVED (or
 * APPROVAL_EXPIRED once its time is up). Approve leaves the call `approved` for the agent
 * runtime to execute; reject blocks it. Approve with edits checks the edited params first
 * (approval-edit.ts) — a refused edit changes nothing — and then commits them with the
 * resolution in the same transaction: whoever executes the approved call, on any node and
 * after any crash, opens the edited params. With `local` (this node's), the resumed run's next
 * step starts here once the resolution has committed.
 */
export async function resolveApproval(
  em: EntityManager,
  caller: Caller,
  approvalId: string,
  decision: ApprovalDecision,
  reason: string | null,
  edit: ApprovalEdit | null = null,
  local: LocalStepStarter | null = null,
): Promise<ApprovalRequest> {
  if (reason !== null && (reason.length > 2000 || reason.includes('\u0000'))) {
    throw new AppError('BAD_USER_INPUT', 'reason must be at most 2000 characters', { field: 'reason' });
  }
  if (edit && decision !== 'approve') throw badInput('editedParams are only given with APPROVE', { field: 'editedParams' });
  const approval = isUuid(approvalId) ? await em.findOne(ApprovalRequest, { id: approvalId, orgId: caller.orgId }) : null;
  if (!approval) throw notFound('Approval request');
  if (APPROVAL_RESOLVER[approval.kind] !== caller.role) {
    throw new AppError('FORBIDDEN', `Only ${APPROVAL_RESOLVER[approval.kind]} keys resolve ${approval.kind} approvals`);
  }
  requireStepGroup(approval, caller);
  return settle(em, caller, approval, decision, reason, { channel: 'graphql' satisfies ResolutionChannel }, edit, local);
}

/**
 * At a step offered to a group, only its members resolve: people whose groups (the binding's
 * role claim, from their sign-in or token) include it. A key has no groups, so it cannot. The
 * step is the one read with the request (an escalation moving on meanwhile is not waited for).
 */
function requireStepGroup(approval: ApprovalRequest, caller: Caller): void {
  const group = offeredToGroup(approval);
  if (group !== null && !caller.person?.groups?.includes(group)) {
    throw new AppError('FORBIDDEN', `This approval has escalated to the group ${group}: only its members, signed in as themselves, resolve it now`, {
      group,
    });
  }
}

/** How a resolution reached Toolgate: recorded on its ledger event (`channel`) with who made it (`principal`). */
type ResolutionChannel = 'graphql' | 'mcp_elicitation' | 'mcp_input_required' | 'expiry';

/**
 * A client approval answered by the person at the connected MCP client (an elicitation sent
 * on the agent key's session, or an input-required round trip): only where the org turned
 * `mcp_client_approvals` on (the caller checks), only for that run's client approvals, and only
 * when the answer names the approval's exact binding. Single use like any resolution; the
 * ledger says `via` and the channel.
 */
export async function resolveApprovalByElicitation(
  em: EntityManager,
  caller: Caller,
  answer: {
    approvalId: string;
    runId: string;
    bindingHash: string;
    decision: ApprovalDecision;
    channel: Extract<ResolutionChannel, `mcp_${string}`>;
  },
): Promise<ApprovalRequest> {
  const approval = isUuid(answer.approvalId) ? await em.findOne(ApprovalRequest, { id: answer.approvalId, orgId: caller.orgId }) : null;
  if (!approval || approval.runId !== answer.runId) throw notFound('Approval request');
  if (approval.kind !== 'client') throw new AppError('FORBIDDEN', 'Only client approvals are answered by elicitation');
  requireStepGroup(approval, caller);
  if (approval.bindingHash !== answer.bindingHash) throw new AppError('CONFLICT', 'The answer is for another call than the one waiting');
  // An MCP run is external: its resolution queues no step.
  return settle(em, caller, approval, answer.decision, null, { via: 'mcp_elicitation', channel: answer.channel }, null, null);
}

async function settle(
  em: EntityManager,
  caller: Caller,
  approval: ApprovalRequest,
  decision: ApprovalDecision,
  reason: string | null,
  extra: Record<string, unknown>,
  edit: ApprovalEdit | null,
  local: LocalStepStarter | null,
): Promise<ApprovalRequest> {
  // Committed either way (an expired one too, whose run then continues): its step may start here.
  const outcome = await withLocalSteps(em, local, (batch) =>
    em.transactional(async (tx): Promise<ApprovalRequest | { expired: ApprovalRequest }> => {
      // A quorum approval takes votes first: one that does not complete it changes no status.
      const vote = approval.quorum > 1 ? await castVote(tx, caller, approval, decision, reason, edit, extra) : null;
      if (vote?.recorded) return vote.recorded;
      // Checked only while pending (a resolved one answers APPROVAL_ALREADY_RESOLVED below); a refusal throws: nothing written.
      const checked = edit && !vote && approval.status === 'pending' ? await checkApprovalEdit(tx, edit.deps, approval, edit.params, caller) : null;
      const resolved = await resolveApprovalRow(tx, approval, decision, caller.keyId, reason, checked?.write ?? null);
      if (!resolved) {
        const current = await tx.findOneOrFail(ApprovalRequest, { id: approval.id }, { refresh: true });
        if (current.status === 'pending') {
          // Its time ran out before the expiry job came by: expire it now (committed), as the job would.
          await expireApproval(tx, current, batch);
          return { expired: current };
        }
        throw new AppError('APPROVAL_ALREADY_RESOLVED', `The approval request is already ${current.status}`, {
          approvalStatus: current.status,
        });
      }
      // Every resolution names its channel and its principal (the key, and its role).
      const metadata = {
        approvalRequestId: resolved.id,
        kind: resolved.kind,
        ...extra,
        principal: { keyId: caller.keyId, role: caller.role },
        ...(vote?.approvals ? { approvals: vote.approvals, quorum: resolved.quorum } : {}),
      };
      const code = resolved.kind === 'expert' ? 'EXPERT_REJECTED' : 'CLIENT_REJECTED';
      // A quorum completed on params a voter edited runs with them (the row holds them since that vote).
      const quorumEdit = vote?.approvals && resolved.editedParamsRedacted !== null ? resolved.editedParamsRedacted : null;
      const event =
        decision === 'approve'
          ? await approveCall(
              tx,
              resolved.toolCallId,
              caller,
              { ...metadata, reason, ...checked?.ledger, ...(quorumEdit !== null ? { edited: true, editedParams: quorumEdit } : {}) },
              checked?.editedInputRedacted ?? quorumEdit,
            )
          : await rejectCall(tx, resolved.toolCallId, code, caller, {
              ...metadata,
              reason: resolved.kind === 'expert' ? 'expert_rejected' : 'client_rejected',
              note: reason,
            });
      // The approval was pending, so its call waited: anything else is a broken invariant.
      if (!event) throw new AppError('CONFLICT', "The approval's tool call is no longer waiting for it");
      const run = { id: resolved.runId, orgId: resolved.orgId };
      await appendLedgerEvents(tx, [event, ...(await releaseApproval(tx, run, caller, batch))], checked ? [checked.decisionRow] : []);
      return resolved;
    }),
  );
  if ('expired' in outcome) {
    throw new AppError('APPROVAL_EXPIRED', 'The approval request expired before it was resolved');
  }
  return outcome;
}

/**
 * A vote on a quorum approval, under its row lock (votes of one approval take turns, so two
 * last votes cannot both complete it). A rejection is recorded and then ends the approval as
 * any rejection does; an approval is recorded for the params it saw — an edit binds new
 * params first, so earlier votes stop counting — and completes the quorum or is the ledger's
 * `approval.vote_recorded`. The same person (or key) twice for the same params:
 * APPROVAL_ALREADY_VOTED, nothing written. Null: not pending or out of time, the resolution
 * below answers as for any approval.
 */
async function castVote(
  tx: EntityManager,
  caller: Caller,
  approval: ApprovalRequest,
  decision: ApprovalDecision,
  reason: string | null,
  edit: ApprovalEdit | null,
  extra: Record<string, unknown>,
): Promise<{ recorded?: ApprovalRequest; approvals?: number } | null> {
  const locked = await lockPendingApproval(tx, approval);
  if (!locked?.live) return null;
  // The voter decided on what they loaded: an edit since then changed the params under them.
  if (locked.bindingHash !== approval.bindingHash) {
    throw new AppError('CONFLICT', 'The params were edited since this approval was loaded: review it again', { field: 'approvalId' });
  }
  if (decision === 'reject') {
    await recordVote(tx, approval, caller, 'reject', locked.bindingHash);
    return {};
  }
  const checked = edit ? await checkApprovalEdit(tx, edit.deps, approval, edit.params, caller) : null;
  if (checked) await rebindPendingApproval(tx, approval, checked.write, caller.keyId);
  const binding = checked?.write.bindingHash ?? locked.bindingHash;
  if (!(await recordVote(tx, approval, caller, 'approve', binding))) {
    throw new AppError('APPROVAL_ALREADY_VOTED', 'You already approved this request: it needs another approver', { quorum: locked.quorum });
  }
  const approvals = await countApprovals(tx, approval.id, binding);
  if (approvals >= locked.quorum) return { approvals };
  await appendLedgerEvents(
    tx,
    [
      {
        orgId: approval.orgId,
        runId: approval.runId,
        type: 'approval.vote_recorded',
        resourceId: approval.toolCallId,
        actor: caller,
        metadata: {
          approvalRequestId: approval.id,
          kind: approval.kind,
          ...extra,
          principal: { keyId: caller.keyId, role: caller.role },
          decision: 'approve',
          approvals,
          quorum: locked.quorum,
          reason,
          // An edit restarts the quorum: this vote is the first for the edited params.
          ...(checked ? { ...checked.ledger, restarted: true } : {}),
        },
      },
    ],
    checked ? [checked.decisionRow] : [],
  );
  return { recorded: await tx.findOneOrFail(ApprovalRequest, { id: approval.id }, { refresh: true }) };
}

/** Expires pending approvals whose time is up (the scheduled job). Returns them. */
export async function expireDueApprovals(em: EntityManager, limit = 100, clock: Clock = systemClock): Promise<ApprovalRequest[]> {
  const expired = await em.transactional(async (tx) => {
    // Several nodes may run the job: each takes rows the others have not locked.
    const due = await lockDueApprovals(tx, limit, new Date(clock.now()));
    for (const approval of due) await expireApproval(tx, approval);
    return due.map((approval) => approval.id);
  });
  return expired.length === 0 ? [] : em.fork().find(ApprovalRequest, { id: { $in: expired } }, { orderBy: { expiresAt: 'asc' } });
}

/** Marks one approval expired and blocks its call with APPROVAL_EXPIRED. In the caller's transaction. */
async function expireApproval(tx: EntityManager, approval: ApprovalRequest, local: StepBatch | null = null): Promise<void> {
  if (!(await expireApprovalRow(tx, approval.id))) return;
  // Resolved by time, not by a person: the channel says so, and there is no principal.
  const event = await expireCall(tx, approval.toolCallId, {
    approvalRequestId: approval.id,
    kind: approval.kind,
    channel: 'expiry',
    principal: null,
  });
  const run = { id: approval.runId, orgId: approval.orgId };
  await appendLedgerEvents(tx, [...(event ? [event] : []), ...(await releaseApproval(tx, run, null, local))]);
}
