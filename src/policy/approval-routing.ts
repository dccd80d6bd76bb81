import { badInput } from '../errors/app-error';
import { APPROVAL_RESOLVER } from '../auth/access';
import { POLICY_OUTCOME_EFFECTS, isKnownOutcome } from './policy-outcomes';

/**
 * What a rule that asks for approval says about it (issue 33, items 3 and 4): how many
 * distinct approvers (`quorum`, the two-person rule at 2) and the escalation ladder — after
 * each step's `afterSeconds` (counted from the request) the approval is offered to the step's
 * role and group (`approval.escalated`), and at `expireAfterSeconds` it expires: denied.
 */
export interface EscalationStep {
  /** Seconds after the request at which this step begins (increasing along the ladder). */
  afterSeconds: number;
  /** Who may resolve from this step on: the approval kind's role (expert or client). */
  role: string;
  /** The approver group paged at this step (the webhook names it); null: the role's whole group. */
  group: string | null;
}

export interface ApprovalRouting {
  quorum: number;
  escalation: EscalationStep[];
  /** The end of the ladder: the approval expires (deny) this many seconds after its request; null: APPROVAL_TTL. */
  expireAfterSeconds: number | null;
}

/** Routing as an admin writes it: absent fields take their defaults (routingFields). */
export interface RoutingInput {
  quorum?: number;
  escalation?: readonly (Omit<EscalationStep, 'group'> & { group?: string | null })[];
  expireAfterSeconds?: number | null;
}

export const MAX_QUORUM = 5;
export const MAX_ESCALATION_STEPS = 5;
export const MIN_STEP_SECONDS = 60;
export const MAX_STEP_SECONDS = 7 * 24 * 3600;
const GROUP = /^[A-Za-z0-9_.:@/-]{1,200}$/;

/** The routing of a rule as stored: every field present, groups null when absent. */
export function routingFields(input: RoutingInput): ApprovalRouting {
  return {
    quorum: input.quorum ?? 1,
    escalation: (input.escalation ?? []).map((s) => ({ afterSeconds: s.afterSeconds, role: s.role, group: s.group ?? null })),
    expireAfterSeconds: input.expireAfterSeconds ?? null,
  };
}

/**
 * Refuses routing an admin may not save: a quorum of 1 to 5; a ladder of at most 5 steps,
 * each 60 s to 7 days after the request and later than the one before, naming the role that
 * resolves the rule's approvals; an end after the last step; and none of it on a rule that
 * asks for no approval.
 */
export function validateRouting(decision: string, input: RoutingInput): void {
  const routing = routingFields(input);
  const approver = isKnownOutcome(decision) ? POLICY_OUTCOME_EFFECTS[decision].approver : null;
  const { quorum, escalation, expireAfterSeconds } = routing;
  if (!Number.isInteger(quorum) || quorum < 1 || quorum > MAX_QUORUM) {
    throw badInput(`quorum must be an integer from 1 to ${MAX_QUORUM}`, { field: 'quorum' });
  }
  if (!approver && (quorum !== 1 || escalation.length > 0 || expireAfterSeconds !== null)) {
    throw badInput('quorum, escalation and expireAfterSeconds apply only to a rule that requires approval', { field: 'decision' });
  }
  if (escalation.length > MAX_ESCALATION_STEPS) throw badInput(`at most ${MAX_ESCALATION_STEPS} escalation steps`, { field: 'escalation' });
  let previous = 0;
  escalation.forEach((step, i) => {
    const field = `escalation[${i}]`;
    const s = step.afterSeconds;
    if (!Number.isInteger(s) || s < MIN_STEP_SECONDS || s > MAX_STEP_SECONDS) {
      throw badInput(`${field}.afterSeconds must be an integer from ${MIN_STEP_SECONDS} to ${MAX_STEP_SECONDS} (7 days)`, { field });
    }
    if (s <= previous) throw badInput(`${field}.afterSeconds must be later than the step before`, { field });
    previous = s;
    if (approver && step.role !== APPROVAL_RESOLVER[approver]) {
      throw badInput(`${field}.role must be ${APPROVAL_RESOLVER[approver]}, the role that resolves ${approver} approvals`, { field });
    }
    if (step.group !== null && !GROUP.test(step.group)) throw badInput(`${field}.group must be 1 to 200 letters, digits or _ . : @ / -`, { field });
  });
  if (expireAfterSeconds !== null) {
    const e = expireAfterSeconds;
    if (!Number.isInteger(e) || e < MIN_STEP_SECONDS || e > MAX_STEP_SECONDS + 7 * 24 * 3600) {
      throw badInput(`expireAfterSeconds must be an integer from ${MIN_STEP_SECONDS} to 14 days`, { field: 'expireAfterSeconds' });
    }
    if (e <= previous) throw badInput('expireAfterSeconds must be later than the last escalation step', { field: 'expireAfterSeconds' });
  } else if (escalation.length > 0) {
    throw badInput('expireAfterSeconds is required with an escalation ladder: its end, when the approval is denied', {
      field: 'expireAfterSeconds',
    });
  }
}

/** Where an approval opened at `openedAt` stands: the end of step 0 (the first escalation, else the end) and its expiry. */
export function ladderTimes(routing: ApprovalRouting, openedAtMs: number, defaultTtlMs: number): { stepEndsAt: Date | null; expiresAt: Date } {
  const expiresAt = new Date(openedAtMs + (routing.expireAfterSeconds !== null ? routing.expireAfterSeconds * 1000 : defaultTtlMs));
  const first = routing.escalation[0];
  return { stepEndsAt: first ? new Date(openedAtMs + first.afterSeconds * 1000) : null, expiresAt };
}

/** The approver group an approval's current escalation step is offered to; null before the ladder or at a step without one. */
export function offeredToGroup(approval: { step: number; escalation: readonly EscalationStep[] }): string | null {
  return approval.step > 0 ? (approval.escalation[approval.step - 1]?.group ?? null) : null;
}
