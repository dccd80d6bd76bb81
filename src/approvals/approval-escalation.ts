import type { EntityManager } from '@mikro-orm/postgresql';
import { appendLedgerEvents, type LedgerEntry } from '../ledger/ledger.service';
import type { Clock } from '../support/clock';
import { systemClock } from '../support/clock';
import { ApprovalRequest } from './approval-request.entity';
import { escalateApprovalRow, lockDueEscalations } from './approval-state';

/**
 * The escalation ladder (issue 33, item 4), moved by the scheduled approval job: a pending
 * approval whose step has ended (`step_ends_at`, on the injected clock) moves to the next
 * step — offered to that step's role and group, recorded as `approval.escalated` (a webhook
 * of the same name pages the group) — and its next step's end is set, or none on the last
 * step, which `expires_at` ends (the expiry job denies it). One step per approval per pass;
 * the job passes again while any is due, so a node that was down catches up step by step.
 */
export async function escalateDueApprovals(em: EntityManager, clock: Clock = systemClock, limit = 100): Promise<ApprovalRequest[]> {
  const now = new Date(clock.now());
  const escalated = await em.transactional(async (tx) => {
    // Several nodes may run the job: each takes rows the others have not locked.
    const due = (await lockDueEscalations(tx, now, limit)).filter((a) => a.expiresAt > now && a.step < a.escalation.length);
    const events: LedgerEntry[] = [];
    const moved: string[] = [];
    for (const approval of due) {
      const step = approval.escalation[approval.step]!;
      const following = approval.escalation[approval.step + 1];
      const stepEndsAt = following ? new Date(approval.createdAt.getTime() + following.afterSeconds * 1000) : null;
      if (!(await escalateApprovalRow(tx, approval, stepEndsAt))) continue;
      moved.push(approval.id);
      events.push({
        orgId: approval.orgId,
        runId: approval.runId,
        type: 'approval.escalated',
        resourceId: approval.toolCallId,
        metadata: {
          approvalRequestId: approval.id,
          kind: approval.kind,
          step: approval.step + 1,
          steps: approval.escalation.length,
          role: step.role,
          group: step.group,
          stepEndsAt: (stepEndsAt ?? approval.expiresAt).toISOString(),
          expiresAt: approval.expiresAt.toISOString(),
        },
      });
    }
    if (events.length > 0) await appendLedgerEvents(tx, events);
    return moved;
  });
  return escalated.length === 0 ? [] : em.fork().find(ApprovalRequest, { id: { $in: escalated } }, { orderBy: { stepEndsAt: 'asc' } });
}
