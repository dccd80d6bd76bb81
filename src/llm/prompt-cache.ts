import { createHash } from 'node:crypto';
import type { Anthropic } from '@anthropic-ai/sdk';
import type { ModelTool } from './tool-definitions';

/**
 * Prompt caching (issue 28, item 5). Every request marks three `cache_control` breakpoints
 * (the API allows four): the last tool definition (the tools are cached), the system prompt
 * (sent as one text block: tools and system are cached together), and the last block of the
 * last message (the conversation so far). The next turn repeats that prefix and adds to it,
 * so the API reads it from the cache (0.1× the input price) and writes only what is new
 * (1.25×). The API looks back up to 20 blocks from a breakpoint for an earlier one, and a
 * turn adds far fewer. A prefix under the model's minimum (1024 tokens for Sonnet) is not
 * cached, and costs what it would without a breakpoint.
 */
const EPHEMERAL: Anthropic.CacheControlEphemeral = { type: 'ephemeral' };

/** The tool definitions, the last one marked. */
export function cachedTools(tools: readonly ModelTool[]): ModelTool[] {
  return tools.map((tool, i) => (i === tools.length - 1 ? { ...tool, cache_control: EPHEMERAL } : tool));
}

/** The system prompt as one marked text block; none when blank (the API refuses a blank text block, marked or not). */
export const cachedSystem = (system: string): Anthropic.TextBlockParam[] | undefined =>
  system.trim() === '' ? undefined : [{ type: 'text', text: system, cache_control: EPHEMERAL }];

/** Blocks that may carry `cache_control` (thinking blocks may not: they are cached as part of the message around them). */
const MARKABLE = new Set(['text', 'tool_use', 'tool_result']);

/** A message as Toolgate sends it: its content always a list of blocks. */
export interface RequestMessage {
  role: 'user' | 'assistant';
  content: Anthropic.ContentBlockParam[];
}

/** The messages, the last markable block of the last message marked (the growing conversation prefix). */
export function cachedMessages(messages: RequestMessage[]): RequestMessage[] {
  const last = messages.at(-1);
  if (!last) return messages;
  let at = last.content.length - 1;
  while (at >= 0 && !MARKABLE.has(last.content[at].type)) at -= 1;
  if (at < 0) return messages;
  const content = last.content.map((block, i) => (i === at ? ({ ...block, cache_control: EPHEMERAL } as Anthropic.ContentBlockParam) : block));
  return [...messages.slice(0, -1), { role: last.role, content }];
}

/**
 * `metadata.user_id`: an opaque id of the run, the same on each of its requests (so Anthropic
 * can tell one conversation's abuse from another's), never an email or the run's own id.
 */
export const requestUserId = (orgId: string, runId: string): string =>
  createHash('sha256').update(`toolgate-run\u0000${orgId}\u0000${runId}`).digest('hex').slice(0, 32);
