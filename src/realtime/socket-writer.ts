import type { Writable } from 'node:stream';
import type { WebSocket } from 'ws';

const OPEN = 1; // WebSocket.OPEN

/**
 * Every message written to one graphql-ws socket goes through its writer, which knows how
 * many of them are still queued in the socket (written, not yet taken by the kernel): the
 * measure of a client that stopped reading. It keeps, per message still queued, only where
 * it ends in the byte stream; for a client that reads, nothing.
 *
 * Given the connection's TCP stream (the upgrade request's socket, which ws writes its
 * frames to), several messages can be written corked: one `writev` system call for all of
 * them instead of one each (src/realtime/ledger-member.ts, a burst's frames).
 */
export class SocketWriter {
  private readonly send: (data: unknown, ...rest: unknown[]) => void;
  /** Bytes handed to ws in all (frame headers included), and where each queued message ends. */
  private written = 0;
  private ends: number[] = [];
  private flushed = 0;

  constructor(
    readonly socket: WebSocket,
    private readonly stream?: Pick<Writable, 'cork' | 'uncork'>,
  ) {
    this.send = socket.send.bind(socket) as (data: unknown, ...rest: unknown[]) => void;
  }

  get open(): boolean {
    return this.socket.readyState === OPEN;
  }

  /** Whether `cork` can hold messages back (the TCP stream is known). */
  get corkable(): boolean {
    return this.stream !== undefined;
  }

  /** Holds what is written until `uncork`, then hands it to the kernel at once (Node's `Writable.cork`). */
  cork(): void {
    this.stream?.cork();
  }

  uncork(): void {
    this.stream?.uncork();
  }

  /** Writes a text message of `bytes` bytes (UTF-8); `done` is told when the socket has taken it. */
  write(text: string, bytes: number, done?: (error?: Error) => void): void {
    this.count(bytes);
    if (done) this.send(text, done);
    else this.send(text);
  }

  /** Messages written but still queued in the socket (corked ones included). */
  queuedMessages(): number {
    const flushed = this.written - this.socket.bufferedAmount;
    const { ends } = this;
    while (this.flushed < ends.length && ends[this.flushed] <= flushed) this.flushed++;
    if (this.flushed === ends.length) {
      ends.length = 0;
      this.flushed = 0;
      return 0;
    }
    if (this.flushed > 4096) {
      this.ends = ends.slice(this.flushed);
      this.flushed = 0;
    }
    return this.ends.length - this.flushed;
  }

  private count(bytes: number): void {
    // ws queues a frame header (2, 4 or 10 bytes) with each message.
    this.written += bytes + (bytes < 126 ? 2 : bytes < 65_536 ? 4 : 10);
    this.ends.push(this.written);
  }
}
