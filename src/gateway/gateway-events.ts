import { EventEmitter } from 'node:events';
import type { ToolCall } from './tool-call.entity';
import type { ApprovalRequest } from '../approvals/approval-request.entity';

/**
 * In-process signals after a gateway change commits: a tool call changed state, an
 * approval was resolved or expired. The agent runtime resumes runs from them and the
 * realtime layer publishes them; listeners must not throw.
 */
export interface GatewayEventMap {
  toolCall: [ToolCall];
  approvalResolved: [ApprovalRequest];
}

export class GatewayEvents extends EventEmitter<GatewayEventMap> {
  emitToolCall(call: ToolCall): void {
    this.emit('toolCall', call);
  }

  emitApprovalResolved(approval: ApprovalRequest): void {
    this.emit('approvalResolved', approval);
  }
}
