import { isJsonObject, type ReplyBlock } from '../llm/model-turn';
import type { StoredBlock, ToolUseNote } from '../runs/run-messages';

/**
 * A model turn as stored, each tool_use with an identity of its own (issue 26, item 3).
 * Decided here, once, when the turn is stored, so that any later step (another node, after
 * a crash) reads the same decision from the message:
 * - a tool_use id the conversation already holds (earlier in this message, or in an
 *   earlier turn) is a new call the model asked for, never the earlier one: it gets the key
 *   `<id>__dup<n>` (n: how many times the id came before) as its id, so every tool_use of the
 *   conversation stays unique and is answered by its own tool_result, and is refused
 *   (IDEMPOTENCY_KEY_REUSED) — recorded under that key, so a repeated step replays it;
 * - input cut off at max_tokens (or not complete JSON) is refused TOOL_INPUT_TRUNCATED;
 *   input that is not a JSON object, INVALID_TOOL_INPUT. Neither is ever run or approved.
 */
export function storedTurn(reply: readonly ReplyBlock[], stopReason: string | null, earlier: readonly { content: unknown }[]): StoredBlock[] {
  const idsBefore = new Set<string>(); // every tool_use id the conversation holds (keys included)
  const timesBefore = new Map<string, number>(); // how often the model gave each id
  const count = (modelId: string) => timesBefore.set(modelId, (timesBefore.get(modelId) ?? 0) + 1);
  for (const message of earlier) {
    for (const block of message.content as StoredBlock[]) {
      if (block.type !== 'tool_use') continue;
      idsBefore.add(String(block.id));
      count(modelIdOf(block));
    }
  }
  const inThisTurn = new Set<string>();
  return reply.map((block): StoredBlock => {
    if (block.type !== 'tool_use') return block; // text, and thinking kept as the model sent it
    const repeatedInTurn = inThisTurn.has(block.id);
    const times = timesBefore.get(block.id) ?? 0;
    inThisTurn.add(block.id);
    count(block.id);
    const object = isJsonObject(block.input);
    const input = object ? block.input : {};
    let note: ToolUseNote | null = null;
    let id = block.id;
    if (times > 0 || idsBefore.has(block.id)) {
      let n = Math.max(1, times);
      while (idsBefore.has(`${block.id}__dup${n}`)) n += 1;
      id = `${block.id}__dup${n}`;
      const where = repeatedInTurn ? { duplicatedInMessage: true } : { reusedFromEarlierTurn: true };
      note = { refusal: { code: 'IDEMPOTENCY_KEY_REUSED', details: { toolUseId: block.id, ...where } }, modelId: block.id };
    } else if (block.truncated) {
      note = { refusal: { code: 'TOOL_INPUT_TRUNCATED', details: { stopReason } } };
    } else if (!object) {
      note = { refusal: { code: 'INVALID_TOOL_INPUT', details: { problems: [{ path: '/', problem: 'must be a JSON object' }] } } };
    }
    idsBefore.add(id);
    if (note && !object) note.rawInput = block.input;
    return { type: 'tool_use', id, name: block.name, input, ...(note ? { toolgate: note } : {}) };
  });
}

/** The id the model gave a stored tool_use (its key differs where the id was a repeat). */
const modelIdOf = (block: StoredBlock): string => {
  const note = block.toolgate;
  return note && 'refusal' in note && note.modelId ? note.modelId : String(block.id);
};
