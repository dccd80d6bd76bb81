import type { Config } from '../config';
import type { RunMessage } from '../runs/run-message.entity';
import type { StoredBlock } from '../runs/run-messages';

/**
 * How many tool rounds a run's conversation has taken, against MAX_TOOL_ROUNDS (per user
 * message) and MAX_RUN_TOOL_ROUNDS (per run). A model turn that asked for tools, or paused
 * (a server-tool loop the model continues), is a round.
 */
const isRound = (message: RunMessage): boolean =>
  message.role === 'assistant' && (message.stopReason === 'pause_turn' || (message.content as StoredBlock[]).some((b) => b.type === 'tool_use'));

/** Rounds since the user last wrote text. */
function toolRoundsSinceUserText(messages: RunMessage[]): number {
  let rounds = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const blocks = messages[i].content as StoredBlock[];
    if (messages[i].role === 'user' && blocks.some((b) => b.type === 'text')) break;
    if (isRound(messages[i])) rounds += 1;
  }
  return rounds;
}

/** Rounds in the whole run. */
function toolRounds(messages: RunMessage[]): number {
  return messages.filter(isRound).length;
}

/** Which tool-round limit the conversation went past (its failure message), if any: per message, then per run. */
export function roundLimit(messages: RunMessage[], settings: Pick<Config['model'], 'maxToolRounds' | 'maxRunToolRounds'>): string | null {
  const { maxToolRounds, maxRunToolRounds } = settings;
  if (toolRoundsSinceUserText(messages) > maxToolRounds) return `The model used more than ${maxToolRounds} tool rounds for one message`;
  if (toolRounds(messages) > maxRunToolRounds) return `The model used more than ${maxRunToolRounds} tool rounds in this run`;
  return null;
}
