import WebSocket from 'ws';
import { createClient, type Client } from 'graphql-ws';
import { bounded } from './timing';

/**
 * One real graphql-ws client over `ws` in the bench process (for the scenarios with a
 * single subscriber), connected eagerly, closed by `close()`.
 */
export class GqlSocket {
  readonly client: Client;
  private readonly closed: Promise<void>;
  private readonly connected: Promise<void>;

  constructor(url: string, key: string) {
    let onClosed!: () => void;
    let onConnected!: () => void;
    this.closed = new Promise((resolve) => (onClosed = resolve));
    this.connected = new Promise((resolve) => (onConnected = resolve));
    this.client = createClient({
      url,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      lazy: false,
      connectionParams: { authorization: `Bearer ${key}` },
      on: { connected: () => onConnected(), closed: () => onClosed() },
    });
  }

  ready(): Promise<void> {
    return bounded(this.connected, 'the graphql-ws connection_ack');
  }

  /** Subscribes; `next` gets each item of `field`; returns the unsubscribe function. */
  subscribe<T>(
    query: string,
    variables: Record<string, unknown>,
    field: string,
    next: (item: T) => void,
    onError: (error: unknown) => void,
  ): () => void {
    return this.client.subscribe<Record<string, T>>(
      { query, variables },
      {
        next: (result) => {
          const item = result.data?.[field];
          if (item) next(item);
          else onError(result.errors ?? new Error('a next without data'));
        },
        error: onError,
        complete: () => undefined,
      },
    );
  }

  async close(): Promise<void> {
    void this.client.dispose();
    await bounded(this.closed, 'the graphql-ws socket to close', 10_000).catch(() => undefined);
  }
}
