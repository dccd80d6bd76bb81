import { registerEnumType } from 'type-graphql';
import { ROLES } from '../auth/roles';
import { RUN_STATUSES } from '../runs/agent-run.entity';
import { TOOL_CALL_STATUSES } from '../gateway/tool-call.entity';
import { RISK_LEVELS } from '../catalog/risk';
import { POLICY_OUTCOMES } from '../policy/policy-decision-outcome';
import { APPROVAL_KINDS, APPROVAL_STATUSES } from '../approvals/approval-request.entity';

/**
 * GraphQL enums mirror the domain's string unions value for value (lowercase, as stored
 * and as written in the ledger), so no mapping table can drift.
 */
function asEnum<T extends string>(values: readonly T[]): Record<T, T> {
  return Object.fromEntries(values.map((v) => [v, v])) as Record<T, T>;
}

export const RoleEnum = asEnum(ROLES);
export const RunStatusEnum = asEnum(RUN_STATUSES);
export const ToolCallStatusEnum = asEnum(TOOL_CALL_STATUSES);
export const RiskLevelEnum = asEnum(RISK_LEVELS);
export const PolicyOutcomeEnum = asEnum(POLICY_OUTCOMES);
export const ApprovalKindEnum = asEnum(APPROVAL_KINDS);
export const ApprovalStatusEnum = asEnum(APPROVAL_STATUSES);

registerEnumType(RoleEnum, { name: 'Role', description: 'The role of an API key' });
registerEnumType(RunStatusEnum, { name: 'RunStatus' });
registerEnumType(ToolCallStatusEnum, { name: 'ToolCallStatus' });
registerEnumType(RiskLevelEnum, { name: 'RiskLevel' });
registerEnumType(PolicyOutcomeEnum, { name: 'PolicyOutcome' });
registerEnumType(ApprovalKindEnum, { name: 'ApprovalKind' });
registerEnumType(ApprovalStatusEnum, { name: 'ApprovalStatus' });
