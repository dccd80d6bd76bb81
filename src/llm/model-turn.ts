import { APIError, type Anthropic } from '@anthropic-ai/sdk';
import type { Clock } from '../support/clock';
import { cachedMessages, cachedSystem, cachedTools, type RequestMessage } from './prompt-cache';
import { isThinkingBlock, thinkingRequest } from './thinking';
import type { ModelTool } from './tool-definitions';

/** A stored conversation block (run_messages.content): what the model saw or said, plus Toolgate's notes. */
export type StoredBlock = Record<string, unknown> & { type: string };

/**
 * What the model said in one turn. `truncated`: the turn stopped (max_tokens) while this
 * tool_use was being written, or its streamed input is not complete JSON: `input` is only
 * the SDK's partial parse of it.
 */
export type ReplyBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown; truncated: boolean }
  | ThinkingReplyBlock;

/** Thinking as the model sent it: stored and sent back exactly so (the API checks the signature). */
export type ThinkingReplyBlock = { type: 'thinking'; thinking: string; signature: string } | { type: 'redacted_thinking'; data: string };

export interface ModelTurn {
  model: string;
  /** The answer's room (ANTHROPIC_MAX_TOKENS); a thinking budget is added to it. */
  maxTokens: number;
  /** The run's thinking budget (null: no thinking). */
  thinkingBudgetTokens: number | null;
  /** The opaque per-run `metadata.user_id`. */
  userId: string;
  system: string;
  tools: ModelTool[];
  messages: { role: 'user' | 'assistant'; content: StoredBlock[] }[];
  signal: AbortSignal;
  /** Each text delta, as it streams. */
  onText(delta: string): void;
  /** Once the response began, no stream event for this long aborts the stream as stalled (a ModelStreamFailure). */
  idleTimeoutMs: number;
  /** Where the idle timer runs (tests move a manual clock). */
  clock: Clock;
}

/**
 * A turn whose stream failed after its response began (never one the caller aborted, nor
 * an HTTP error answer, which the SDK already retried): an `error` event mid-stream
 * (`kind` 'error', `errorType` the API's, e.g. overloaded_error), no event for the idle
 * timeout ('stalled'), or the stream lost otherwise ('interrupted'). `toolUseStarted`: a
 * tool_use block had begun streaming before it failed.
 */
export class ModelStreamFailure extends Error {
  constructor(
    readonly kind: 'error' | 'stalled' | 'interrupted',
    readonly errorType: string | null,
    readonly toolUseStarted: boolean,
    cause: unknown,
  ) {
    super(`the model stream ${kind === 'error' ? `sent an error event (${errorType})` : kind}`, { cause });
    this.name = 'ModelStreamFailure';
  }
}

/** A turn's tokens: `input_tokens` are those after the last cache breakpoint, the cache's are apart. */
export interface TurnUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export interface TurnReply {
  content: ReplyBlock[];
  stopReason: string | null;
  /** With stop_reason refusal: the category and explanation the API gives (either may be null). */
  refusal: { category: string | null; explanation: string | null } | null;
  /** As the API counts it: output_tokens include the thinking tokens (billed as output). */
  usage: TurnUsage;
  /** From the request to the first streamed content (text or tool input); null when none came. */
  firstTokenMs: number | null;
}

/**
 * Layer 1: one streamed turn of the Messages API through the real SDK (Claude, any
 * compatible endpoint, or the offline development double). Errors are the SDK's.
 */
export async function streamTurn(client: Anthropic, turn: ModelTurn): Promise<TurnReply> {
  const stream = client.messages.stream(
    {
      model: turn.model,
      ...thinkingRequest(turn.maxTokens, turn.thinkingBudgetTokens),
      system: cachedSystem(turn.system),
      tools: cachedTools(turn.tools),
      messages: cachedMessages(requestMessages(turn.messages)),
      metadata: { user_id: turn.userId },
    },
    { signal: turn.signal },
  );
  const begun = performance.now();
  let firstTokenMs: number | null = null;
  // Per block index: the tool input as streamed, and whether the block was closed.
  const inputJson = new Map<number, string>();
  const closed = new Set<number>();
  // The idle timer runs from the response's headers to its end, reset by every event.
  let connected = false;
  let stalled = false;
  let toolUseStarted = false;
  let cancelIdle = (): void => undefined;
  const idle = (): void => {
    cancelIdle();
    cancelIdle = turn.clock.after(turn.idleTimeoutMs, () => {
      stalled = true;
      stream.abort();
    });
  };
  stream.on('connect', () => {
    connected = true;
    idle();
  });
  stream.on('streamEvent', (event) => {
    idle();
    if (event.type === 'content_block_start' && event.content_block.type === 'tool_use') toolUseStarted = true;
    if (event.type === 'content_block_delta') {
      // Thinking is not what the customer sees first: the first token is text or tool input.
      const shown = event.delta.type === 'text_delta' || event.delta.type === 'input_json_delta';
      if (shown && firstTokenMs === null) firstTokenMs = performance.now() - begun;
      if (event.delta.type === 'input_json_delta') inputJson.set(event.index, (inputJson.get(event.index) ?? '') + event.delta.partial_json);
    }
    if (event.type === 'content_block_stop') closed.add(event.index);
  });
  stream.on('text', (delta) => turn.onText(delta));
  let reply: Anthropic.Message;
  try {
    reply = await stream.finalMessage();
  } catch (error) {
    if (stalled) throw new ModelStreamFailure('stalled', null, toolUseStarted, error);
    if (connected && !turn.signal.aborted) {
      const type = error instanceof APIError && error.status === undefined ? error.type : null;
      throw new ModelStreamFailure(type ? 'error' : 'interrupted', type, toolUseStarted, error);
    }
    throw error;
  } finally {
    cancelIdle();
  }
  const last = reply.content.length - 1;
  return {
    content: reply.content.flatMap((block, index): ReplyBlock[] => {
      if (block.type === 'text') return [{ type: 'text', text: block.text }];
      // Kept whole, signature included: the API needs them back unchanged with the tool results.
      if (block.type === 'thinking') return [{ type: 'thinking', thinking: block.thinking, signature: block.signature }];
      if (block.type === 'redacted_thinking') return [{ type: 'redacted_thinking', data: block.data }];
      if (block.type === 'tool_use') {
        // The API closes the block it was writing when it hits max_tokens, so the stop reason tells.
        const truncated = (reply.stop_reason === 'max_tokens' && index === last) || !closed.has(index) || !completeJson(inputJson.get(index));
        return [{ type: 'tool_use', id: block.id, name: block.name, input: block.input, truncated }];
      }
      return []; // server-tool blocks are not part of Toolgate's conversation
    }),
    stopReason: reply.stop_reason,
    refusal:
      reply.stop_reason === 'refusal'
        ? { category: reply.stop_details?.category ?? null, explanation: reply.stop_details?.explanation ?? null }
        : null,
    usage: {
      input_tokens: reply.usage.input_tokens,
      output_tokens: reply.usage.output_tokens,
      cache_creation_input_tokens: reply.usage.cache_creation_input_tokens ?? 0,
      cache_read_input_tokens: reply.usage.cache_read_input_tokens ?? 0,
    },
    firstTokenMs,
  };
}

/**
 * The stored conversation as the API takes it: text blocks without visible text dropped (the
 * API refuses them, and a model may stream one, e.g. "\n\n" before a tool_use), messages
 * left without content (or with thinking only) dropped (an empty answer), consecutive messages of one role merged,
 * and a final assistant message (a paused turn sent back to continue) without trailing
 * whitespace, which the API refuses there.
 */
function requestMessages(messages: ModelTurn['messages']): RequestMessage[] {
  const kept = messages
    .map((m) => ({ role: m.role, content: m.content.filter((b) => b.type !== 'text' || String(b.text ?? '').trim() !== '') }))
    // A turn of thinking alone answered nothing (an empty answer): it is not sent back either.
    .filter((m) => m.content.some((b) => !isThinkingBlock(b)));
  const params = sameRoleMerged(kept).map((m) => ({ role: m.role, content: m.content.map(toBlockParam) }));
  const last = params.at(-1);
  const tail = last?.role === 'assistant' ? last.content.at(-1) : undefined;
  if (tail && typeof tail !== 'string' && tail.type === 'text') tail.text = tail.text.trimEnd();
  return params;
}

/**
 * Consecutive messages of one role as one (as the API itself reads them): a message posted
 * after a stored tool_result message then follows those results in one user turn.
 */
function sameRoleMerged(messages: ModelTurn['messages']): ModelTurn['messages'] {
  const merged: ModelTurn['messages'] = [];
  for (const message of messages) {
    const previous = merged.at(-1);
    if (previous?.role === message.role) previous.content = [...previous.content, ...message.content];
    else merged.push({ role: message.role, content: message.content });
  }
  return merged;
}

/** A stored block as the Messages API takes it (Toolgate's own notes are not sent). */
function toBlockParam(block: StoredBlock): Anthropic.ContentBlockParam {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: String(block.text ?? '') };
    case 'tool_use':
      // The API takes only an object: input that was none was refused, and is sent as {}.
      return { type: 'tool_use', id: String(block.id), name: String(block.name), input: isJsonObject(block.input) ? block.input : {} };
    // Exactly as the model sent them, in their place (first in a turn that used tools).
    case 'thinking':
      return { type: 'thinking', thinking: String(block.thinking), signature: String(block.signature) };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: String(block.data) };
    case 'tool_result':
      return {
        type: 'tool_result',
        tool_use_id: String(block.tool_use_id),
        content: String(block.content ?? ''),
        ...(block.is_error === true ? { is_error: true } : {}),
      };
    default:
      throw new Error(`a stored message block of unknown type ${block.type}`);
  }
}

/** Streamed tool input that parses whole (none at all is the empty input `{}`). */
function completeJson(json: string | undefined): boolean {
  if (json === undefined || json.trim() === '') return true;
  try {
    JSON.parse(json);
    return true;
  } catch {
    return false;
  }
}

export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
