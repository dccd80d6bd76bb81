import type { PolicyOutcome } from './policy-decision-outcome';

/**
 * What each policy outcome does to a call, in one table: every site that acts on a decision
 * (the gateway, the recorder, the call's state machine, an approval's edit, a policy change
 * under an approval, the subscriptions) reads it here. A new outcome does not compile until
 * its row is written; an outcome this table does not know at run time (a value read from
 * the database, a newer engine's) is enforced as UNKNOWN_OUTCOME: blocked, never run.
 */
export interface OutcomeEffect {
  /** Where the call enters its state machine. */
  callStatus: 'running' | 'waiting_approval' | 'blocked';
  /** Who must approve it before it runs (null: nobody). */
  approver: 'expert' | 'client' | null;
  /** It runs, and a person reviews it afterwards. */
  reviewRequired: boolean;
  /** The code a blocked call carries. */
  blockCode: 'POLICY_BLOCKED' | 'POLICY_OUTCOME_UNKNOWN' | null;
}

export const POLICY_OUTCOME_EFFECTS = {
  allow: { callStatus: 'running', approver: null, reviewRequired: false, blockCode: null },
  observe: { callStatus: 'running', approver: null, reviewRequired: true, blockCode: null },
  require_expert_approval: { callStatus: 'waiting_approval', approver: 'expert', reviewRequired: false, blockCode: null },
  require_client_approval: { callStatus: 'waiting_approval', approver: 'client', reviewRequired: false, blockCode: null },
  block: { callStatus: 'blocked', approver: null, reviewRequired: false, blockCode: 'POLICY_BLOCKED' },
} as const satisfies Record<PolicyOutcome, OutcomeEffect>;

/** An outcome the table does not know: blocked with its own code, recorded as the `block` it was enforced as. */
export const UNKNOWN_OUTCOME = {
  callStatus: 'blocked',
  approver: null,
  reviewRequired: false,
  blockCode: 'POLICY_OUTCOME_UNKNOWN',
} as const satisfies OutcomeEffect;

export function isKnownOutcome(outcome: unknown): outcome is PolicyOutcome {
  return typeof outcome === 'string' && Object.hasOwn(POLICY_OUTCOME_EFFECTS, outcome);
}

/** The effect of an outcome as found (typed or not): an unknown one fails closed. */
export function effectOf(outcome: unknown): OutcomeEffect {
  return isKnownOutcome(outcome) ? POLICY_OUTCOME_EFFECTS[outcome] : UNKNOWN_OUTCOME;
}

/** The outcome that asks `approver` to approve (metrics name an approved call's decision by it). */
export function outcomeRequiring(approver: 'expert' | 'client'): PolicyOutcome {
  const found = (Object.keys(POLICY_OUTCOME_EFFECTS) as PolicyOutcome[]).find((o) => POLICY_OUTCOME_EFFECTS[o].approver === approver);
  if (!found) throw new Error(`no policy outcome asks for a ${approver} approval`);
  return found;
}

/**
 * A call that runs is flagged for review when its outcome asks for it, or when shadow mode
 * let through what the rules would not simply have allowed.
 */
export function reviewRequiredBy(outcome: unknown, shadowOutcome: unknown): boolean {
  if (effectOf(outcome).reviewRequired) return true;
  if (shadowOutcome === null || shadowOutcome === undefined) return false;
  const shadow = effectOf(shadowOutcome);
  return shadow.callStatus !== 'running' || shadow.reviewRequired;
}

/** A verdict as it is enforced and recorded: an unknown outcome becomes `block`, and the reason names it. */
interface EnforcedVerdict<V extends { outcome: PolicyOutcome; shadowOutcome: PolicyOutcome | null; reason: string }> {
  verdict: V;
  effect: OutcomeEffect;
}

export function enforced<V extends { outcome: PolicyOutcome; shadowOutcome: PolicyOutcome | null; reason: string }>(found: V): EnforcedVerdict<V> {
  const outcomeKnown = isKnownOutcome(found.outcome);
  const shadowKnown = found.shadowOutcome === null || isKnownOutcome(found.shadowOutcome);
  if (outcomeKnown && shadowKnown) return { verdict: found, effect: POLICY_OUTCOME_EFFECTS[found.outcome] };
  const unknown = outcomeKnown ? `shadow outcome "${found.shadowOutcome}"` : `outcome "${found.outcome}"`;
  return {
    verdict: {
      ...found,
      outcome: outcomeKnown ? found.outcome : 'block',
      shadowOutcome: shadowKnown ? found.shadowOutcome : 'block',
      reason: `${found.reason}; unknown ${unknown} enforced as block`,
    },
    effect: outcomeKnown ? POLICY_OUTCOME_EFFECTS[found.outcome] : UNKNOWN_OUTCOME,
  };
}
