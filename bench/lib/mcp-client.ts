import http from 'node:http';

/**
 * MCP `tools/call` as JSON-RPC over node:http on keep-alive sockets, inside a 2025-era
 * session the official SDK client opened (its session id and negotiated protocol version):
 * the MCP counterpart of GraphQLClient, so the bench compares the two servers' paths with
 * clients of the same weight. The SDK client (fetch, zod on every message) costs this
 * process — which also hosts the server — several times the CPU of either.
 */
export class McpLeanClient {
  private agent: http.Agent;
  private readonly target: URL;
  private nextId = 1_000_000;

  constructor(
    url: string,
    private readonly session: { sessionId: string; protocolVersion: string; key: string },
  ) {
    this.target = new URL(url);
    this.agent = new http.Agent({ keepAlive: true, maxSockets: 1, maxFreeSockets: 1 });
  }

  /** Fresh sockets before a measurement (see GraphQLClient.reset). */
  reset(): void {
    this.agent.destroy();
    this.agent = new http.Agent({ keepAlive: true, maxSockets: 1, maxFreeSockets: 1 });
  }

  /** One tools/call; resolves with its result, rejects on an HTTP or JSON-RPC error. */
  callTool(name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<{ isError?: boolean; content: unknown }> {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: this.nextId++,
      method: 'tools/call',
      params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
    });
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: this.target.hostname,
          port: this.target.port,
          path: this.target.pathname,
          method: 'POST',
          agent: this.agent,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'content-length': Buffer.byteLength(body),
            authorization: `Bearer ${this.session.key}`,
            'mcp-session-id': this.session.sessionId,
            'mcp-protocol-version': this.session.protocolVersion,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            try {
              // An SSE stream (the SDK's default) or a JSON body: the last JSON-RPC message is the answer.
              const json = (res.headers['content-type'] ?? '').startsWith('text/event-stream')
                ? text
                    .split('\n')
                    .filter((line) => line.startsWith('data: '))
                    .map((line) => line.slice(6))
                    .pop()
                : text;
              const message = JSON.parse(json ?? '') as { result?: { isError?: boolean; content: unknown }; error?: { message: string } };
              if (res.statusCode !== 200 || message.error || !message.result) {
                reject(new Error(`HTTP ${res.statusCode}: ${message.error?.message ?? text.slice(0, 200)}`));
              } else resolve(message.result);
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
