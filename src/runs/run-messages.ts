import type { EntityManager } from '@mikro-orm/postgresql';
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

export type StoredBlock = Record<string, unknown> & { type: string; toolgate?: PendingNote };

export async function loadMessages(em: EntityManager, runId: string): Promise<RunMessage[]> {
  return em.find(RunMessage, { runId }, { orderBy: { position: 'asc' } });
}

export function appendMessage(
  em: EntityManager,
  run: { id: string; orgId: string },
  position: number,
  role: MessageRole,
  content: StoredBlock[],
): RunMessage {
  return em.create(RunMessage, { orgId: run.orgId, runId: run.id, position, role, content });
}

export const isPending = (block: StoredBlock): boolean => block.type === 'tool_result' && block.toolgate?.pending === true;

/** The run's assistant text so far: the text blocks of its assistant messages, in order. */
export function assistantText(messages: RunMessage[]): string {
  const parts: string[] = [];
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
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
