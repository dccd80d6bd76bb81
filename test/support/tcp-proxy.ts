import net from 'node:net';

/**
 * A TCP proxy a test can cut and restore, to simulate a database outage on a real server:
 * `start(host, port)` listens on an ephemeral port of 127.0.0.1 and pipes each connection
 * to the target; `pause()` closes every open connection and resets each new one at once
 * (the driver sees ECONNRESET) until `resume()`; `stop()` closes everything.
 */
export class TcpProxy {
  private server: net.Server | null = null;
  private readonly clients = new Set<net.Socket>();
  private readonly upstreams = new Set<net.Socket>();
  private paused = false;
  /** Connections accepted and piped to the target since start. */
  accepted = 0;
  /** Connections reset while paused since start. */
  refused = 0;

  /**
   * Proxies a test database: the returned copy's URL goes through this proxy (for the app
   * under test); the original's still goes straight to it (to make and drop it).
   */
  async proxy<T extends { url: string }>(db: T): Promise<T> {
    const direct = new URL(db.url);
    const proxied = new URL(db.url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(await this.start(direct.hostname, Number(direct.port || 5432)));
    return { ...db, url: proxied.toString() };
  }

  /** Listens on an ephemeral port of 127.0.0.1; returns the port. */
  async start(targetHost: string, targetPort: number): Promise<number> {
    if (this.server) throw new Error('the proxy is already started');
    const server = net.createServer((client) => this.accept(client, targetHost, targetPort));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    return this.port;
  }

  get port(): number {
    const address = this.server?.address();
    if (!address || typeof address !== 'object') throw new Error('the proxy is not listening');
    return address.port;
  }

  get isPaused(): boolean {
    return this.paused;
  }

  /** Client connections open through the proxy. */
  get openConnections(): number {
    return this.clients.size;
  }

  /**
   * Cuts the database off: open connections are closed and new ones reset until `resume()`.
   * `end` (the default) closes each client connection with a FIN, as a server going away
   * does (node-postgres: "Connection terminated unexpectedly"); `reset` with an RST
   * (ECONNRESET). The server side of each connection is destroyed either way.
   */
  pause(how: 'end' | 'reset' = 'end'): void {
    this.paused = true;
    for (const upstream of [...this.upstreams]) upstream.destroy();
    for (const client of [...this.clients]) {
      client.unpipe();
      if (how === 'reset') {
        client.resetAndDestroy();
      } else {
        // FIN now; what the client still sends is discarded until it closes its side too.
        client.end();
        client.resume();
      }
    }
  }

  resume(): void {
    this.paused = false;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    for (const socket of [...this.clients, ...this.upstreams]) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private accept(client: net.Socket, targetHost: string, targetPort: number): void {
    client.on('error', () => undefined);
    if (this.paused) {
      this.refused++;
      client.resetAndDestroy();
      return;
    }
    this.accepted++;
    const upstream = net.connect(targetPort, targetHost);
    upstream.on('error', () => undefined);
    this.clients.add(client);
    this.upstreams.add(upstream);
    client.once('close', () => {
      this.clients.delete(client);
      upstream.destroy();
    });
    upstream.once('close', () => {
      this.upstreams.delete(upstream);
      // The server went away on its own: the client sees its connection end.
      if (!client.destroyed) client.end();
    });
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
