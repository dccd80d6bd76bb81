import { createHash } from 'node:crypto';

/**
 * Anthropic's prompt-cache accounting, applied to the request bodies Toolgate really sends,
 * so the scripted model can report usage as the API would (issue 28, item 5). Per the
 * prompt-caching docs: the prefix is tools, then system, then messages, block by block; a
 * `cache_control` block ends a cacheable prefix; a request reads the longest prefix an
 * earlier request cached (at one of its breakpoints, or up to 20 blocks before its last one),
 * writes the prefix from there up to its last breakpoint, and pays the rest as plain input.
 * A prefix under the model's minimum (1024 tokens for Sonnet) is never cached.
 *
 * Token counts are estimated at a fixed 4 characters a token, from each block's JSON without
 * its cache mark: a measurement of relative cost, not of any tokenizer.
 */
export const CHARS_PER_TOKEN = 4;
const MIN_CACHEABLE_TOKENS = 1024;
const LOOKBACK_BLOCKS = 20;

export interface CacheUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

interface Segment {
  tokens: number;
  marked: boolean;
  /** The prefix up to and including this segment, hashed. */
  prefix: string;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The request's prefix, block by block, in the order the cache reads it. */
export function segments(body: Json): Segment[] {
  const parts: { value: unknown; marked: boolean }[] = [];
  const add = (value: unknown) => {
    const marked = isObject(value) && value.cache_control !== undefined;
    const { cache_control: _mark, ...rest } = isObject(value) ? value : { value };
    parts.push({ value: rest, marked });
  };
  for (const tool of Array.isArray(body.tools) ? body.tools : []) add(tool);
  if (typeof body.system === 'string') add({ type: 'text', text: body.system });
  else for (const block of Array.isArray(body.system) ? body.system : []) add(block);
  for (const message of Array.isArray(body.messages) ? body.messages : []) {
    if (!isObject(message)) continue;
    const content = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : (message.content as unknown[]);
    // The role is part of what is cached: it counts with the message's first block.
    for (const [i, block] of content.entries()) add(i === 0 ? { role: message.role, ...(block as Json) } : block);
  }
  const hash = createHash('sha256');
  return parts.map(({ value, marked }) => {
    const text = JSON.stringify(value);
    hash.update(text);
    return { tokens: Math.ceil(text.length / CHARS_PER_TOKEN), marked, prefix: hash.copy().digest('hex') };
  });
}

/** All of a request's input tokens at full price: what it costs with no breakpoints. */
export function uncachedUsage(body: Json): CacheUsage {
  return { input_tokens: segments(body).reduce((n, s) => n + s.tokens, 0), cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

/** One cache (one model, one organization's requests), filled by each request it prices. */
export class PromptCacheSimulator {
  private readonly cached = new Set<string>();

  usage(body: Json): CacheUsage {
    const parts = segments(body);
    const through = (i: number) => parts.slice(0, i + 1).reduce((n, s) => n + s.tokens, 0);
    const total = through(parts.length - 1);
    const marks = parts.flatMap((s, i) => (s.marked ? [i] : []));
    const lastMark = marks.at(-1);
    if (lastMark === undefined) return { input_tokens: total, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    // The longest cached prefix: at a breakpoint, or a block boundary up to 20 blocks before the last one.
    const candidates = new Set([...marks, ...parts.map((_, i) => i).filter((i) => i <= lastMark && i >= lastMark - LOOKBACK_BLOCKS)]);
    let hit = -1;
    for (const i of candidates) if (i > hit && this.cached.has(parts[i].prefix)) hit = i;
    const read = hit >= 0 ? through(hit) : 0;
    const upToMark = through(lastMark);
    const cacheable = upToMark >= MIN_CACHEABLE_TOKENS;
    for (const i of marks) if (through(i) >= MIN_CACHEABLE_TOKENS) this.cached.add(parts[i].prefix);
    const written = cacheable ? upToMark - read : 0;
    return { input_tokens: total - read - written, cache_creation_input_tokens: written, cache_read_input_tokens: read };
  }
}
