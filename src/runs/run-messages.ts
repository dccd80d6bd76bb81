import type { EntityManager } from '@mikro-orm/postgresql';
import type { ToolCallRequest } from '../gateway/gateway.types';
import { RunMessage, type MessageRole } from './run-message.entity';

/**
 * A run's conversation in the Messages API's own shape, so it can be replayed to the
 * model as is. It holds what the model saw, unredacted, scoped to the run's org; the
 * audit tables hold the redacted copies. A tool_result still waiting for a human carries
 * a `toolgate` note and is not sent to the model until it is filled in.
 */
export interface PendingNote {
  pending: true;
  toolCallId: string;
}

/** Why a tool_use is recorded refused instead of run (the gateway's `refusal`). */
type ToolUseRefusal = NonNullable<ToolCallRequest['refusal']>;

/**
 * A tool_use the runtime will not run as asked, decided once when the turn is stored (so
 * every later step reads the same decision): its refusal; `modelId`, the id the model gave
 * where it was a repeat and the block carries a key of its own instead (ids stay unique in
 * the conversation); `rawInput`, the model's input where it was not an object (the block's
 * `input` is then `{}`, the only shape the API takes back).
 */
export interface ToolUseNote {
  pending?: never;
  refusal: ToolUseRefusal;
  modelId?: string;
  rawInput?: unknown;
}

export type StoredBlock = Record<string, unknown> & { type: string; toolgate?: PendingNote | ToolUseNote };

export async function loadMessages(em: EntityManager, runId: string, orgId?: string): Promise<RunMessage[]> {
  return em.find(RunMessage, orgId ? { runId, orgId } : { runId }, { orderBy: { position: 'asc' } });
}

export function appendMessage(
  em: EntityManager,
  run: { id: string; orgId: string },
  position: number,
  role: MessageRole,
  content: StoredBlock[],
  stopReason: string | null = null,
): RunMessage {
  return em.create(RunMessage, { orgId: run.orgId, runId: run.id, position, role, content, stopReason });
}

/**
 * The model refused this turn (stop_reason refusal): it is kept for readers and the audit,
 * never sent back (the API asks for the refused turn to be removed before continuing).
 */
export const isRefused = (message: { role: string; stopReason?: string | null }): boolean =>
  message.role === 'assistant' && message.stopReason === 'refusal';

export const isPending = (block: StoredBlock): boolean => block.type === 'tool_result' && block.toolgate?.pending === true;

/** The call a pending tool_result waits for. */
export const pendingCallId = (block: StoredBlock): string => (block.toolgate as PendingNote).toolCallId;

/** A tool_use's refusal note, if it has one. */
export const toolUseNote = (block: StoredBlock): ToolUseNote | null =>
  block.type === 'tool_use' && block.toolgate && 'refusal' in block.toolgate ? block.toolgate : null;

/**
 * The run's assistant text so far: the text blocks of its assistant messages, in order — a
 * refused turn's excepted, which runTokens retracts (its text stays readable in `messages`).
 */
export function assistantText(messages: RunMessage[]): string {
  const parts: string[] = [];
  for (const message of messages) {
    if (message.role !== 'assistant' || isRefused(message)) continue;
    for (const block of message.content as StoredBlock[]) {
      if (block.type === 'text' && typeof block.text === 'string') parts.push(block.text);
    }
  }
  return parts.join('');
}

/** Characters of assistant text so far: where the next token's offset starts. */
export function assistantTextLength(messages: RunMessage[]): number {
  return assistantText(messages).length;
}
