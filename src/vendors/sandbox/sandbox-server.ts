import type http from 'node:http';
import { LoopbackServer } from '../../support/loopback-server';
import { systemClock, type Clock } from '../../support/clock';

/**
 * Vendor sandboxes: one loopback HTTP server in which each vendor's sandbox answers under
 * `/<vendor>/…` with that vendor's real paths, auth checks and response shapes. Part of
 * the product (the embedded default uses it) and of the tests, which inject faults.
 */
export interface SandboxRequest {
  method: string;
  /** The path below the vendor prefix, e.g. `/admin/api/2025-01/orders/12345.json`. */
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  /** The body parsed as JSON or form data, when it is either; else null. */
  body: unknown;
  /** Regex groups of the matched route. */
  params: Record<string, string>;
}

export interface SandboxResponse {
  status: number;
  headers?: Record<string, string>;
  json?: unknown;
  text?: string;
}

export interface SandboxRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Matched against the whole path below the vendor prefix; named groups become params. */
  path: RegExp;
  handle(request: SandboxRequest): SandboxResponse | Promise<SandboxResponse>;
}

export interface VendorSandbox {
  vendor: string;
  routes: SandboxRoute[];
}

export type Fault =
  | { kind: 'status'; status: number }
  | { kind: 'rate_limit'; retryAfter: 'seconds' | 'http_date'; seconds: number }
  | { kind: 'hang' }
  | { kind: 'malformed_json' }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'reset' }
  /** The vendor acts, then its answer is lost: replaced by `status` (a gateway's 502/504), or the connection drops (null). */
  | { kind: 'after_effect'; status: number | null };

export interface RecordedRequest {
  vendor: string;
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: unknown;
  /** The fault answered instead of the sandbox, if any. */
  fault: Fault['kind'] | null;
}

/**
 * Answers the reserved prefix `/_sandbox/…` (a control API) instead of a vendor: such
 * requests are not recorded and never get a fault. `path` is below the prefix.
 */
export type SandboxControl = (request: SandboxRequest) => SandboxResponse | Promise<SandboxResponse>;

/** The reserved first path segment of the control API; no vendor may be named so. */
export const CONTROL_PREFIX = '_sandbox';

interface QueuedFault {
  fault: Fault;
  remaining: number;
  pathIncludes?: string;
  bodyIncludes?: string;
}

const MAX_RECORDED = 1000;

export class SandboxServer {
  readonly requests: RecordedRequest[] = [];
  private readonly sandboxes = new Map<string, VendorSandbox>();
  private readonly faults = new Map<string, QueuedFault[]>();
  private readonly inFlight = new Map<string, { now: number; peak: number }>();
  private readonly http = new LoopbackServer((req, res) => void this.dispatch(req, res));

  private readonly control: SandboxControl | null;
  /** What a slow answer waits on and an HTTP-date Retry-After counts from: the executor's clock when both run in one process. */
  private readonly clock: Clock;

  constructor(sandboxes: VendorSandbox[], options: { control?: SandboxControl; clock?: Clock } = {}) {
    this.control = options.control ?? null;
    this.clock = options.clock ?? systemClock;
    for (const sandbox of sandboxes) {
      if (sandbox.vendor === CONTROL_PREFIX) throw new Error(`${CONTROL_PREFIX} is reserved`);
      if (this.sandboxes.has(sandbox.vendor)) throw new Error(`duplicate sandbox ${sandbox.vendor}`);
      this.sandboxes.set(sandbox.vendor, sandbox);
    }
  }

  start(port = 0, host = '127.0.0.1'): Promise<string> {
    return this.http.start(port, host);
  }

  /** The sandbox serving a vendor (e.g. to read a NangoSandbox's effects), if any. */
  sandbox<T extends VendorSandbox = VendorSandbox>(vendor: string): T | undefined {
    return this.sandboxes.get(vendor) as T | undefined;
  }

  /** Where a vendor's sandbox answers: every endpoint of that vendor shares the prefix. */
  urlFor(vendor: string): string {
    if (!this.sandboxes.has(vendor)) throw new Error(`no sandbox for ${vendor}`);
    return `${this.http.url}/${vendor}`;
  }

  /**
   * The next `times` requests to the vendor get the fault; with `pathIncludes`, only those
   * whose path, or path and decoded query string (`/query?query=select * from Invoice …`),
   * contains it; with `bodyIncludes`, only those whose raw body contains it (an MCP server
   * has one path: `tools/call` picks the JSON-RPC method).
   */
  injectFault(vendor: string, fault: Fault, options: { times?: number; pathIncludes?: string; bodyIncludes?: string } = {}): void {
    const queue = this.faults.get(vendor) ?? [];
    queue.push({ fault, remaining: options.times ?? 1, pathIncludes: options.pathIncludes, bodyIncludes: options.bodyIncludes });
    this.faults.set(vendor, queue);
  }

  clearFaults(): void {
    this.faults.clear();
  }

  stop(): Promise<void> {
    return this.http.stop();
  }

  private takeFault(vendor: string, path: string, query: URLSearchParams, rawBody: string): Fault | null {
    const queue = this.faults.get(vendor);
    if (!queue) return null;
    const decoded = [...query].map(([name, value]) => `${name}=${value}`).join('&');
    const withQuery = decoded ? `${path}?${decoded}` : path;
    const index = queue.findIndex(
      (q) =>
        (!q.pathIncludes || path.includes(q.pathIncludes) || withQuery.includes(q.pathIncludes)) &&
        (!q.bodyIncludes || rawBody.includes(q.bodyIncludes)),
    );
    if (index < 0) return null;
    const queued = queue[index];
    queued.remaining -= 1;
    if (queued.remaining <= 0) queue.splice(index, 1);
    return queued.fault;
  }

  /**
   * The most requests one vendor had in flight at once since the last `resetPeaks`: shows
   * whether calls overlapped, without timing them.
   */
  peakInFlight(vendor: string): number {
    return this.inFlight.get(vendor)?.peak ?? 0;
  }

  resetPeaks(): void {
    for (const counts of this.inFlight.values()) counts.peak = counts.now;
  }

  private enter(vendor: string): () => void {
    const counts = this.inFlight.get(vendor) ?? { now: 0, peak: 0 };
    this.inFlight.set(vendor, counts);
    counts.now += 1;
    counts.peak = Math.max(counts.peak, counts.now);
    return () => {
      counts.now -= 1;
    };
  }

  private async dispatch(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let leave: (() => void) | null = null;
    try {
      const url = new URL(req.url ?? '/', 'http://sandbox');
      const [, vendor = '', ...rest] = url.pathname.split('/');
      const path = `/${rest.join('/')}`;
      const rawBody = await readBody(req);
      if (vendor === CONTROL_PREFIX && this.control) {
        const request = {
          method: req.method ?? 'GET',
          path,
          query: url.searchParams,
          headers: req.headers,
          rawBody,
          body: parseBody(rawBody, req.headers['content-type']),
          params: {},
        };
        return send(res, await this.control(request));
      }
      const sandbox = this.sandboxes.get(vendor);
      if (!sandbox) return send(res, { status: 404, json: { error: 'no such sandbox' } });

      const fault = this.takeFault(vendor, path, url.searchParams, rawBody);
      const body = parseBody(rawBody, req.headers['content-type']);
      this.requests.push({
        vendor,
        method: req.method ?? 'GET',
        path,
        query: url.searchParams,
        headers: req.headers,
        body,
        fault: fault?.kind ?? null,
      });
      if (this.requests.length > MAX_RECORDED) this.requests.splice(0, this.requests.length - MAX_RECORDED);
      leave = this.enter(vendor);
      if (fault && (await this.answerFault(fault, req, res))) return;

      let response: SandboxResponse = { status: 404, json: { errors: 'Not Found' } };
      for (const route of sandbox.routes) {
        if (route.method !== req.method) continue;
        const match = route.path.exec(path);
        if (!match) continue;
        response = await route.handle({
          method: req.method,
          path,
          query: url.searchParams,
          headers: req.headers,
          rawBody,
          body,
          params: { ...(match.groups ?? {}) },
        });
        break;
      }
      if (fault?.kind === 'after_effect') {
        // The effect happened above; the caller never learns it.
        if (fault.status === null) req.socket.destroy();
        else send(res, faultAnswer(fault.status));
        return;
      }
      send(res, response);
    } catch {
      if (!res.headersSent) send(res, { status: 500, json: { errors: 'sandbox failure' } });
    } finally {
      leave?.();
    }
  }

  /** Answers a fault; returns false for `slow` and `after_effect`, after which the sandbox acts. */
  private async answerFault(fault: Fault, req: http.IncomingMessage, res: http.ServerResponse): Promise<boolean> {
    switch (fault.kind) {
      case 'status':
        send(res, faultAnswer(fault.status));
        return true;
      case 'rate_limit': {
        const retryAfter = fault.retryAfter === 'seconds' ? String(fault.seconds) : new Date(this.clock.now() + fault.seconds * 1000).toUTCString();
        send(res, { status: 429, headers: { 'retry-after': retryAfter }, json: { errors: 'Exceeded rate limit' } });
        return true;
      }
      case 'hang':
        // Never answers; the client's timeout must end it. The socket is destroyed on stop().
        req.socket.setTimeout(0);
        return true;
      case 'malformed_json':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"order": {"id": 1, "status": ');
        return true;
      case 'reset':
        req.socket.destroy();
        return true;
      case 'slow':
        await this.clock.sleep(fault.delayMs);
        return false;
      case 'after_effect':
        return false;
    }
  }
}

/** A faulty answer's body: vendor-internal detail that must never leave the executor. */
const faultAnswer = (status: number): SandboxResponse => ({
  status,
  json: { errors: `sandbox fault ${status}`, secret_detail: 'vendor-internal-trace-xyz' },
});

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseBody(raw: string, contentType: string | undefined): unknown {
  if (!raw) return null;
  if (contentType?.includes('application/x-www-form-urlencoded')) {
    return Object.fromEntries(new URLSearchParams(raw));
  }
  try {
    return JSON.parse(raw);
  } catch {
    return null;
  }
}

function send(res: http.ServerResponse, response: SandboxResponse): void {
  const headers = { ...(response.headers ?? {}) };
  let payload = '';
  if (response.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    payload = JSON.stringify(response.json);
  } else if (response.text !== undefined) {
    payload = response.text;
  }
  res.writeHead(response.status, headers);
  res.end(payload);
}
