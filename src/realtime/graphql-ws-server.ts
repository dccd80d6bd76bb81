import type http from 'node:http';
import type { Writable } from 'node:stream';
import type { WebSocket as WsSocket, WebSocketServer } from 'ws';
import {
  CloseCode,
  MessageType,
  handleProtocols,
  makeServer,
  stringifyMessage,
  type ServerOptions,
  type WebSocket as GraphQLWsSocket,
} from 'graphql-ws';
import { SocketWriter } from './socket-writer';

/**
 * graphql-ws over `ws`, through graphql-ws's documented transport seam: `makeServer` driven
 * with our own `WebSocket` object (what `graphql-ws/use/ws`'s `useServer` does, keep-alive
 * and error handling included). Its `send` is ours by design: every message goes through
 * the socket's writer (which counts what is queued), and a result shared by a subscription
 * group is written as the group's JSON text instead of being serialized again.
 */
export interface SocketExtra {
  socket: WsSocket;
  /** The upgrade request (websocket.ts drops it once the connection is accepted). */
  request: http.IncomingMessage;
  connection: GraphQLWsConnection;
}

const SHARED_MARK = '__toolgateShared';
const MARKER = `"payload":{"${SHARED_MARK}":"`;
const OPEN = 1; // WebSocket.OPEN

/** One client's socket as graphql-ws sees it (its documented `WebSocket` interface). */
export class GraphQLWsConnection implements GraphQLWsSocket {
  readonly writer: SocketWriter;
  /** Shared JSON handed out by `sharedPayload` and not yet sent, by token (made on first use: most sockets carry ledger subscriptions only). */
  private shared: Map<string, string> | null = null;
  private nextToken = 0;

  /** `stream`: the connection's TCP socket (ws writes its frames to it), to cork a burst's frames. */
  constructor(
    readonly socket: WsSocket,
    stream?: Pick<Writable, 'cork' | 'uncork'>,
  ) {
    this.writer = new SocketWriter(socket, stream);
  }

  get protocol(): string {
    return this.socket.protocol;
  }

  send(data: string): Promise<void> {
    const text = this.expandShared(data);
    return new Promise((resolve, reject) => {
      if (this.socket.readyState !== OPEN) return resolve();
      this.writer.write(text, Buffer.byteLength(text), (error) => (error ? reject(error) : resolve()));
    });
  }

  close(code?: number, reason?: string): void {
    this.socket.close(code, reason);
  }

  onMessage(cb: (data: string) => Promise<void>): void {
    // graphql-ws's handler awaits a whole subscription with the message it was given: it gets
    // the text, and the received Buffer (≈ 0.5 KB) is not held for the subscription's life.
    this.socket.on('message', (data) => void this.handle(cb, String(data)));
  }

  /**
   * For graphql-ws's `onNext`: a marker standing for JSON already serialized for a group,
   * which `send` replaces with it. graphql-ws sends what `onNext` returned right after it
   * (however many other subscriptions' `onNext` run meanwhile), so each token is taken once.
   */
  sharedPayload(json: string): Record<string, string> {
    const token = String(this.nextToken++);
    (this.shared ??= new Map()).set(token, json);
    return { [SHARED_MARK]: token };
  }

  /**
   * The start of graphql-ws's `next` message for subscription `id`, made by graphql-ws's own
   * serializer: followed by a result's JSON and `}`, it is the message graphql-ws would send.
   */
  static nextPrefix(id: string): string {
    const empty = stringifyMessage({ id, type: MessageType.Next, payload: {} });
    return empty.slice(0, -'{}}'.length);
  }

  private expandShared(message: string): string {
    const at = message.indexOf(MARKER);
    if (at < 0) return message;
    const tokenStart = at + MARKER.length;
    const tokenEnd = message.indexOf('"', tokenStart);
    const token = message.slice(tokenStart, tokenEnd);
    const json = this.shared?.get(token);
    if (json === undefined) throw new Error('a shared subscription payload was sent twice');
    this.shared?.delete(token);
    // The marker object is `{"__toolgateShared":"<token>"}`: skip its closing `"}`.
    return `${message.slice(0, at)}"payload":${json}${message.slice(tokenEnd + 2)}`;
  }

  private async handle(cb: (data: string) => Promise<void>, text: string): Promise<void> {
    try {
      await cb(text);
    } catch (error) {
      console.error('Internal error occurred during message handling. Please check your implementation.', error);
      this.socket.close(CloseCode.InternalServerError, internalReason(error));
    }
  }
}

/** `useServer` of graphql-ws/use/ws, with `GraphQLWsConnection` as the socket. */
export function serveGraphQLWs<P extends Record<string, unknown> | undefined, E extends Record<PropertyKey, unknown>>(
  options: ServerOptions<P, SocketExtra & E>,
  ws: WebSocketServer,
  keepAlive = 12_000,
): { dispose(): Promise<void> } {
  const server = makeServer(options);
  ws.options.handleProtocols = handleProtocols;
  ws.once('error', (error) => {
    console.error('Internal error emitted on the WebSocket server. Please check your implementation.', error);
    for (const client of ws.clients) client.close(CloseCode.InternalServerError, internalReason(error));
  });
  ws.on('connection', (socket, request) => {
    socket.once('error', (error) => {
      console.error('Internal error emitted on a WebSocket socket. Please check your implementation.', error);
      socket.close(CloseCode.InternalServerError, internalReason(error));
    });
    const stopPings = keepAlivePings(socket, keepAlive);
    // The upgrade's TCP socket is the one ws writes this connection's frames to.
    const connection = new GraphQLWsConnection(socket, request.socket);
    const closed = server.opened(connection, { socket, request, connection } as SocketExtra & E);
    socket.once('close', (code, reason) => {
      stopPings();
      void closed(code, String(reason));
    });
  });
  return {
    dispose: async () => {
      for (const client of ws.clients) client.close(1001, 'Going away');
      ws.removeAllListeners();
      await new Promise<void>((resolve, reject) => ws.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

/** A ping every `keepAlive` ms; a socket that does not answer within as long is terminated. */
function keepAlivePings(socket: WsSocket, keepAlive: number): () => void {
  if (!(keepAlive > 0 && Number.isFinite(keepAlive))) return () => undefined;
  let pongWait: NodeJS.Timeout | null = null;
  const interval = setInterval(() => {
    if (socket.readyState !== OPEN) return;
    pongWait = setTimeout(() => socket.terminate(), keepAlive);
    socket.once('pong', () => {
      if (pongWait) clearTimeout(pongWait);
      pongWait = null;
    });
    socket.ping();
  }, keepAlive);
  return () => {
    if (pongWait) clearTimeout(pongWait);
    clearInterval(interval);
  };
}

function internalReason(error: unknown): string {
  if (process.env.NODE_ENV === 'production') return 'Internal server error';
  const message = error instanceof Error ? error.message : String(error);
  // A close reason is at most 123 bytes.
  return Buffer.byteLength(message) > 123 ? 'Internal server error' : message;
}
