/**
 * The slice of the Anthropic Messages API wire format the offline model reads and writes.
 * Kept independent of `@anthropic-ai/sdk` types: the server validates untrusted JSON, and
 * the SDK's response types carry many optional fields the offline model never sets.
 */

export interface TextBlock {
  type: 'text';
  text: string;
}

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** What the offline model answers with. */
export type ContentBlock = TextBlock | ToolUseBlock;

export type StopReason = 'end_turn' | 'tool_use';

export interface ToolResultBlockParam {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | { type: string; text?: string }[];
  is_error?: boolean;
}

/** Blocks a request may carry; unknown block types (images, documents, …) pass through untouched. */
export type ContentBlockParam = TextBlock | ToolUseBlock | ToolResultBlockParam | { type: string; [key: string]: unknown };

export interface MessageParam {
  role: 'user' | 'assistant';
  content: string | ContentBlockParam[];
}

export interface ToolDefinition {
  name: string;
  description?: string;
  input_schema?: Record<string, unknown>;
}

/** A validated POST /v1/messages body (only the fields the offline model uses are typed). */
export interface MessagesRequest {
  model: string;
  max_tokens: number;
  messages: MessageParam[];
  system?: string | { type: string; text?: string }[];
  tools?: ToolDefinition[];
  stream?: boolean;
  [key: string]: unknown;
}

export interface BrainResponse {
  content: ContentBlock[];
  stopReason: StopReason;
}

/** The deterministic "model": a request in, the assistant turn out. */
export type RespondFn = (request: MessagesRequest) => BrainResponse;

export interface Usage {
  input_tokens: number;
  output_tokens: number;
}

/** The non-streaming answer (and the accumulated result of a stream). */
export interface MessageResponse {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: ContentBlock[];
  stop_reason: StopReason;
  stop_sequence: null;
  usage: Usage;
}

export type ModelFault =
  | { kind: 'overloaded'; retryAfterSeconds?: number }
  | { kind: 'server_error'; retryAfterSeconds?: number }
  | { kind: 'rate_limited'; retryAfterSeconds: number };

/** One request the server received, as recorded for tests (API key headers removed). */
export interface RecordedModelRequest {
  method: string;
  path: string;
  /** The HTTP status answered. */
  status: number;
  /** The fault answered instead of the model, if any. */
  fault: ModelFault['kind'] | null;
  model: string | null;
  /** The system prompt, text blocks joined with a blank line; null when absent. */
  system: string | null;
  toolNames: string[];
  messageCount: number;
  stream: boolean;
  /** Request headers without `x-api-key` and `authorization`. */
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (null when unreadable); bodies carry no credentials. */
  body: unknown;
}

export interface OfflineModelOptions {
  /** Pause between streamed text deltas, so token streaming is observable (default 0). */
  deltaDelayMs?: number;
  /** Words per text_delta chunk (default 3). */
  wordsPerDelta?: number;
  /** Replace the built-in brain (e.g. a scripted model in a test). */
  respond?: RespondFn;
}
