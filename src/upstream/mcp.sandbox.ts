import { Server, createMcpHandler } from '@modelcontextprotocol/server';
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import type { SandboxRequest, SandboxResponse, VendorSandbox } from '../vendors/sandbox/sandbox-server';

/**
 * An upstream MCP server for tests and the demo, built with the official server SDK and
 * served by the vendor sandboxes at `<sandbox url>/mcp` over Streamable HTTP (both protocol
 * eras; 2025-era clients are served statelessly). HTTP faults (5xx, slow, hang, a dropped
 * connection) are the sandbox server's, picked by `bodyIncludes: 'tools/call'`; a tool
 * error result is data: the weather of `Atlantis` is unknown.
 */
export const MCP_SANDBOX = 'mcp';

export const MCP_SANDBOX_TOOLS: Tool[] = [
  {
    name: 'weather.lookup',
    description: 'The forecast for a city today',
    inputSchema: {
      type: 'object',
      properties: { city: { type: 'string', minLength: 1, maxLength: 100 } },
      required: ['city'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'contact.notify',
    description: 'Send a customer a message by email and text message',
    inputSchema: {
      type: 'object',
      properties: {
        email: { type: 'string', minLength: 3, maxLength: 200 },
        phone: { type: 'string', minLength: 3, maxLength: 40 },
        message: { type: 'string', minLength: 1, maxLength: 1000 },
      },
      required: ['email', 'message'],
      additionalProperties: false,
    },
  },
];

const FORECASTS: Record<string, { forecast: string; temperatureC: number }> = {
  berlin: { forecast: 'light rain', temperatureC: 9 },
  lisbon: { forecast: 'sunny', temperatureC: 21 },
  toronto: { forecast: 'snow showers', temperatureC: -3 },
};

export interface McpSandboxNotification {
  notificationId: string;
  email: string;
  phone: string | null;
  message: string;
}

export interface McpSandbox extends VendorSandbox {
  /** Messages `contact.notify` sent, oldest first (what a write did at the vendor). */
  readonly notifications: McpSandboxNotification[];
  /** The tools it lists; a test edits it to see a re-import's diff. */
  tools: Tool[];
  /** A bearer token every request must carry, or null for none. */
  bearerToken: string | null;
  /** Tools per `tools/list` page (a cursor names the next), or null for one page. */
  pageSize: number | null;
}

const result = (structured: Record<string, unknown>): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(structured) }],
  structuredContent: structured,
});

/** One page of `tools/list`: the cursor is the index of the page's first tool. */
function listPage(sandbox: McpSandbox, cursor: string | undefined): { tools: Tool[]; nextCursor?: string } {
  if (sandbox.pageSize === null) return { tools: sandbox.tools };
  const from = Number(cursor ?? 0);
  const to = from + sandbox.pageSize;
  return { tools: sandbox.tools.slice(from, to), ...(to < sandbox.tools.length ? { nextCursor: String(to) } : {}) };
}

const toolError = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

export function createMcpSandbox(options: { bearerToken?: string | null } = {}): McpSandbox {
  const sandbox: McpSandbox = {
    vendor: MCP_SANDBOX,
    notifications: [],
    tools: MCP_SANDBOX_TOOLS.map((tool) => structuredClone(tool)),
    bearerToken: options.bearerToken ?? null,
    pageSize: null,
    routes: [],
  };

  const callTool = (name: string, args: Record<string, unknown>): CallToolResult => {
    if (!sandbox.tools.some((tool) => tool.name === name)) return toolError(`Unknown tool ${name}`);
    // A tool a test adds to `tools` to get a result of the size it asks for.
    if (name === 'text.repeat') return result({ text: String(args.text ?? '').repeat(Number(args.times ?? 1)) });
    if (name === 'weather.lookup') {
      const city = String(args.city ?? '');
      const known = FORECASTS[city.toLowerCase()];
      return known ? result({ city, ...known }) : toolError(`No forecast for ${city}`);
    }
    const sent: McpSandboxNotification = {
      notificationId: `ntf_${sandbox.notifications.length + 1001}`,
      email: String(args.email),
      phone: typeof args.phone === 'string' ? args.phone : null,
      message: String(args.message),
    };
    sandbox.notifications.push(sent);
    return result({ notificationId: sent.notificationId, sentTo: { email: sent.email, phone: sent.phone }, status: 'sent' });
  };

  const handler = createMcpHandler(() => {
    const server = new Server({ name: 'toolgate-mcp-sandbox', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', (request) => listPage(sandbox, request.params?.cursor));
    server.setRequestHandler('tools/call', (request) => callTool(request.params.name, request.params.arguments ?? {}));
    return server;
  });

  const serve = async (request: SandboxRequest): Promise<SandboxResponse> => {
    if (sandbox.bearerToken && request.headers.authorization !== `Bearer ${sandbox.bearerToken}`) {
      return { status: 401, headers: { 'www-authenticate': 'Bearer' }, json: { error: 'invalid_token' } };
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === 'string') headers.set(name, value);
    }
    const response = await handler.fetch(
      new Request(`http://sandbox${request.path}`, {
        method: request.method,
        headers,
        body: request.method === 'POST' ? request.rawBody : undefined,
      }),
    );
    const answer: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      answer[name] = value;
    });
    // One exchange per request: the body (JSON or a finished SSE stream) is read whole.
    return { status: response.status, headers: answer, text: await response.text() };
  };

  sandbox.routes = (['GET', 'POST', 'DELETE'] as const).map((method) => ({ method, path: /^\/.*$/, handle: serve }));
  return sandbox;
}
