import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors/app-error';
import { openJson } from '../credentials/sealed-json';
import type { MasterKeyring } from '../credentials/keyring';
import { approvalBindingHash, sealedParamsAad } from '../approvals/approval-binding';
import type { ApprovalRequest } from '../approvals/approval-request.entity';
import type { ToolCall } from './tool-call.entity';

/**
 * The params an approved call runs with: the approval's sealed copy, opened with the
 * (org, call) AAD and checked against the approval's binding hash — what a person approved
 * is exactly what runs. CONFLICT when they cannot be opened or no longer match.
 * `decidedPolicyVersion`: the call's decision's policy version when the caller read it
 * already in this transaction (a decision row never changes); read here otherwise.
 */
export async function openApprovedParams(
  tx: EntityManager,
  keyring: MasterKeyring,
  call: ToolCall,
  approval: ApprovalRequest,
  decidedPolicyVersion?: number,
): Promise<Record<string, unknown>> {
  if (!approval.sealedParams) throw new AppError('CONFLICT', 'The approved call can no longer be resumed');
  const params = openJson<Record<string, unknown>>(
    keyring.key(approval.sealedParams.keyVersion),
    sealedParamsAad(call.orgId, call.id),
    approval.sealedParams,
  );
  const [decision] =
    decidedPolicyVersion === undefined
      ? await tx.execute<{ policy_version: number }[]>('select policy_version from policy_decisions where id = ?', [call.policyDecisionId])
      : [{ policy_version: decidedPolicyVersion }];
  const expected = approvalBindingHash({
    orgId: call.orgId,
    runId: call.runId,
    toolName: call.toolName,
    action: call.action,
    params,
    policyVersion: decision.policy_version,
  });
  if (expected !== approval.bindingHash) throw new AppError('CONFLICT', 'The approved call does not match what was approved');
  return params;
}
