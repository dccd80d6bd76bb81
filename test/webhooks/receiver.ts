import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got, and whether its Standard Webhooks signature verified. */
export interface Received {
  headers: Record<string, string>;
  body: string;
  /** The body parsed (whether or not it verified). */
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
  verified: boolean;
  /** performance.now() when the request's body had arrived. */
  at: number;
}

/**
 * A real HTTP webhook receiver on an ephemeral port: verifies each request with the
 * `standardwebhooks` package (as a customer's receiver would) and answers `status`.
 * `next(predicate)` resolves with the first request (already received or still to come) that
 * matches — tests wait on it, never on time.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  /** What the next requests are answered; `hang` holds them open (the sender's timeout ends them). */
  status: number | 'hang' = 200;
  secret: string | null = null;
  private waiters: { predicate: (r: Received) => boolean; resolve: (r: Received) => void }[] = [];
  private readonly server: Server;
  private readonly hanging = new Set<() => void>();

  private constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
        let verified = false;
        try {
          new Webhook(this.secret ?? 'whsec_AAAA').verify(body, headers);
          verified = true;
        } catch {
          verified = false;
        }
        const payload = JSON.parse(body) as Received['payload'];
        const received = { headers, body, payload, verified, at: performance.now() };
        this.received.push(received);
        for (const waiter of [...this.waiters]) {
          if (waiter.predicate(received)) {
            this.waiters.splice(this.waiters.indexOf(waiter), 1);
            waiter.resolve(received);
          }
        }
        if (this.status === 'hang') {
          this.hanging.add(() => res.destroy());
          return;
        }
        res.statusCode = this.status;
        res.end();
      });
    });
  }

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks?tenant=acme`;
  }

  /** Requests whose payload type is `type`. */
  ofType(type: string): Received[] {
    return this.received.filter((r) => JSON.parse(r.body).type === type);
  }

  next(predicate: (r: Received) => boolean, timeoutMs = 10_000): Promise<Received> {
    const found = this.received.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const waiter = {
        predicate,
        resolve: (r: Received) => {
          clearTimeout(timer);
          resolve(r);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(new Error(`no matching webhook within ${timeoutMs} ms; got ${this.received.map((r) => r.body).join('\n')}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  nextOfType(type: string, timeoutMs?: number): Promise<Received> {
    return this.next((r) => JSON.parse(r.body).type === type, timeoutMs);
  }

  async close(): Promise<void> {
    for (const end of this.hanging) end();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
