import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, badInput } from '../errors/app-error';
import { RISK_LEVELS, type RiskLevel } from '../catalog/risk';
import { evaluatePolicy } from '../policy/policy-evaluator';
import type { PolicyOutcome } from '../policy/policy-decision-outcome';
import { effectOf } from '../policy/policy-outcomes';
import { PolicyDecision } from '../policy/policy-decision.entity';
import { redactInput } from '../redaction/redact';
import { sealJson } from '../credentials/sealed-json';
import type { MasterKeyring } from '../credentials/keyring';
import type { Caller } from '../auth/caller';
import type { OrgConfigCache } from '../gateway/org-config-cache';
import { describeInputErrors, type ToolRegistry } from '../gateway/tool-registry';
import { isStorable, storable } from '../gateway/call-outcome';
import { insertSql } from '../db/insert-sql';
import type { JoinedWrite } from '../ledger/ledger.service';
import { approvalBindingHash, sealedParamsAad } from './approval-binding';
import type { ApprovalRequest } from './approval-request.entity';
import type { ApprovalEditWrite } from './approval-state';
import { holdsMarker, mergeSealedValues } from './sealed-merge';
import { ToolCall } from '../gateway/tool-call.entity';
import { openApprovedParams } from '../gateway/approved-params';

/** What checking an edit needs: the gateway's catalog and policy cache, and the master keys. */
export interface ApprovalEditDeps {
  tools: ToolRegistry;
  orgConfig: OrgConfigCache;
  keyring: MasterKeyring;
}

/** An accepted edit: the approval's write, the re-evaluation's row, and what the ledger says. */
export interface CheckedEdit {
  write: ApprovalEditWrite;
  editedInputRedacted: unknown;
  decisionRow: JoinedWrite;
  ledger: Record<string, unknown>;
}

/** Why an edit was refused (APPROVAL_EDIT_ESCALATES `extensions.reason`). */
export const EDIT_REFUSALS = {
  blocked: 'policy blocks the edited call',
  other_approver: 'the edited call needs another kind of approver',
  higher_risk: 'the edited call is of a higher risk than the one requested',
} as const;

interface CallRow {
  run_id: string;
  tool_name: string;
  action: string;
  input_redacted: unknown;
  decision_outcome: PolicyOutcome | null;
  decision_risk: RiskLevel | null;
  decision_policy_version: number | null;
  caller_role: string | null;
  caller_key_id: string | null;
  specialist_id: string;
  config_version: number;
  org_policy_version: number;
  policy_shadow_mode: boolean;
}

/** The edited params with every hidden value the reviewer left as stored taken from the sealed copy (sealed-merge.ts). */
async function withSealedValues(
  tx: EntityManager,
  keyring: MasterKeyring,
  approval: ApprovalRequest,
  stored: unknown,
  edited: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  if (!holdsMarker(edited)) return edited;
  const call = await tx.findOneOrFail(ToolCall, { id: approval.toolCallId, orgId: approval.orgId });
  const sealed = await openApprovedParams(tx, keyring, call, approval);
  return mergeSealedValues(edited, stored, sealed) as Record<string, unknown>;
}

const rank = (risk: RiskLevel) => RISK_LEVELS.indexOf(risk);

/**
 * Checks an approval's edited params the way the gateway checks a call — the tool's input
 * schema, then policy — and refuses any edit that would need more than this approval gives:
 * blocked, another approver kind, or a higher risk than the call was requested at. Policy is
 * evaluated with the org's rules as they are now (what the gateway would use for this call
 * now: a node keeps no older rule set), and the evaluation is recorded as a policy decision
 * of its own. The binding stays on the policy version the call was decided under, which is
 * what opening the params before the run checks. Hidden values the reviewer left as stored
 * (the redaction marker where the stored copy hides one) keep their sealed value, and the
 * checks and the binding apply to the merged params. Null when the params equal the requested
 * ones (a plain approval). Reads only; throws before anything is written.
 */
export async function checkApprovalEdit(
  tx: EntityManager,
  deps: ApprovalEditDeps,
  approval: ApprovalRequest,
  editedParams: unknown,
  caller: Caller,
): Promise<CheckedEdit | null> {
  if (editedParams === null || typeof editedParams !== 'object' || Array.isArray(editedParams)) {
    throw badInput('editedParams must be a JSON object', { field: 'editedParams' });
  }
  const [call] = await tx.execute<CallRow[]>(
    `select c.run_id, c.tool_name, c.action, c.input_redacted, d.outcome as decision_outcome, d.risk as decision_risk,
            d.policy_version as decision_policy_version, d.caller_role, d.caller_key_id, r.specialist_id,
            o.config_version, o.policy_version as org_policy_version, o.policy_shadow_mode
       from tool_calls c join agent_runs r on r.id = c.run_id join orgs o on o.id = c.org_id
       left join policy_decisions d on d.id = c.policy_decision_id
      where c.id = ? and c.org_id = ?`,
    [approval.toolCallId, approval.orgId],
  );
  if (!call || call.decision_policy_version === null || call.decision_risk === null) {
    throw new AppError('CONFLICT', 'The call of this approval has no policy decision to check an edit against');
  }
  const params = await withSealedValues(tx, deps.keyring, approval, call.input_redacted, editedParams as Record<string, unknown>);
  const tool = await deps.tools.find(tx, approval.orgId, call.tool_name, call.action);
  if (!tool) throw new AppError('CONFLICT', 'The tool is no longer available: approve or reject the call as requested');
  if (!tool.validate(params) || !isStorable(params)) {
    const problems = tool.validate.errors ? describeInputErrors(tool.validate) : [{ path: '/', problem: 'contains a NUL character' }];
    throw new AppError('INVALID_TOOL_INPUT', "editedParams do not match the tool's input schema", { field: 'editedParams', problems });
  }
  const binding = {
    orgId: approval.orgId,
    runId: call.run_id,
    toolName: call.tool_name,
    action: call.action,
    params,
    policyVersion: call.decision_policy_version,
  };
  const bindingHash = approvalBindingHash(binding);
  if (bindingHash === approval.bindingHash) return null;

  const config = await deps.orgConfig.get(tx, approval.orgId, call.config_version);
  const verdict = evaluatePolicy(
    config.rules,
    {
      toolName: call.tool_name,
      action: call.action,
      params,
      // The call's own caller and specialist: the reviewer changes the params, not who asks.
      callerRole: call.caller_role ?? caller.role,
      specialistId: call.specialist_id,
      defaultRisk: tool.definition.defaultRisk,
    },
    call.policy_shadow_mode,
  );
  // From the outcomes' table: an outcome it does not know blocks (and so refuses the edit).
  const effect = effectOf(verdict.outcome);
  const refusal: keyof typeof EDIT_REFUSALS | null =
    effect.callStatus === 'blocked'
      ? 'blocked'
      : effect.approver !== null && effect.approver !== approval.kind
        ? 'other_approver'
        : rank(verdict.risk) > rank(call.decision_risk)
          ? 'higher_risk'
          : null;
  if (refusal) {
    throw new AppError('APPROVAL_EDIT_ESCALATES', `The edit is refused: ${EDIT_REFUSALS[refusal]}; nothing changed`, { reason: refusal });
  }

  const decision = Object.assign(new PolicyDecision(), {
    orgId: approval.orgId,
    runId: call.run_id,
    toolName: call.tool_name,
    action: call.action,
    outcome: verdict.outcome,
    shadowOutcome: verdict.shadowOutcome,
    risk: verdict.risk,
    matchedRuleId: verdict.matchedRuleId,
    policyVersion: call.org_policy_version,
    callerRole: call.caller_role ?? caller.role,
    callerKeyId: call.caller_key_id,
    reason: `approval edit: ${verdict.reason}`,
  });
  const editedInputRedacted = storable(redactInput(params));
  const { current } = deps.keyring;
  return {
    write: {
      bindingHash,
      sealedParams: sealJson(current.key, current.version, sealedParamsAad(approval.orgId, approval.toolCallId), params),
      editedParamsRedacted: editedInputRedacted,
    },
    editedInputRedacted,
    decisionRow: insertSql(tx.getMetadata(), 'PolicyDecision', decision),
    ledger: {
      edited: true,
      originalParams: call.input_redacted,
      editedParams: editedInputRedacted,
      editedBy: caller.keyId,
      editorRole: caller.role,
      editPolicyDecisionId: decision.id,
      editDecision: verdict.outcome,
      editRisk: verdict.risk,
      editMatchedRuleId: verdict.matchedRuleId,
      editPolicyVersion: call.org_policy_version,
    },
  };
}
