import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { TestApp } from '../support/app';

export type Era = 'legacy' | 'modern';

export interface ConnectOptions {
  /** 2025 era (initialize, a session) or the stateless 2026-07-28 revision. */
  era?: Era;
  /** The client answers elicitations with this (approve or reject), or cannot be asked. */
  elicitation?: { decision: 'approve' | 'reject' | null; asked: string[] };
  /** A 2025 client that speaks only this revision (e.g. 2025-06-18). */
  protocolVersion?: string;
}

/** The MCP base URL of a test app (its /graphql URL's origin + /mcp). */
export const mcpUrl = (app: TestApp, path: string) => new URL(`/mcp/${path}`, app.url);

/** The official SDK client over real Streamable HTTP, authenticated with `key`. */
export async function connectMcp(app: TestApp, path: string, key: string, options: ConnectOptions = {}): Promise<Client> {
  const era = options.era ?? 'legacy';
  const client = new Client(
    { name: 'toolgate-test', version: '1.0.0' },
    {
      capabilities: options.elicitation ? { elicitation: { form: {} } } : {},
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
      ...(options.protocolVersion ? { supportedProtocolVersions: [options.protocolVersion] } : {}),
    },
  );
  const { elicitation } = options;
  if (elicitation) {
    client.setRequestHandler('elicitation/create', async (request) => {
      elicitation.asked.push(request.params.message);
      if (elicitation.decision === null) return { action: 'cancel' };
      return { action: 'accept', content: { decision: elicitation.decision } };
    });
  }
  const transport = new StreamableHTTPClientTransport(mcpUrl(app, path), { requestInit: { headers: { authorization: `Bearer ${key}` } } });
  await client.connect(transport);
  return client;
}

/** The Toolgate state of a tool result (`_meta["io.toolgate/toolCall"]`). */
export function callState(result: { _meta?: Record<string, unknown> }): {
  status: string;
  toolCallId: string;
  approvalRequestId: string | null;
  replayed: boolean;
} {
  return result._meta?.['io.toolgate/toolCall'] as never;
}

/** A raw JSON-RPC POST (for refusals before MCP begins). */
export async function rawPost(app: TestApp, path: string, body: unknown, key?: string) {
  const response = await fetch(mcpUrl(app, path), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(key ? { authorization: `Bearer ${key}` } : {}),
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { error?: { code: number; message: string; data?: { code?: string } } } };
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
