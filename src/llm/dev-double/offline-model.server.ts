import type http from 'node:http';
import { randomBytes } from 'node:crypto';
import { LoopbackServer } from '../../support/loopback-server';
import { respond as defaultRespond } from './offline-model.brain';
import { writeMessageStream } from './offline-model.sse';
import type {
  ContentBlock,
  MessageResponse,
  MessagesRequest,
  ModelFault,
  OfflineModelOptions,
  RecordedModelRequest,
  RespondFn,
} from './offline-model.types';

/**
 * An Anthropic-Messages-compatible HTTP server backed by the deterministic offline brain,
 * for development, tests and the out-of-the-box demo. The real `@anthropic-ai/sdk` talks to
 * it unchanged (`baseURL` = the URL `start()` returns). Errors use Anthropic's shapes and
 * statuses: `{ type: 'error', error: { type, message }, request_id }`.
 */
const MAX_BODY_BYTES = 32 * 1024 * 1024;
const MAX_RECORDED = 1000;
const SECRET_HEADERS = new Set(['x-api-key', 'authorization']);

const FAULT_ANSWERS: Record<ModelFault['kind'], { status: number; type: string; message: string }> = {
  overloaded: { status: 529, type: 'overloaded_error', message: 'Overloaded' },
  server_error: { status: 500, type: 'api_error', message: 'Internal server error' },
  rate_limited: { status: 429, type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' },
};

class RequestError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** Deterministic token estimate: a quarter of the characters, at least 1. */
export function estimateTokens(value: unknown): number {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? '');
  return Math.max(1, Math.ceil(text.length / 4));
}

function outputTokens(content: ContentBlock[]): number {
  return estimateTokens(content.map((b) => (b.type === 'text' ? b.text : `${b.name}${JSON.stringify(b.input)}`)).join(''));
}

function inputTokens(request: MessagesRequest): number {
  return estimateTokens({ system: request.system ?? null, messages: request.messages, tools: request.tools ?? [] });
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Validation in the spirit of the real API (field-named invalid_request_error messages). */
export function validateMessagesRequest(body: unknown): MessagesRequest {
  const invalid = (message: string): never => {
    throw new RequestError(400, 'invalid_request_error', message);
  };
  if (!isObject(body)) return invalid('Request body must be a JSON object');
  if (body.model === undefined) invalid('model: Field required');
  if (typeof body.model !== 'string' || body.model.trim() === '') invalid('model: Input should be a non-empty string');
  if (body.max_tokens === undefined) invalid('max_tokens: Field required');
  if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens) || body.max_tokens < 1) {
    invalid('max_tokens: Input should be a positive integer');
  }
  if (body.messages === undefined) invalid('messages: Field required');
  if (!Array.isArray(body.messages)) return invalid('messages: Input should be a valid list');
  if (body.messages.length === 0) invalid('messages: at least one message is required');
  body.messages.forEach((message, i) => {
    if (!isObject(message)) invalid(`messages.${i}: Input should be an object`);
    const m = message as Record<string, unknown>;
    if (m.role !== 'user' && m.role !== 'assistant') invalid(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    if (typeof m.content !== 'string' && !Array.isArray(m.content)) invalid(`messages.${i}.content: Field required`);
    if (Array.isArray(m.content) && m.content.some((b) => !isObject(b) || typeof b.type !== 'string')) {
      invalid(`messages.${i}.content: every content block needs a type`);
    }
  });
  if (body.system !== undefined && typeof body.system !== 'string' && !Array.isArray(body.system)) {
    invalid('system: Input should be a valid string or list of text blocks');
  }
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) invalid('tools: Input should be a valid list');
    (body.tools as unknown[]).forEach((t, i) => {
      if (!isObject(t) || typeof t.name !== 'string' || !/^[a-zA-Z0-9_-]{1,128}$/.test(t.name)) {
        invalid(`tools.${i}.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
      }
    });
  }
  if (body.stream !== undefined && typeof body.stream !== 'boolean') invalid('stream: Input should be a valid boolean');
  return body as MessagesRequest;
}

function systemText(system: unknown): string | null {
  if (typeof system === 'string') return system;
  if (!Array.isArray(system)) return null;
  return system.map((b) => (isObject(b) && typeof b.text === 'string' ? b.text : '')).join('\n\n');
}

const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

export class OfflineModelServer {
  readonly requests: RecordedModelRequest[] = [];
  private readonly faults: { fault: ModelFault; remaining: number }[] = [];
  private readonly respondFn: RespondFn;
  private readonly http = new LoopbackServer((req, res) => void this.handle(req, res));

  constructor(private readonly options: OfflineModelOptions = {}) {
    this.respondFn = options.respond ?? defaultRespond;
  }

  /** Listens (port 0: any free port) and resolves to the base URL, e.g. `http://127.0.0.1:PORT`. */
  start(port = 0, host = '127.0.0.1'): Promise<string> {
    return this.http.start(port, host);
  }

  get url(): string {
    return this.http.url;
  }

  stop(): Promise<void> {
    return this.http.stop();
  }

  /** The next `times` valid POST /v1/messages requests are answered with the fault instead. */
  injectFault(fault: ModelFault, times = 1): void {
    if (times > 0) this.faults.push({ fault, remaining: times });
  }

  clearFaults(): void {
    this.faults.length = 0;
  }

  private takeFault(): ModelFault | null {
    const next = this.faults[0];
    if (!next) return null;
    next.remaining -= 1;
    if (next.remaining <= 0) this.faults.shift();
    return next.fault;
  }

  private record(entry: RecordedModelRequest): void {
    this.requests.push(entry);
    if (this.requests.length > MAX_RECORDED) this.requests.splice(0, this.requests.length - MAX_RECORDED);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const requestId = newId('req');
    const path = (req.url ?? '/').split('?')[0];
    const headers: RecordedModelRequest['headers'] = {};
    for (const [name, value] of Object.entries(req.headers)) if (!SECRET_HEADERS.has(name)) headers[name] = value;
    const entry: RecordedModelRequest = {
      method: req.method ?? 'GET',
      path,
      status: 0,
      fault: null,
      model: null,
      system: null,
      toolNames: [],
      messageCount: 0,
      stream: false,
      headers,
      body: null,
    };
    const sendError = (status: number, type: string, message: string, extra: Record<string, string> = {}) => {
      entry.status = status;
      if (res.headersSent) return void res.end();
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': requestId, ...extra });
      res.end(JSON.stringify({ type: 'error', error: { type, message }, request_id: requestId }));
    };
    try {
      const route = path.replace(/\/+$/, '');
      if (req.method !== 'POST' || (route !== '/v1/messages' && route !== '/v1/messages/count_tokens')) {
        req.resume();
        return sendError(404, 'not_found_error', `Not found: ${req.method} ${path}`);
      }
      if (route === '/v1/messages') this.record(entry);
      const rawBody = await readBody(req);
      if (!hasApiKey(req)) return sendError(401, 'authentication_error', 'x-api-key header is required');
      let body: unknown;
      try {
        body = JSON.parse(rawBody);
      } catch {
        return sendError(400, 'invalid_request_error', 'Request body is not valid JSON');
      }
      entry.body = body;
      if (isObject(body)) {
        entry.model = typeof body.model === 'string' ? body.model : null;
        entry.system = systemText(body.system);
        entry.toolNames = Array.isArray(body.tools) ? body.tools.map((t) => (isObject(t) ? String(t.name) : '')) : [];
        entry.messageCount = Array.isArray(body.messages) ? body.messages.length : 0;
        entry.stream = body.stream === true;
      }
      if (route === '/v1/messages/count_tokens') {
        if (!isObject(body) || !Array.isArray(body.messages)) return sendError(400, 'invalid_request_error', 'messages: Field required');
        res.writeHead(200, { 'content-type': 'application/json', 'request-id': requestId });
        return void res.end(JSON.stringify({ input_tokens: inputTokens(body as MessagesRequest) }));
      }
      const request = validateMessagesRequest(body);

      const fault = this.takeFault();
      if (fault) {
        entry.fault = fault.kind;
        const answer = FAULT_ANSWERS[fault.kind];
        const retry: Record<string, string> = fault.retryAfterSeconds !== undefined ? { 'retry-after': String(fault.retryAfterSeconds) } : {};
        return sendError(answer.status, answer.type, answer.message, retry);
      }

      const { content, stopReason } = this.respondFn(request);
      const message: MessageResponse = {
        id: newId('msg'),
        type: 'message',
        role: 'assistant',
        model: request.model,
        content,
        stop_reason: stopReason,
        stop_sequence: null,
        usage: { input_tokens: inputTokens(request), output_tokens: outputTokens(content) },
      };
      entry.status = 200;
      if (request.stream === true) {
        await writeMessageStream(res, message, {
          deltaDelayMs: this.options.deltaDelayMs,
          wordsPerDelta: this.options.wordsPerDelta,
          headers: { 'request-id': requestId },
        });
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': requestId });
      res.end(JSON.stringify(message));
    } catch (error) {
      if (error instanceof RequestError) return sendError(error.status, error.type, error.message);
      sendError(500, 'api_error', 'Internal server error');
    }
  }
}

function hasApiKey(req: http.IncomingMessage): boolean {
  const key = req.headers['x-api-key'];
  if (typeof key === 'string' && key.trim() !== '') return true;
  const auth = req.headers.authorization;
  return typeof auth === 'string' && /^Bearer\s+\S+/i.test(auth);
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) reject(new RequestError(413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes.'));
      else resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', reject);
  });
}
