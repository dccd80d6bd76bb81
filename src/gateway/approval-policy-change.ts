import type { EntityManager } from '@mikro-orm/postgresql';
import type { RiskLevel } from '../catalog/risk';
import { appendLedgerEvents } from '../ledger/ledger.service';
import { type CompiledRule, evaluatePolicy, historyCandidates, type PolicyInput } from '../policy/policy-evaluator';
import { readHistory } from '../policy/policy-history';
import type { CedarVerdict } from '../policy/cedar-engine';
import { redactInput } from '../redaction/redact';
import { effectOf } from '../policy/policy-outcomes';
import { dropSealedParams } from '../approvals/approval-state';
import { blockApprovedCall, type CallRef } from './tool-call-state';

/** An approved call whose org's policy changed since it was decided, with what it runs with. */
export interface ApprovedUnderNewPolicy {
  call: CallRef;
  approvalRequestId: string;
  /** The params it would run with (a reviewer's edits included). */
  params: Record<string, unknown>;
  callerRole: string;
  specialistId: string;
  defaultRisk: RiskLevel;
  /** The org's policy version now. */
  policyVersion: number;
  shadowMode: boolean;
  /** Now, on the gateway's clock: where history windows end. */
  now: Date;
}

/**
 * An approval survives a policy change (ARCHITECTURE.md, "Call identity"): approving a call
 * executes it, unless the policy as it is now blocks it. Then it is recorded blocked with the
 * rule that blocks it, its approved params are dropped, and true is answered; nothing runs.
 * Any other verdict (allow, or an approval a person has just given) lets it run.
 */
export async function blockIfPolicyBlocks(
  tx: EntityManager,
  rules: readonly CompiledRule[],
  approved: ApprovedUnderNewPolicy,
  cedar?: CedarVerdict | null,
): Promise<boolean> {
  const { call } = approved;
  const input: PolicyInput = {
    toolName: call.toolName,
    action: call.action,
    params: approved.params,
    callerRole: approved.callerRole,
    specialistId: approved.specialistId,
    defaultRisk: approved.defaultRisk,
  };
  // Rules over history as they are now, the call itself as "this call". No locks: this
  // transaction holds the run's row, which a deciding call takes after its limits' locks.
  const wanted = cedar?.forbid ? [] : historyCandidates(rules, input);
  const subject = { orgId: call.orgId, runId: call.runId, toolName: call.toolName, action: call.action, params: approved.params, now: approved.now };
  const history =
    wanted.length > 0
      ? await readHistory(tx, wanted, { ...subject, storedParams: redactInput(approved.params), exceptCallId: call.id }, { lock: false })
      : undefined;
  const verdict = evaluatePolicy(rules, input, approved.shadowMode, history, cedar);
  // An outcome this server does not know blocks too (policy-outcomes.ts: it fails closed).
  const { blockCode } = effectOf(verdict.outcome);
  if (!blockCode) return false;
  const event = await blockApprovedCall(tx, call.id, blockCode, {
    approvalRequestId: approved.approvalRequestId,
    matchedRuleId: verdict.matchedRuleId,
    policyVersion: approved.policyVersion,
    reevaluated: true,
  });
  if (!event) return false;
  await appendLedgerEvents(tx, [event]);
  await dropSealedParams(tx, approved.approvalRequestId);
  return true;
}
