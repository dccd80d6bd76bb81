import { QBO_DEMO_CUSTOMERS } from '../../src/vendors/nango/nango.sandbox-data';
import { SetFeatureFlagDocument } from '../../gql/graphql';
import { CLIENT_AMOUNT, type Flow, startFlow, startRun } from '../approvals/approval-flow';
import { mcpUrl } from './mcp-helpers';

/**
 * A 2025-era client approval asked by elicitation travels on the stream of the tools/call
 * that needs it, not on the session's standalone GET stream. A client opens that GET stream
 * on its own time after `initialize` (the SDK's does it in the background), and the server
 * drops what it would send there while none is open: the elicitation was lost, and the call
 * waited for the SDK's request timeout (the CI flake of mcp-identity and mcp-approvals under
 * load). This client never opens a GET stream, so the race is decided against it every time.
 */
let flow: Flow;
beforeAll(async () => {
  flow = await startFlow();
  const flag = await flow.app.gql(SetFeatureFlagDocument, { key: flow.keys.admin, variables: { key: 'mcp_client_approvals', enabled: true } });
  if (flag.body.errors) throw new Error(JSON.stringify(flag.body.errors));
});
afterAll(async () => {
  await flow.app.close();
});

const PROTOCOL = '2025-11-25';

interface JsonRpc {
  jsonrpc: '2.0';
  id?: number | string;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** A raw Streamable HTTP session: initialize and initialized, and no GET stream ever. */
async function session(url: URL): Promise<(message: JsonRpc, signal?: AbortSignal) => Promise<Response>> {
  let sessionId: string | null = null;
  const post = (message: JsonRpc, signal?: AbortSignal) =>
    fetch(url, {
      method: 'POST',
      signal,
      headers: {
        authorization: `Bearer ${flow.keys.agent}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(sessionId ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': PROTOCOL } : {}),
      },
      body: JSON.stringify(message),
    });
  const init = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: PROTOCOL, capabilities: { elicitation: { form: {} } }, clientInfo: { name: 'no-get-stream', version: '1.0.0' } },
  });
  expect(init.ok).toBe(true);
  sessionId = init.headers.get('mcp-session-id');
  expect(sessionId).toBeTruthy();
  await init.text();
  const initialized = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  expect(initialized.status).toBe(202);
  return post;
}

/** The JSON-RPC messages of an SSE (or JSON) response, as they arrive. */
async function* messagesOf(response: Response): AsyncGenerator<JsonRpc> {
  if (!response.headers.get('content-type')?.includes('text/event-stream')) {
    yield (await response.json()) as JsonRpc;
    return;
  }
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    let end = buffered.indexOf('\n\n');
    while (end !== -1) {
      const data = buffered
        .slice(0, end)
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      buffered = buffered.slice(end + 2);
      if (data) yield JSON.parse(data) as JsonRpc;
      end = buffered.indexOf('\n\n');
    }
  }
}

test('the elicitation of a client approval comes on the tools/call stream: a client without a GET stream answers it and the call runs', async () => {
  const runId = await startRun(flow);
  const post = await session(mcpUrl(flow.app, `runs/${runId}`));
  // Long enough for a busy machine, far shorter than the SDK's 60-s request timeout the lost elicitation waited for.
  const deadline = AbortSignal.timeout(20_000);
  const call = await post(
    {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'invoice.send', arguments: { customerId: QBO_DEMO_CUSTOMERS.amys, amount: CLIENT_AMOUNT } },
    },
    deadline,
  );
  expect(call.ok).toBe(true);
  const asked: string[] = [];
  let result: JsonRpc | null = null;
  try {
    for await (const message of messagesOf(call)) {
      if (message.method === 'elicitation/create' && message.id !== undefined) {
        asked.push(String(message.params?.message));
        const answered = await post({ jsonrpc: '2.0', id: message.id, result: { action: 'accept', content: { decision: 'approve' } } });
        expect(answered.status).toBe(202);
      } else if (message.id === 2) {
        result = message;
        break;
      }
    }
  } catch (error) {
    if (!deadline.aborted) throw error;
  }
  expect({ asked: asked.length, answered: result !== null }).toEqual({ asked: 1, answered: true });
  const state = (result?.result?._meta as Record<string, { status: string }> | undefined)?.['io.toolgate/toolCall'];
  expect(state?.status).toBe('succeeded');
});
