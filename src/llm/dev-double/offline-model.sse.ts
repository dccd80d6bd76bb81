import type { ServerResponse } from 'node:http';
import type { ContentBlock, MessageResponse } from './offline-model.types';

/**
 * Server-sent events in the Anthropic Messages streaming format: every frame is
 * `event: <name>\ndata: <json>\n\n` (the SDK skips frames without an `event:` line).
 */
export function sseFrame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Text cut into chunks of a few words; concatenated they give the text back exactly. */
export function textChunks(text: string, wordsPerChunk = 3): string[] {
  const words = text.match(/\S+\s*/g);
  if (!words) return text === '' ? [] : [text];
  const leading = text.slice(0, text.length - words.join('').length);
  const chunks: string[] = [];
  for (let i = 0; i < words.length; i += wordsPerChunk) chunks.push(words.slice(i, i + wordsPerChunk).join(''));
  chunks[0] = leading + chunks[0];
  return chunks;
}

/** Serialized tool input cut into at least two pieces (the SDK concatenates and parses them). */
export function jsonChunks(json: string, pieces = 3): string[] {
  if (json.length < 2) return [json];
  const size = Math.max(1, Math.ceil(json.length / Math.max(2, pieces)));
  const chunks: string[] = [];
  for (let i = 0; i < json.length; i += size) chunks.push(json.slice(i, i + size));
  return chunks;
}

/** Every frame of one streamed message, in order (the ping after the first block start). */
export function messageFrames(message: MessageResponse, wordsPerDelta = 3): { event: string; data: unknown; textDelta: boolean }[] {
  const frames: { event: string; data: unknown; textDelta: boolean }[] = [];
  const push = (event: string, data: unknown, textDelta = false) => frames.push({ event, data, textDelta });
  push('message_start', {
    type: 'message_start',
    message: {
      ...message,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: message.usage.input_tokens, output_tokens: 1 },
    },
  });
  message.content.forEach((block: ContentBlock, index) => {
    if (block.type === 'text') {
      push('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      if (index === 0) push('ping', { type: 'ping' });
      for (const text of textChunks(block.text, wordsPerDelta)) {
        push('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text } }, true);
      }
    } else {
      push('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      });
      if (index === 0) push('ping', { type: 'ping' });
      for (const partial_json of jsonChunks(JSON.stringify(block.input))) {
        push('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } });
      }
    }
    push('content_block_stop', { type: 'content_block_stop', index });
  });
  if (message.content.length === 0) push('ping', { type: 'ping' });
  push('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: message.usage.output_tokens },
  });
  push('message_stop', { type: 'message_stop' });
  return frames;
}

/**
 * Writes a whole message as an SSE stream, pausing `deltaDelayMs` after each text delta.
 * Stops quietly when the client goes away.
 */
export async function writeMessageStream(
  res: ServerResponse,
  message: MessageResponse,
  options: { deltaDelayMs?: number; wordsPerDelta?: number; headers?: Record<string, string> } = {},
): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    ...(options.headers ?? {}),
  });
  const delay = options.deltaDelayMs ?? 0;
  for (const frame of messageFrames(message, options.wordsPerDelta)) {
    if (res.destroyed || res.writableEnded) return;
    res.write(sseFrame(frame.event, frame.data));
    if (frame.textDelta && delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
  }
  if (!res.destroyed && !res.writableEnded) res.end();
}
