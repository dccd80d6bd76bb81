import { randomBytes } from 'node:crypto';

/**
 * One model turn as the Messages API streams it, built event by event: the frames a test
 * scripts for the scripted model server (scripted-model.ts). Every frame is what the real
 * API sends (`event: <type>` + its JSON), so the real SDK consumes them unchanged; hostile
 * turns (input cut off at max_tokens, a non-object input, an error mid-stream) are the
 * same frames, stopped or shaped where the real API can stop or shape them.
 */
export interface SseFrame {
  event: string;
  data: unknown;
}

/**
 * Not a frame of the API: where the scripted server stops writing and holds the response
 * open (a stream gone silent), until the client gives up or the server stops.
 */
export const STALL_EVENT = 'toolgate-test-stall';

export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal';

export const toolUseId = (): string => `toolu_${randomBytes(12).toString('hex')}`;

/** A string cut into `pieces` consecutive parts (the last may be shorter); joined they give it back. */
export function pieces(text: string, count: number): string[] {
  if (text.length === 0) return [];
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, count)));
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
  return parts;
}

export class TurnBuilder {
  private readonly frames: SseFrame[] = [];
  private index = 0;
  private outputTokens = 0;

  /** `cacheCreationInputTokens` / `cacheReadInputTokens`: the prompt-cache usage message_start reports, as the API does when they apply. */
  constructor(options: { model?: string; inputTokens?: number; cacheCreationInputTokens?: number; cacheReadInputTokens?: number } = {}) {
    const cache =
      options.cacheCreationInputTokens === undefined && options.cacheReadInputTokens === undefined
        ? {}
        : { cache_creation_input_tokens: options.cacheCreationInputTokens ?? 0, cache_read_input_tokens: options.cacheReadInputTokens ?? 0 };
    this.push('message_start', {
      type: 'message_start',
      message: {
        id: `msg_${randomBytes(12).toString('hex')}`,
        type: 'message',
        role: 'assistant',
        model: options.model ?? 'claude-scripted-1',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: options.inputTokens ?? 10, output_tokens: 1, ...cache },
      },
    });
  }

  /** A text block, streamed in `count` text_delta pieces. `open`: no content_block_stop (the stream ends inside the block). */
  text(text: string, count = 3, open = false): this {
    return this.block(
      { type: 'text', text: '' },
      pieces(text, count).map((t) => ({ type: 'text_delta', text: t })),
      !open,
    );
  }

  /** A thinking block: thinking_delta pieces, then its signature_delta. */
  thinking(thinking: string, signature = 'c2lnbmF0dXJl', count = 2): this {
    const deltas: unknown[] = pieces(thinking, count).map((t) => ({ type: 'thinking_delta', thinking: t }));
    return this.block({ type: 'thinking', thinking: '', signature: '' }, [...deltas, { type: 'signature_delta', signature }]);
  }

  /** A redacted_thinking block: whole in its start event, no deltas. */
  redactedThinking(data = 'ZW5jcnlwdGVk'): this {
    return this.block({ type: 'redacted_thinking', data }, []);
  }

  /**
   * A tool_use block whose input streams as input_json_delta pieces: `input` serialized, or
   * `json` as given (cut off, or not an object). `open`: no content_block_stop (the stream
   * ends inside the block).
   */
  toolUse(block: { id?: string; name: string; input?: unknown; json?: string; count?: number; open?: boolean }): this {
    const json = block.json ?? JSON.stringify(block.input ?? {});
    const deltas = pieces(json, block.count ?? 3).map((partial_json) => ({ type: 'input_json_delta', partial_json }));
    return this.block({ type: 'tool_use', id: block.id ?? toolUseId(), name: block.name, input: {} }, deltas, !block.open);
  }

  ping(): this {
    return this.push('ping', { type: 'ping' });
  }

  /** An `event: error` frame (as the API sends mid-stream, e.g. overloaded_error); the stream ends there. */
  error(type = 'overloaded_error', message = 'Overloaded'): SseFrame[] {
    this.push('error', { type: 'error', error: { type, message } });
    return this.frames;
  }

  /** The stream goes silent here: no further frame, the response held open (the frames so far are sent). */
  stall(): SseFrame[] {
    this.push(STALL_EVENT, null);
    return this.frames;
  }

  /**
   * message_delta with the stop reason and message_stop: the turn's frames. `stopDetails`:
   * what the API sends beside a refusal (`{ type: 'refusal', category, explanation }`).
   */
  stop(reason: StopReason | null, outputTokens = this.outputTokens || 1, stopDetails?: Record<string, unknown>): SseFrame[] {
    this.push('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: reason, stop_sequence: null, ...(stopDetails ? { stop_details: stopDetails } : {}) },
      usage: { output_tokens: outputTokens },
    });
    this.push('message_stop', { type: 'message_stop' });
    return this.frames;
  }

  private block(start: Record<string, unknown>, deltas: unknown[], close = true): this {
    const index = this.index++;
    this.push('content_block_start', { type: 'content_block_start', index, content_block: start });
    if (index === 0) this.ping(); // where the API sends its first ping
    for (const delta of deltas) {
      this.outputTokens += 1;
      this.push('content_block_delta', { type: 'content_block_delta', index, delta });
    }
    if (close) this.push('content_block_stop', { type: 'content_block_stop', index });
    return this;
  }

  private push(event: string, data: unknown): this {
    this.frames.push({ event, data });
    return this;
  }
}

export const turn = (options?: ConstructorParameters<typeof TurnBuilder>[0]) => new TurnBuilder(options);
