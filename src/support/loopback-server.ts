import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A small HTTP server for the development doubles (the offline model, the vendor
 * sandboxes) and METRICS_PORT's listener: listens on a port (0: any free one) and, on stop, ends its open connections
 * at once instead of waiting for keep-alive sockets to idle out.
 */
export class LoopbackServer {
  private readonly sockets = new Set<Socket>();
  private server: http.Server | null = null;
  private baseUrl = '';

  constructor(private readonly listener: http.RequestListener) {}

  /** The base URL once listening, e.g. `http://127.0.0.1:PORT`. */
  get url(): string {
    return this.baseUrl;
  }

  /** Listens and resolves to the base URL; a second call answers the same URL. */
  async start(port = 0, host = '127.0.0.1'): Promise<string> {
    if (this.server) return this.baseUrl;
    const server = http.createServer(this.listener);
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    this.server = server;
    const address = server.address() as AddressInfo;
    const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    this.baseUrl = `http://${hostPart}:${address.port}`;
    return this.baseUrl;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
