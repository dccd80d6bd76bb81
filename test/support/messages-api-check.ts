/**
 * What the Messages API refuses in a request's conversation, as the scripted model checks
 * it: roles alternate from a user message; every tool_use id is unique in the request and
 * its input a JSON object; each assistant message's tool_uses are answered, each by exactly
 * one tool_result, at the start of the next user message, and no tool_result answers
 * anything else; blocks carry only the API's own fields (no notes of the caller's); text
 * blocks hold non-whitespace text; every message has content, except a final assistant
 * message (a prefill), which ends without trailing whitespace; thinking blocks appear only in assistant messages. That thinking
 * blocks come back unchanged needs what the model sent: `ThinkingLedger` checks it. Each
 * problem is one sentence naming where it is.
 *
 * Beside the conversation, the request's other fields as the API takes them: only its own
 * top-level fields; `system` a string or text blocks; `tools` with a name and an input
 * schema; `metadata` only `user_id` (a string of at most 256 characters); `thinking` enabled
 * with `budget_tokens` from 1024 and below `max_tokens` (and then the assistant message
 * that last asked for tools, in the tool loop the request continues, must start with a
 * thinking block); `cache_control` only `{ type: 'ephemeral', ttl?: '5m' | '1h' }`, only
 * where the API allows it (never on a thinking block), and at most 4 breakpoints in all.
 */
const TOP_LEVEL = [
  'model',
  'max_tokens',
  'messages',
  'system',
  'tools',
  'tool_choice',
  'metadata',
  'thinking',
  'stream',
  'stop_sequences',
  'temperature',
  'top_k',
  'top_p',
  'service_tier',
];
const MAX_CACHE_BREAKPOINTS = 4;
const THINKING_BUDGET_MIN = 1024;
const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;
const FIELDS: Record<string, readonly string[]> = {
  text: ['type', 'text', 'cache_control', 'citations'],
  tool_use: ['type', 'id', 'name', 'input', 'cache_control'],
  tool_result: ['type', 'tool_use_id', 'content', 'is_error', 'cache_control'],
  thinking: ['type', 'thinking', 'signature'],
  redacted_thinking: ['type', 'data'],
};

type Block = Record<string, unknown>;
const isObject = (value: unknown): value is Block => typeof value === 'object' && value !== null && !Array.isArray(value);

export function conversationProblems(body: unknown): string[] {
  const problems: string[] = [];
  if (!isObject(body)) return ['the body is not a JSON object'];
  if (typeof body.model !== 'string' || body.model === '') problems.push('model: missing');
  if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens) || body.max_tokens < 1)
    problems.push('max_tokens: not a positive integer');
  problems.push(...requestFieldProblems(body));
  if (!Array.isArray(body.messages) || body.messages.length === 0) return [...problems, 'messages: not a non-empty list'];
  const messages = body.messages as unknown[];
  const seen = new Set<string>();
  for (const [i, message] of messages.entries()) {
    const at = `messages.${i}`;
    if (!isObject(message)) {
      problems.push(`${at}: not an object`);
      continue;
    }
    const expected = i % 2 === 0 ? 'user' : 'assistant';
    if (message.role !== expected) problems.push(`${at}.role: ${String(message.role)} where ${expected} must follow`);
    const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    const finalAssistant = i === messages.length - 1 && message.role === 'assistant';
    if (!Array.isArray(blocks) || (blocks.length === 0 && !finalAssistant)) {
      problems.push(`${at}.content: not a non-empty list`);
      continue;
    }
    for (const [j, block] of blocks.entries()) problems.push(...blockProblems(block, `${at}.content.${j}`, message.role === 'assistant', seen));
    problems.push(...answerProblems(messages, i));
  }
  const last = messages.at(-1);
  const tail = isObject(last) && last.role === 'assistant' && Array.isArray(last.content) ? last.content.at(-1) : undefined;
  if (isObject(tail) && tail.type === 'text' && typeof tail.text === 'string' && tail.text !== tail.text.trimEnd())
    problems.push(`messages.${messages.length - 1}: final assistant content cannot end with trailing whitespace`);
  if (isObject(last) && Array.isArray(last.content) && last.content.some((b) => isObject(b) && b.type === 'tool_use')) {
    problems.push(`messages.${messages.length - 1}: its tool_use blocks have no tool_result message after them`);
  }
  if (isObject(body.thinking) && body.thinking.type === 'enabled') problems.push(...thinkingLoopProblems(messages));
  return problems;
}

/** Everything but the messages: top-level fields, system, tools, metadata, thinking, and the breakpoints of the whole request. */
function requestFieldProblems(body: Block): string[] {
  const problems = Object.keys(body)
    .filter((key) => !TOP_LEVEL.includes(key))
    .map((key) => `${key}: Extra inputs are not permitted`);
  if (body.system !== undefined && typeof body.system !== 'string') {
    if (!Array.isArray(body.system)) problems.push('system: not a string or a list of text blocks');
    else
      for (const [i, block] of body.system.entries()) {
        if (!isObject(block) || block.type !== 'text') problems.push(`system.${i}: not a text block`);
        else problems.push(...blockProblems(block, `system.${i}`, false, new Set()));
      }
  }
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) problems.push('tools: not a list');
    else
      for (const [i, tool] of body.tools.entries()) {
        if (!isObject(tool)) {
          problems.push(`tools.${i}: not an object`);
          continue;
        }
        for (const key of Object.keys(tool))
          if (!['name', 'description', 'input_schema', 'cache_control', 'type'].includes(key))
            problems.push(`tools.${i}.${key}: Extra inputs are not permitted`);
        if (typeof tool.name !== 'string' || !/^[a-zA-Z0-9_-]{1,128}$/.test(tool.name)) problems.push(`tools.${i}.name: not a tool name`);
        if (!isObject(tool.input_schema) || tool.input_schema.type !== 'object') problems.push(`tools.${i}.input_schema: not an object schema`);
        if (tool.cache_control !== undefined) problems.push(...cacheControlProblems(tool.cache_control, `tools.${i}.cache_control`));
      }
  }
  if (body.metadata !== undefined) {
    if (!isObject(body.metadata)) problems.push('metadata: not an object');
    else {
      for (const key of Object.keys(body.metadata)) if (key !== 'user_id') problems.push(`metadata.${key}: Extra inputs are not permitted`);
      const id = body.metadata.user_id;
      if (id !== undefined && id !== null && (typeof id !== 'string' || id.length > 256))
        problems.push('metadata.user_id: not a string of at most 256 characters');
    }
  }
  if (body.thinking !== undefined) {
    const thinking = body.thinking;
    if (!isObject(thinking) || (thinking.type !== 'enabled' && thinking.type !== 'disabled')) problems.push('thinking: not enabled or disabled');
    else if (thinking.type === 'enabled') {
      const budget = thinking.budget_tokens;
      if (typeof budget !== 'number' || !Number.isInteger(budget) || budget < THINKING_BUDGET_MIN)
        problems.push(`thinking.budget_tokens: Input should be greater than or equal to ${THINKING_BUDGET_MIN}`);
      else if (typeof body.max_tokens === 'number' && budget >= body.max_tokens)
        problems.push('max_tokens: must be greater than thinking.budget_tokens');
    }
  }
  const breakpoints = cacheBreakpoints(body);
  if (breakpoints > MAX_CACHE_BREAKPOINTS)
    problems.push(`A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints}.`);
  return problems;
}

function cacheControlProblems(value: unknown, at: string): string[] {
  if (!isObject(value) || value.type !== 'ephemeral') return [`${at}: not { type: 'ephemeral' }`];
  const extra = Object.keys(value).filter((key) => key !== 'type' && key !== 'ttl');
  if (extra.length > 0) return [`${at}.${extra[0]}: Extra inputs are not permitted`];
  if (value.ttl !== undefined && value.ttl !== '5m' && value.ttl !== '1h') return [`${at}.ttl: not 5m or 1h`];
  return [];
}

/** Blocks of the request that carry cache_control: tools, system blocks and message blocks. */
function cacheBreakpoints(body: Block): number {
  const marked = (list: unknown): number => (Array.isArray(list) ? list.filter((b) => isObject(b) && b.cache_control !== undefined).length : 0);
  const messages = Array.isArray(body.messages) ? body.messages : [];
  return marked(body.tools) + marked(body.system) + messages.reduce((n: number, m) => n + (isObject(m) ? marked(m.content) : 0), 0);
}

/**
 * With thinking enabled, the assistant message that last asked for tools in the tool loop
 * this request continues (the messages after the last user message that is not only tool
 * results) must start with its thinking block, as the model sent it.
 */
function thinkingLoopProblems(messages: unknown[]): string[] {
  const onlyResults = (m: Block): boolean =>
    Array.isArray(m.content) && m.content.length > 0 && m.content.every((b) => isObject(b) && b.type === 'tool_result');
  let start = 0;
  for (const [i, m] of messages.entries()) if (isObject(m) && m.role === 'user' && !onlyResults(m)) start = i + 1;
  for (let i = messages.length - 1; i >= start; i--) {
    const m = messages[i];
    if (!isObject(m) || m.role !== 'assistant' || !Array.isArray(m.content)) continue;
    if (!m.content.some((b) => isObject(b) && b.type === 'tool_use')) continue;
    const first = m.content[0];
    if (!isObject(first) || (first.type !== 'thinking' && first.type !== 'redacted_thinking'))
      return [
        `messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(isObject(first) ? first.type : first)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block`,
      ];
    return [];
  }
  return [];
}

function blockProblems(block: unknown, at: string, assistant: boolean, seen: Set<string>): string[] {
  if (!isObject(block) || typeof block.type !== 'string') return [`${at}: a block without a type`];
  const allowed = FIELDS[block.type];
  if (!allowed) return [`${at}: unexpected block type ${block.type}`];
  const problems = Object.keys(block)
    .filter((key) => !allowed.includes(key))
    .map((key) => `${at}.${key}: not a field of a ${block.type} block`);
  if (block.cache_control !== undefined && allowed.includes('cache_control'))
    problems.push(...cacheControlProblems(block.cache_control, `${at}.cache_control`));
  if (block.cache_control !== undefined && block.type === 'text' && typeof block.text === 'string' && block.text === '')
    problems.push(`${at}: cache_control cannot be set for empty text blocks`);
  if (block.type === 'text' && (typeof block.text !== 'string' || block.text.trim() === ''))
    problems.push(`${at}: text content blocks must contain non-whitespace text`);
  if ((block.type === 'thinking' || block.type === 'redacted_thinking') && !assistant) problems.push(`${at}: ${block.type} in a user message`);
  if (block.type === 'tool_use') {
    if (!assistant) problems.push(`${at}: tool_use in a user message`);
    const id = block.id;
    if (typeof id !== 'string' || !TOOL_USE_ID.test(id)) problems.push(`${at}.id: ${JSON.stringify(id)} is not a tool_use id`);
    else if (seen.has(id)) problems.push(`${at}.id: tool_use ids must be unique (${id})`);
    else seen.add(id);
    if (typeof block.name !== 'string' || block.name === '') problems.push(`${at}.name: missing`);
    if (!isObject(block.input)) problems.push(`${at}.input: Input should be a valid dictionary (${JSON.stringify(block.input)})`);
  }
  if (block.type === 'tool_result') {
    if (assistant) problems.push(`${at}: tool_result in an assistant message`);
    if (typeof block.content !== 'string' && !Array.isArray(block.content) && block.content !== undefined)
      problems.push(`${at}.content: not text or blocks`);
    if (block.is_error !== undefined && typeof block.is_error !== 'boolean') problems.push(`${at}.is_error: not a boolean`);
  }
  return problems;
}

/** A user message's tool_results against the tool_uses of the assistant message before it. */
function answerProblems(messages: unknown[], i: number): string[] {
  const message = messages[i] as Block;
  if (message.role !== 'user') return [];
  const blocks = Array.isArray(message.content) ? (message.content as Block[]) : [];
  const previous = i > 0 && isObject(messages[i - 1]) ? (messages[i - 1] as Block) : null;
  const asked = Array.isArray(previous?.content) ? (previous.content as Block[]).filter((b) => b?.type === 'tool_use').map((b) => String(b.id)) : [];
  const problems: string[] = [];
  const answered = new Map<string, number>();
  let resultsEnded = false;
  for (const [j, block] of blocks.entries()) {
    if (block?.type !== 'tool_result') {
      resultsEnded = true;
      continue;
    }
    if (resultsEnded) problems.push(`messages.${i}.content.${j}: tool_result blocks must come first in the message`);
    const id = String(block.tool_use_id);
    answered.set(id, (answered.get(id) ?? 0) + 1);
    if (!asked.includes(id)) problems.push(`messages.${i}.content.${j}: tool_result for ${id}, which the previous message did not ask for`);
  }
  for (const id of new Set(asked)) {
    const count = answered.get(id) ?? 0;
    if (count !== 1) problems.push(`messages.${i}: tool_use ${id} has ${count} tool_result blocks (exactly one must follow it)`);
  }
  return problems;
}

/**
 * The thinking blocks the model streamed, exactly as it sent them: a request may carry a
 * thinking or redacted_thinking block only if it is one of these, byte for byte (the API
 * verifies each block's signature and refuses one that was changed).
 */
export class ThinkingLedger {
  private readonly sent = new Set<string>();

  /** Records the thinking blocks a scripted turn streams (frames as scripted-turn.ts builds them). */
  record(frames: readonly { event: string; data: unknown }[]): void {
    const open = new Map<number, Block>();
    for (const { data } of frames) {
      if (!isObject(data)) continue;
      const index = Number(data.index);
      if (data.type === 'content_block_start' && isObject(data.content_block)) {
        const block = data.content_block;
        if (block.type === 'thinking') open.set(index, { type: 'thinking', thinking: '', signature: '' });
        if (block.type === 'redacted_thinking') this.sent.add(JSON.stringify({ type: 'redacted_thinking', data: block.data }));
      }
      const block = open.get(index);
      if (data.type === 'content_block_delta' && block && isObject(data.delta)) {
        if (data.delta.type === 'thinking_delta') block.thinking = String(block.thinking) + String(data.delta.thinking);
        if (data.delta.type === 'signature_delta') block.signature = String(block.signature) + String(data.delta.signature);
      }
      if (data.type === 'content_block_stop' && block) {
        this.sent.add(JSON.stringify({ type: 'thinking', thinking: block.thinking, signature: block.signature }));
        open.delete(index);
      }
    }
  }

  /** Thinking blocks of a request that the model never sent as they are. */
  problems(body: unknown): string[] {
    if (!isObject(body) || !Array.isArray(body.messages)) return [];
    const problems: string[] = [];
    for (const [i, message] of body.messages.entries()) {
      if (!isObject(message) || !Array.isArray(message.content)) continue;
      for (const [j, block] of message.content.entries()) {
        if (!isObject(block) || (block.type !== 'thinking' && block.type !== 'redacted_thinking')) continue;
        const canonical =
          block.type === 'thinking'
            ? JSON.stringify({ type: 'thinking', thinking: block.thinking, signature: block.signature })
            : JSON.stringify({ type: 'redacted_thinking', data: block.data });
        if (!this.sent.has(canonical)) problems.push(`messages.${i}.content.${j}: ${block.type} block was changed (its signature no longer holds)`);
      }
    }
    return problems;
  }

  clear(): void {
    this.sent.clear();
  }
}
