import WebSocket from 'ws';
import { createClient, type Client } from 'graphql-ws';
import { print, type DocumentNode } from 'graphql';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';

/** A raw GraphQL-over-HTTP exchange: any method, body, headers; the body parsed when it is JSON. */
export interface RawResponse {
  status: number;
  headers: Headers;
  contentType: string;
  body: {
    data?: Record<string, any> | null;
    errors?: { message: string; path?: string[]; extensions?: { code?: string } & Record<string, unknown> }[];
  };
  text: string;
}

export interface RequestOptions {
  key?: string;
  headers?: Record<string, string>;
}

async function exchange(url: string, init: RequestInit): Promise<RawResponse> {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: RawResponse['body'] = {};
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the test looks at text
  }
  return { status: response.status, headers: response.headers, contentType: response.headers.get('content-type') ?? '', body, text };
}

function headersFor(options: RequestOptions, base: Record<string, string> = {}): Record<string, string> {
  const headers = { ...base, ...(options.headers ?? {}) };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  return headers;
}

/** POST with a JSON body (any JSON: an object, or an array for batching tests). */
export function post(url: string, body: unknown, options: RequestOptions = {}): Promise<RawResponse> {
  return exchange(url, {
    method: 'POST',
    headers: headersFor(options, { 'content-type': 'application/json' }),
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** GET with URL parameters; objects are JSON-encoded (variables, extensions). */
export function get(url: string, params: Record<string, unknown>, options: RequestOptions = {}): Promise<RawResponse> {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) search.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return exchange(`${url}?${search.toString()}`, { method: 'GET', headers: headersFor(options) });
}

/** The `sha256:<hex>` id GraphQL Code Generator embedded in a typed document. */
export function documentId(document: TypedDocumentNode<any, any> | DocumentNode): string {
  const hash = (document as { __meta__?: { hash?: string } }).__meta__?.hash;
  if (!hash) throw new Error('the document carries no persisted-document hash');
  return hash;
}

/** The bare hex Apollo's `extensions.persistedQuery.sha256Hash` carries. */
export function apqHash(document: TypedDocumentNode<any, any> | DocumentNode): string {
  return documentId(document).slice('sha256:'.length);
}

/** The text of a typed document, as a first-party client would send it. */
export function textOf(document: TypedDocumentNode<any, any> | DocumentNode): string {
  const { __meta__: _meta, ...ast } = document as DocumentNode & { __meta__?: unknown };
  return print(ast as DocumentNode);
}

export type SocketOutcome =
  | { kind: 'result'; result: { data?: Record<string, any> | null; errors?: any[] } }
  | { kind: 'error'; errors: any[] }
  | { kind: 'closed'; code: number; reason: string };

/** How a socket closed. */
export interface CloseInfo {
  code: number;
  reason: string;
}

/**
 * A graphql-ws client for one test (lazy, no retries), authenticated with the key as a
 * Bearer authorization (none for null) unless `connectionParams` says otherwise; `close()`
 * when done. `closed` resolves with the socket's first close event.
 */
export function socket(
  wsUrl: string,
  key: string | null,
  options: { connectionParams?: Record<string, unknown>; headers?: Record<string, string> } = {},
): { client: Client; close: () => Promise<void>; closed: Promise<CloseInfo> } {
  let onClosed!: (event: CloseInfo) => void;
  const closed = new Promise<CloseInfo>((resolve) => {
    onClosed = resolve;
  });
  const client = createClient({
    url: wsUrl,
    // Upgrade headers (a console session's cookie) need a WebSocket that sends them.
    webSocketImpl: options.headers ? withHeaders(options.headers) : WebSocket,
    retryAttempts: 0,
    lazy: true,
    connectionParams: options.connectionParams ?? (key === null ? undefined : { authorization: `Bearer ${key}` }),
    on: { closed: (event) => onClosed(event as CloseInfo) },
  });
  return { client, close: () => client.dispose() as Promise<void>, closed };
}

/**
 * A socket held open (lazy: false) once its connection is acknowledged — the key was checked
 * and the server registered the socket; `closed` is its first close, as code and reason.
 * The caller disposes the client.
 */
export async function openSocket(wsUrl: string, key: string, timeoutMs = 10_000): Promise<{ client: Client; closed: Promise<CloseInfo> }> {
  let onConnected!: () => void;
  let onClosed!: (info: CloseInfo) => void;
  const ready = new Promise<void>((resolve) => {
    onConnected = resolve;
  });
  const closed = new Promise<CloseInfo>((resolve) => {
    onClosed = resolve;
  });
  const client = createClient({
    url: wsUrl,
    webSocketImpl: WebSocket,
    lazy: false,
    retryAttempts: 0,
    // The close is what tests look at (`closed`); not a console error.
    onNonLazyError: () => undefined,
    connectionParams: { authorization: `Bearer ${key}` },
    on: {
      connected: () => onConnected(),
      closed: (event) => onClosed({ code: (event as CloseInfo).code, reason: (event as CloseInfo).reason }),
    },
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      ready,
      closed.then((c) => Promise.reject(new Error(`the socket closed before it was acknowledged: ${c.code} ${c.reason}`))),
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error('timed out waiting for connection_ack')), timeoutMs);
      }),
    ]);
  } catch (error) {
    await client.dispose();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return { client, closed };
}

/** Runs one operation over the socket and settles on its result, its error message, or a close. */
export function runOverSocket(client: Client, payload: Record<string, unknown>, timeoutMs = 5000): Promise<SocketOutcome> {
  return new Promise<SocketOutcome>((resolve, reject) => {
    let result: { data?: Record<string, any> | null; errors?: any[] } | undefined;
    const timer = setTimeout(() => reject(new Error('timed out waiting for the socket')), timeoutMs);
    const settle = (outcome: SocketOutcome) => {
      clearTimeout(timer);
      resolve(outcome);
    };
    client.subscribe<Record<string, any>>({ query: '', ...payload } as { query: string }, {
      next: (value) => {
        result = value as typeof result;
      },
      error: (error) => {
        if (Array.isArray(error)) settle({ kind: 'error', errors: error });
        else if (error && typeof (error as { code?: unknown }).code === 'number') {
          settle({ kind: 'closed', code: (error as { code: number }).code, reason: String((error as { reason?: unknown }).reason ?? '') });
        } else reject(error);
      },
      complete: () => (result ? settle({ kind: 'result', result }) : reject(new Error('completed without a result'))),
    });
  });
}

/** A WebSocket class whose connections send these headers with the upgrade request. */
function withHeaders(headers: Record<string, string>): typeof WebSocket {
  return class extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers });
    }
  } as typeof WebSocket;
}
