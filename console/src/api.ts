import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { createClient, type Client } from 'graphql-ws';

/**
 * The console speaks to /graphql of its own origin, and only with the operations of
 * operations/console.graphql (and the shared Viewer), sent by persisted-document id:
 * over HTTP as `{documentId, variables}`, over graphql-ws as the same fields with an empty
 * query (the websocket resolves ids like HTTP does, src/api/websocket.ts).
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

export class Api {
  private socket: Client | null = null;

  constructor(private readonly key: string) {}

  /** One query or mutation; errors (a field's too) throw an ApiError with the first code. */
  async request<R, V>(document: TypedDocumentNode<R, V>, variables: V): Promise<R> {
    let response: Response;
    try {
      response = await fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', authorization: `Bearer ${this.key}` },
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
    if (body.errors?.length) throw toError(body.errors);
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
        if (Array.isArray(error)) onError(toError(error as Formatted[]));
        else if (error && typeof error === 'object' && 'code' in error && 'reason' in error) {
          const close = error as CloseEvent;
          onError(new ApiError(`SOCKET_${close.code}`, close.reason || 'The live connection closed'));
        } else onError(new ApiError('SOCKET_ERROR', 'The live connection failed'));
      },
      complete: () => {},
    });
  }

  private ws(): Client {
    if (!this.socket) {
      const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
      this.socket = createClient({
        url,
        connectionParams: { authorization: `Bearer ${this.key}` },
        retryAttempts: 5,
        // 4403: the key is refused; retrying will not help.
        shouldRetry: (event) => !(event && typeof event === 'object' && 'code' in event && (event as CloseEvent).code === 4403),
      });
    }
    return this.socket;
  }

  close(): void {
    void this.socket?.dispose();
    this.socket = null;
  }
}
