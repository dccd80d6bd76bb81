import type http from 'node:http';
import { randomBytes } from 'node:crypto';
import { LoopbackServer } from '../../src/support/loopback-server';
import { ThinkingLedger, conversationProblems } from './messages-api-check';
import { STALL_EVENT, type SseFrame } from './scripted-turn';

/**
 * An Anthropic-compatible model server for tests: each POST /v1/messages is answered with
 * the next scripted turn, streamed as the Messages API streams (scripted-turn.ts builds
 * the frames), or with an HTTP error in the API's shape. The real SDK talks to it
 * unchanged (`startTestApp(env, { scriptedModel })` points the runtime at it).
 *
 * Every request is recorded and checked as the API would check its conversation
 * (messages-api-check.ts). A request the API would refuse, or one no turn was scripted
 * for, is answered 400 (final: the SDK does not retry it) and noted in `problems`, so
 * `assertClean()` fails the test loudly even where the run's own outcome would hide it.
 */
export interface HttpErrorAnswer {
  status: number;
  type: string;
  message: string;
  headers?: Record<string, string>;
}

type Answer = SseFrame[] | HttpErrorAnswer;
/** A turn, or a function of the request that answers one (it may first act on the app, e.g. record a call). */
export type ScriptedTurn = Answer | ((request: ScriptedRequest) => Answer | Promise<Answer>);

export interface ScriptedRequest {
  /** The request body as sent (model, max_tokens, system, tools, messages, stream, cache_control marks included). */
  body: Record<string, unknown>;
  /** The conversation: the body's messages without their prompt-cache marks (`cache_control`), which say nothing about it. */
  messages: { role: string; content: Record<string, unknown>[] }[];
  /** What the API would refuse in it (empty: valid). */
  problems: string[];
}

const MAX_BODY_BYTES = 8 * 1024 * 1024;

export class ScriptedModel {
  readonly requests: ScriptedRequest[] = [];
  /** Refused or unscripted requests, and scripted turns nobody asked for (by `assertClean`). */
  readonly problems: string[] = [];
  private readonly turns: ScriptedTurn[] = [];
  /** Thinking blocks streamed so far: a request may only send them back unchanged. */
  private readonly thinking = new ThinkingLedger();
  private readonly http = new LoopbackServer((req, res) => void this.handle(req, res));

  /** Appends turns: each request takes the next one. */
  script(...turns: ScriptedTurn[]): void {
    this.turns.push(...turns);
  }

  /** Turns scripted and not yet asked for. */
  get pending(): number {
    return this.turns.length;
  }

  /** Forgets turns, requests and problems (between tests). */
  reset(): void {
    this.turns.length = 0;
    this.requests.length = 0;
    this.problems.length = 0;
    this.thinking.clear();
  }

  /** Throws with every problem seen: invalid or unscripted requests, turns left unused. */
  assertClean(): void {
    const problems = [...this.problems, ...(this.turns.length > 0 ? [`${this.turns.length} scripted turn(s) were never requested`] : [])];
    if (problems.length > 0) throw new Error(`scripted model:\n- ${problems.join('\n- ')}`);
  }

  start(): Promise<string> {
    return this.http.start();
  }

  get url(): string {
    return this.http.url;
  }

  stop(): Promise<void> {
    return this.http.stop();
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0].replace(/\/+$/, '');
    if (req.method !== 'POST' || path !== '/v1/messages') {
      req.resume();
      return answerError(res, { status: 404, type: 'not_found_error', message: `Not found: ${req.method} ${path}` });
    }
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch {
      return this.refuse(res, 'the request body is not JSON');
    }
    const problems = [...conversationProblems(body), ...this.thinking.problems(body)];
    const record = body as Record<string, unknown>;
    if (record?.stream !== true) problems.push('stream: the runtime streams every turn');
    const request: ScriptedRequest = { body: record, messages: unmarked(record?.messages), problems };
    this.requests.push(request);
    const n = this.requests.length;
    if (problems.length > 0) return this.refuse(res, `request ${n}: ${problems.join('; ')}`);
    const next = this.turns.shift();
    if (!next) return this.refuse(res, `request ${n}: no turn was scripted for it (${request.messages.length} messages)`);
    let answer: Answer;
    try {
      answer = typeof next === 'function' ? await next(request) : next;
    } catch (error) {
      return this.refuse(res, `request ${n}: its scripted turn threw: ${String(error)}`);
    }
    if (!Array.isArray(answer)) return answerError(res, answer);
    this.thinking.record(answer);
    await writeFrames(res, answer);
  }

  private refuse(res: http.ServerResponse, problem: string): void {
    this.problems.push(problem);
    answerError(res, { status: 400, type: 'invalid_request_error', message: problem });
  }
}

/** Messages as sent, each block without `cache_control`. */
function unmarked(messages: unknown): ScriptedRequest['messages'] {
  if (!Array.isArray(messages)) return [];
  return messages.map((m: ScriptedRequest['messages'][number]) => ({
    ...m,
    content: Array.isArray(m?.content) ? m.content.map(({ cache_control: _mark, ...block }) => block) : m?.content,
  }));
}

function answerError(res: http.ServerResponse, answer: HttpErrorAnswer): void {
  const requestId = `req_${randomBytes(8).toString('hex')}`;
  res.writeHead(answer.status, { 'content-type': 'application/json', 'request-id': requestId, ...(answer.headers ?? {}) });
  res.end(JSON.stringify({ type: 'error', error: { type: answer.type, message: answer.message }, request_id: requestId }));
}

/**
 * Each frame as `event:` + `data:` lines, written in two halves with a turn of the event
 * loop between writes: the SDK's decoder sees frames split across chunks, as on a network.
 * At a stall marker (`turn().….stall()`) it stops writing and leaves the response open.
 */
async function writeFrames(res: http.ServerResponse, frames: SseFrame[]): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  for (const frame of frames) {
    if (frame.event === STALL_EVENT) return; // silent, and open until the client aborts or the server stops
    const text = `event: ${frame.event}\ndata: ${JSON.stringify(frame.data)}\n\n`;
    const half = Math.ceil(text.length / 2);
    for (const part of [text.slice(0, half), text.slice(half)]) {
      if (res.destroyed || res.writableEnded) return;
      res.write(part);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  if (!res.destroyed && !res.writableEnded) res.end();
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => (size > MAX_BODY_BYTES ? reject(new Error('request too large')) : resolve(Buffer.concat(chunks).toString('utf8'))));
    req.on('error', reject);
  });
}
