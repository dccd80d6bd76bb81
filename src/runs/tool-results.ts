import { errorFor } from '../gateway/call-outcome';
import { EDITED_NOTICE, editedSentence } from '../gateway/edited-notice';
import type { ToolCallOutcome } from '../gateway/gateway.types';
import type { ToolCall } from '../gateway/tool-call.entity';
import { ERROR_CATALOG } from '../errors/error-codes';
import { isUpstreamToolName } from '../catalog/tool-key';
import { upstreamText } from '../llm/tool-definitions';
import type { StoredBlock } from './run-messages';

/**
 * What the model is told for one tool_use (ADR-029 step 13), or a pending note: a call
 * waiting for a human, or still `running` where a crash left it (reconciliation settles it
 * and queues the run's next step). A replayed success carries the stored (redacted) result.
 * A call whose params a reviewer edited says so, with the params it ran with (redacted).
 * An imported upstream tool's result is marked as its server's (`toolName`).
 */
export function resultBlock(toolUseId: string, outcome: ToolCallOutcome, toolName?: string): StoredBlock {
  const base = { type: 'tool_result', tool_use_id: toolUseId };
  if (outcome.status === 'waiting_approval' || outcome.status === 'approved' || outcome.status === 'running') {
    return { ...base, content: '', toolgate: { pending: true, toolCallId: outcome.toolCallId } };
  }
  const edited = outcome.editedParams ?? null;
  if (outcome.status === 'succeeded') {
    const result = outcome.result ?? null;
    const content = JSON.stringify(edited === null ? result : { notice: EDITED_NOTICE, editedParams: edited, result });
    // An imported tool's answer is its upstream server's text, marked as such like its description.
    return { ...base, content: toolName && isUpstreamToolName(toolName) ? upstreamText(toolName, content) : content };
  }
  const message = outcome.error?.message ?? 'Tool execution failed';
  return { ...base, is_error: true, content: edited === null ? message : `${message}. ${editedSentence(edited)}` };
}

/** A tool_use whose id the gateway refused (IDEMPOTENCY_KEY_REUSED): the model is told, never another call's result. */
export function refusedKeyResult(toolUseId: string): StoredBlock {
  return { type: 'tool_result', tool_use_id: toolUseId, is_error: true, content: ERROR_CATALOG.IDEMPOTENCY_KEY_REUSED.modelMessage! };
}

/** A tool_use of the turn that went past the run's tool-round limit: never run. */
export function roundLimitResult(toolUseId: string): StoredBlock {
  return {
    type: 'tool_result',
    tool_use_id: toolUseId,
    is_error: true,
    content: 'Not run: this run reached its limit of tool rounds',
  };
}

/** A call's outcome as stored: a succeeded call carries its stored (redacted) result, never an error. */
export function storedOutcome(call: ToolCall): ToolCallOutcome {
  return {
    status: call.status,
    toolCallId: call.id,
    result: call.status === 'succeeded' ? call.outputRedacted : null,
    error: call.status === 'succeeded' ? null : errorFor(call.errorCode),
    approvalRequestId: null,
    replayed: true,
    editedParams: call.editedInputRedacted ?? null,
  };
}

/** A tool_use of a turn the run never acted on (it failed first), answered when a message continues the run. */
export function notRunResult(toolUseId: string): StoredBlock {
  return { type: 'tool_result', tool_use_id: toolUseId, is_error: true, content: 'Not run: the run stopped before this tool call was made' };
}
