import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { createClient, type Client } from 'graphql-ws';

/**
 * The console speaks to /graphql of its own origin, and only with the operations of
 * operations/console.graphql (and the shared Viewer), sent by persisted-document id:
 * over HTTP as `{documentId, variables}`, over graphql-ws as the same fields with an empty
 * query (the websocket resolves ids like HTTP does, src/realtime/websocket.ts).
 */

/** An error the API answered: its stable code, message and the first error's extensions. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

interface Formatted {
  message: string;
  extensions?: { code?: string } & Record<string, unknown>;
}

/** The `sha256:…` id codegen embedded in the typed document. */
export function documentId(document: TypedDocumentNode<unknown, unknown>): string {
  const hash = (document as unknown as { __meta__?: { hash?: string } }).__meta__?.hash;
  if (!hash) throw new Error('not a persisted document');
  return hash;
}

const toError = (errors: readonly Formatted[]): ApiError =>
  new ApiError(errors[0]?.extensions?.code ?? 'INTERNAL_SERVER_ERROR', errors.map((e) => e.message).join('; '), errors[0]?.extensions ?? {});

/**
 * The live connection as a reviewer must know it: `live` (connected), `reconnecting` (lost,
 * being retried: events may be missed meanwhile, and are caught up on reconnect), `offline`
 * (given up: the key was refused or the retries ran out; reload to try again).
 */
export type Connection = 'connecting' | 'live' | 'reconnecting' | 'offline';

/** Connection attempts after a drop before the console gives up (about five minutes with the waits below). */
const RETRY_ATTEMPTS = 40;
/** The wait before retry n: 0.5 s doubling to at most 8 s, with jitter so reviewers do not reconnect in step. */
const retryWait = (retries: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.min(500 * 2 ** retries, 8000) + Math.random() * 500));

const isCloseEvent = (event: unknown): event is CloseEvent => !!event && typeof event === 'object' && 'code' in event && 'reason' in event;

/**
 * How the console proves who it is: a pasted API key (a Bearer header), or a person's
 * single sign-on session (the HTTP-only cookie, which the browser sends to its own origin,
 * with the session's CSRF token in a header: the server refuses the cookie alone).
 */
export type Credentials = { key: string } | { csrfToken: string };

export class Api {
  private socket: Client | null = null;
  private connection: Connection = 'connecting';
  private readonly watchers = new Set<(connection: Connection, reconnected: boolean) => void>();

  /**
   * `onSessionRefused`: a person's session was refused (signed out elsewhere, expired; or, on
   * the socket, maybe only its CSRF token): the console asks /auth/session whether it has ended.
   * A key's refusal stays a plain error, as it always was.
   */
  constructor(
    private readonly credentials: Credentials,
    private readonly onSessionRefused: () => void = () => {},
  ) {}

  private get sessionMode(): boolean {
    return 'csrfToken' in this.credentials;
  }

  private authHeaders(): Record<string, string> {
    return 'key' in this.credentials ? { authorization: `Bearer ${this.credentials.key}` } : { 'x-csrf-token': this.credentials.csrfToken };
  }

  /** The request was refused for want of a caller: a person's session may have ended. */
  private checkSession(error: ApiError): ApiError {
    if (this.sessionMode && error.code === 'UNAUTHENTICATED') this.onSessionRefused();
    return error;
  }

  /** One query or mutation; errors (a field's too) throw an ApiError with the first code. */
  async request<R, V>(document: TypedDocumentNode<R, V>, variables: V): Promise<R> {
    let response: Response;
    try {
      response = await fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...this.authHeaders() },
        body: JSON.stringify({ documentId: documentId(document as TypedDocumentNode<unknown, unknown>), variables }),
      });
    } catch {
      throw new ApiError('NETWORK_ERROR', 'The server cannot be reached');
    }
    let body: { data?: R | null; errors?: Formatted[] };
    try {
      body = await response.json();
    } catch {
      throw new ApiError(`HTTP_${response.status}`, response.statusText || 'Unexpected answer');
    }
    if (body.errors?.length) throw this.checkSession(toError(body.errors));
    if (!body.data) throw new ApiError(`HTTP_${response.status}`, 'No data');
    return body.data;
  }

  /** A live subscription; returns the function that ends it. */
  subscribe<R, V>(document: TypedDocumentNode<R, V>, variables: V, onData: (data: R) => void, onError: (error: ApiError) => void): () => void {
    const payload = {
      query: '',
      documentId: documentId(document as TypedDocumentNode<unknown, unknown>),
      variables: variables as Record<string, unknown>,
    };
    return this.ws().subscribe<R>(payload, {
      next: (result) => {
        if (result.errors?.length) onError(toError(result.errors));
        else if (result.data) onData(result.data);
      },
      error: (error) => {
        if (Array.isArray(error)) return onError(toError(error as Formatted[]));
        // The socket is gone for good (refused, or the retries ran out).
        this.setConnection('offline');
        if (isCloseEvent(error)) onError(new ApiError(`SOCKET_${error.code}`, error.reason || 'The live connection closed'));
        else onError(new ApiError('SOCKET_ERROR', 'The live connection failed'));
      },
      complete: () => {},
    });
  }

  private ws(): Client {
    if (!this.socket) {
      const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
      this.socket = createClient({
        url,
        connectionParams: 'key' in this.credentials ? { authorization: `Bearer ${this.credentials.key}` } : { csrfToken: this.credentials.csrfToken },
        retryAttempts: RETRY_ATTEMPTS,
        retryWait,
        // 4403: the key (or the session) is refused; retrying will not help.
        shouldRetry: (event) => !(isCloseEvent(event) && event.code === 4403),
        on: {
          connecting: (isRetry) => this.setConnection(isRetry ? 'reconnecting' : 'connecting'),
          connected: (_socket, _payload, wasRetry) => this.setConnection('live', wasRetry),
          closed: (event) => {
            if (this.connection === 'offline') return;
            const code = isCloseEvent(event) ? event.code : null;
            if (code === 4403 && this.sessionMode) this.onSessionRefused();
            // 1000: the client closed an idle socket itself (no subscription left); 4403: refused.
            this.setConnection(code === 1000 ? 'connecting' : code === 4403 ? 'offline' : 'reconnecting');
          },
        },
      });
    }
    return this.socket;
  }

  /**
   * Follows the live connection: `listener(connection, reconnected)` now and on every change;
   * `reconnected` is true when the socket came back after a drop (what a view missed
   * meanwhile must be read again). Returns the function that stops following.
   */
  /**
   * A list a view keeps live: `subscribe()` (resuming after the last event it saw) and `read()`
   * the list, now. The subscription follows from the moment the server takes it, and the socket
   * may still be connecting while the first read answers: what arrived in between is in
   * neither, so the list is read again once the socket is first live (only the server's
   * registration is left in between). After a drop, both again. Returns the function that stops.
   */
  followLive(subscribe: () => () => void, read: () => void, onConnection?: (connection: Connection) => void): () => void {
    let stop = subscribe();
    read();
    let wasLive = this.connection === 'live';
    const unwatch = this.watchConnection((state, reconnected) => {
      onConnection?.(state);
      if (reconnected) {
        // Back after a drop: resume after the last event seen, and read the list again.
        stop();
        stop = subscribe();
        read();
      } else if (state === 'live' && !wasLive) {
        read();
      }
      if (state === 'live') wasLive = true;
    });
    return () => {
      unwatch();
      stop();
    };
  }

  watchConnection(listener: (connection: Connection, reconnected: boolean) => void): () => void {
    this.watchers.add(listener);
    listener(this.connection, false);
    return () => this.watchers.delete(listener);
  }

  private setConnection(connection: Connection, reconnected = false): void {
    if (connection === this.connection && !reconnected) return;
    this.connection = connection;
    for (const watcher of this.watchers) watcher(connection, reconnected);
  }

  close(): void {
    void this.socket?.dispose();
    this.socket = null;
  }
}
