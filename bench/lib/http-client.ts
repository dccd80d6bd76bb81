import http from 'node:http';

/**
 * A GraphQL-over-HTTP client on keep-alive sockets (one per concurrent caller), built on
 * node:http rather than fetch because it costs this process — which also hosts the
 * server — less CPU per request.
 */
export class GraphQLClient {
  private agent: http.Agent;
  private readonly target: URL;

  constructor(
    url: string,
    private readonly sockets: number,
  ) {
    this.target = new URL(url);
    this.agent = this.newAgent();
  }

  private newAgent(): http.Agent {
    return new http.Agent({ keepAlive: true, maxSockets: this.sockets, maxFreeSockets: this.sockets });
  }

  /**
   * Fresh sockets before a measurement: a socket left idle longer than the server's
   * keep-alive timeout (5 s) may be closed by the server just as it is reused (ECONNRESET).
   */
  reset(): void {
    this.agent.destroy();
    this.agent = this.newAgent();
  }

  /** POSTs one operation; resolves with `data`, rejects on an HTTP or GraphQL error. */
  request<T = Record<string, any>>(query: string, variables: Record<string, unknown>, key: string): Promise<T> {
    const body = JSON.stringify({ query, variables });
    return new Promise<T>((resolve, reject) => {
      const req = http.request(
        {
          host: this.target.hostname,
          port: this.target.port,
          path: this.target.pathname,
          method: 'POST',
          agent: this.agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            authorization: `Bearer ${key}`,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            try {
              const parsed = JSON.parse(text) as { data?: T; errors?: { message: string; extensions?: { code?: string } }[] };
              if (res.statusCode !== 200 || parsed.errors?.length) {
                const first = parsed.errors?.[0];
                reject(new Error(`HTTP ${res.statusCode}: ${first ? `${first.extensions?.code ?? ''} ${first.message}` : text.slice(0, 200)}`));
              } else {
                resolve(parsed.data as T);
              }
            } catch (error) {
              reject(error);
            }
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
