import { createHash } from 'node:crypto';
import { canonicalJson } from '../ledger/canonical-json';

export interface ApprovalBinding {
  orgId: string;
  runId: string;
  toolName: string;
  action: string;
  params: unknown;
  policyVersion: number;
}

/** Binds an approval to one exact call: the same tool with other params is another call. */
export function approvalBindingHash(binding: ApprovalBinding): string {
  return createHash('sha256')
    .update(canonicalJson([binding.orgId, binding.runId, binding.toolName, binding.action, binding.params, binding.policyVersion]))
    .digest('hex');
}

/** AAD for the sealed params of an approval: usable for that org's tool call only. */
export const sealedParamsAad = (orgId: string, toolCallId: string) => `toolgate/approval-params/v1|${orgId}|${toolCallId}`;
