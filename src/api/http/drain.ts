import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { NextFunction, Request, Response } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import { UNAVAILABLE_MESSAGE, UNAVAILABLE_RETRY_AFTER_SECONDS } from '../../db/unavailable';
import { noteRequestCalls } from '../../recovery/in-flight';
import type { Logger } from '../../support/logger';

/** What a request cut at the end of the drain is told about the calls it started. */
const CUT_MESSAGE =
  'The service shut down before this request finished; its tool call continues or was settled: repeat it (same toolUseId) for its outcome';
/** Paths that keep answering while draining: the process is alive, and a last metrics scrape still reads. */
const ANSWERED_WHILE_DRAINING = new Set(['/healthz', '/metrics']);

interface OpenRequest {
  res: Response;
  /** Tool calls this request put in flight (src/recovery/in-flight.ts). */
  calls: string[];
}

/**
 * Shutdown as documented: from SIGTERM until the process exits the listener stays open and
 * answers every new request 503 `SERVICE_UNAVAILABLE` with `Retry-After` (never "connection
 * refused"), while the requests already running finish within the drain budget. Those
 * still running at its end are answered, not hung up on: 503 with the ids (and statuses)
 * of the tool calls they started — each settled or handed to reconciliation by then, so
 * repeating the request with the same toolUseId returns its outcome.
 */
export class HttpDrain {
  private draining = false;
  private readonly open = new Set<OpenRequest>();
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly orm: MikroORM,
    private readonly logger: Logger,
  ) {}

  /** First middleware: tracks each request (and the calls it starts) while serving; refuses new ones while draining. */
  middleware() {
    return (req: Request, res: Response, next: NextFunction): void => {
      if (this.draining && !ANSWERED_WHILE_DRAINING.has(req.path)) {
        refuse(res, req.path === '/readyz' ? { status: 'shutting_down' } : unavailable(UNAVAILABLE_MESSAGE));
        return;
      }
      const entry: OpenRequest = { res, calls: [] };
      this.open.add(entry);
      res.once('close', () => this.done(entry));
      noteRequestCalls(entry.calls, next);
    };
  }

  get isDraining(): boolean {
    return this.draining;
  }

  /** New requests are refused (503) from now on; websocket upgrades too. */
  begin(httpServer: http.Server): void {
    this.draining = true;
    httpServer.on('upgrade', (_req: http.IncomingMessage, socket: Duplex) => {
      // The websocket server is gone: an upgrade is answered as any request is.
      socket.on('error', () => undefined);
      socket.end(
        `HTTP/1.1 503 Service Unavailable\r\nRetry-After: ${UNAVAILABLE_RETRY_AFTER_SECONDS}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
      );
    });
  }

  /** Resolves once no request is running. */
  idle(): Promise<void> {
    if (this.open.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Answers every request still running (503, with its calls' ids and statuses). */
  async cut(): Promise<number> {
    const cut = [...this.open].filter((entry) => !entry.res.headersSent);
    if (cut.length === 0) return 0;
    const statuses = await this.statusesOf(cut.flatMap((entry) => entry.calls));
    for (const entry of cut) {
      const toolCalls = entry.calls.map((id) => ({ id, status: statuses.get(id) ?? null }));
      // The handler still running may write after this answer: its error is of no use to anyone now.
      entry.res.on('error', () => undefined);
      refuse(entry.res, unavailable(toolCalls.length > 0 ? CUT_MESSAGE : UNAVAILABLE_MESSAGE, toolCalls));
      this.logger.warn(
        { correlationId: entry.res.locals.correlationId, toolCalls },
        'request still running at the end of the shutdown budget: answered 503',
      );
    }
    return cut.length;
  }

  private done(entry: OpenRequest): void {
    this.open.delete(entry);
    if (this.open.size > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  }

  /** Best effort (the database may be gone): the ids alone are enough to ask again. */
  private async statusesOf(ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    try {
      const read = this.orm.em
        .fork()
        .execute<{ id: string; status: string }[]>('select id, status from tool_calls where id = any(?::uuid[])', [`{${ids.join(',')}}`]);
      const late = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), 1000).unref());
      return new Map((await Promise.race([read, late])).map((row) => [row.id, row.status]));
    } catch {
      return new Map();
    }
  }
}

function unavailable(message: string, toolCalls: { id: string; status: string | null }[] = []) {
  return { errors: [{ message, extensions: { code: 'SERVICE_UNAVAILABLE', ...(toolCalls.length > 0 ? { toolCalls } : {}) } }] };
}

function refuse(res: Response, body: unknown): void {
  res.setHeader('retry-after', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
  // The client should take its next request to another node.
  res.setHeader('connection', 'close');
  res.status(503).json(body);
}
