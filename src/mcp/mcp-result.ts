import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ToolCallOutcome } from '../gateway/gateway.types';
import { editedSentence } from '../gateway/edited-notice';

/** `_meta` keys Toolgate reads and writes on MCP messages (reverse-DNS prefixed, as MCP asks). */
export const META = {
  idempotencyKey: 'io.toolgate/idempotencyKey',
  toolCall: 'io.toolgate/toolCall',
} as const;

/**
 * A gateway outcome as an MCP tool result. Succeeded: the result as structuredContent and
 * as JSON text. Blocked or failed: isError with the fixed model sentence and the stable
 * code, never vendor text. Waiting: a plain result saying so — the same call, repeated,
 * answers with the outcome. A call a reviewer approved with edited params says so first.
 */
export function toolResult(outcome: ToolCallOutcome, approvalKind: 'expert' | 'client' | null = null): CallToolResult {
  const state = {
    status: outcome.status,
    toolCallId: outcome.toolCallId,
    approvalRequestId: outcome.approvalRequestId,
    replayed: outcome.replayed,
  };
  const edited = outcome.editedParams ?? null;
  const _meta = { [META.toolCall]: edited === null ? state : { ...state, editedParams: edited } };
  // A reviewer changed the params before approving: the model is told first, with the params that ran.
  const notice = edited === null ? [] : [{ type: 'text' as const, text: editedSentence(edited) }];
  if (outcome.status === 'succeeded') {
    const result = outcome.result;
    const structured = result !== null && typeof result === 'object' && !Array.isArray(result) ? (result as Record<string, unknown>) : { result };
    return { content: [...notice, { type: 'text', text: JSON.stringify(result) }], structuredContent: structured, _meta };
  }
  if (outcome.error) {
    const { code, message } = outcome.error;
    return {
      content: [{ type: 'text', text: `${message} (${code})` }, ...notice],
      structuredContent: { ...state, error: { code, message } },
      isError: true,
      _meta,
    };
  }
  return { content: [{ type: 'text', text: pendingSentence(outcome, approvalKind) }], structuredContent: state, _meta };
}

function pendingSentence(outcome: ToolCallOutcome, approvalKind: 'expert' | 'client' | null): string {
  const repeat = 'Call the same tool with the same arguments again later to receive its outcome.';
  if (outcome.status === 'waiting_approval') {
    const who = approvalKind === 'client' ? 'the client' : 'an expert';
    return `The tool call is waiting for approval by ${who} (approval request ${outcome.approvalRequestId}). ${repeat}`;
  }
  return `The tool call is ${outcome.status}. ${repeat}`;
}
