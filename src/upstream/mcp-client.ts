import {
  Client,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { VendorHttpError, VendorProtocolError, VendorRejectedError } from '../vendors/vendor-handler';
import { networkErrorOf } from '../vendors/http';
import { META } from '../mcp/mcp-result';
import type { EgressFetch } from '../egress/egress';
import { egressRefusalIn } from '../egress/egress-refused';

/**
 * The transport of upstream MCP servers: the only place that speaks MCP to them, with the
 * official client SDK over Streamable HTTP. One connection per use (connect, one request,
 * close): nothing is held between calls, so a node keeps no upstream session to lose.
 * Whatever the SDK throws becomes the vendor errors the executor classifies; no upstream
 * text is carried in them.
 */
export interface UpstreamEndpoint {
  url: string;
  /** Sent as `Authorization: Bearer …` when present (from the org's credential vault). */
  bearerToken: string | null;
  /** The egress policy's fetch: the URL is a tenant's, so every connection is checked and pinned, and no redirect followed. */
  fetch: EgressFetch;
}

/** What an upstream tool answered, normalized: its structured content, else its content blocks. */
export type UpstreamResult = Record<string, unknown>;

/** Generous: the executor's own timer (on its clock) ends an attempt first. */
const SDK_TIMEOUT_MS = 10 * 60_000;

export async function withUpstreamClient<T>(
  endpoint: UpstreamEndpoint,
  signal: AbortSignal,
  use: (client: Client) => Promise<T>,
  options: { listMaxPages?: number } = {},
): Promise<T> {
  const client = new Client({ name: 'toolgate', version: '0.1.0' }, { capabilities: {}, listMaxPages: options.listMaxPages });
  const headers: Record<string, string> = endpoint.bearerToken ? { authorization: `Bearer ${endpoint.bearerToken}` } : {};
  const transport = new StreamableHTTPClientTransport(new URL(endpoint.url), {
    requestInit: { headers, signal, redirect: 'manual' },
    fetch: endpoint.fetch,
  });
  try {
    await client.connect(transport, { signal, timeout: SDK_TIMEOUT_MS });
    return await use(client);
  } catch (error) {
    if (signal.aborted) throw error;
    throw vendorErrorOf(error);
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** Every tool the upstream lists: the SDK follows at most `maxPages` pages (UpstreamListTooLongError past them). */
export async function listUpstreamTools(endpoint: UpstreamEndpoint, signal: AbortSignal, maxPages: number): Promise<Tool[]> {
  return withUpstreamClient(
    endpoint,
    signal,
    async (client) => {
      try {
        return (await client.listTools(undefined, { signal, timeout: SDK_TIMEOUT_MS })).tools;
      } catch (error) {
        if (error instanceof SdkError && error.code === SdkErrorCode.ListPaginationExceeded) throw new UpstreamListTooLongError(maxPages);
        throw error;
      }
    },
    { listMaxPages: maxPages },
  );
}

/** The upstream's `tools/list` went on past the pages Toolgate follows. */
export class UpstreamListTooLongError extends Error {
  constructor(readonly maxPages: number) {
    super(`tools/list went on past ${maxPages} pages`);
    this.name = 'UpstreamListTooLongError';
  }
}

/** An upstream tool answered with more than Toolgate keeps: the call fails UPSTREAM_RESULT_TOO_LARGE (the tool did run). */
export class UpstreamResultTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the upstream result was larger than ${maxBytes} bytes`);
    this.name = 'UpstreamResultTooLargeError';
  }
}

/** One `tools/call`; an `isError` result throws VendorRejectedError (the tool said it failed). */
export async function callUpstreamTool(
  endpoint: UpstreamEndpoint,
  tool: { name: string; inputSchema: Record<string, unknown> },
  args: Record<string, unknown>,
  signal: AbortSignal,
  limits: { maxResultBytes: number },
  idempotencyKey?: string,
): Promise<UpstreamResult> {
  // Under the key Toolgate's own MCP endpoint honours: an upstream that knows it tells a retry from a new call.
  const _meta = idempotencyKey ? { [META.idempotencyKey]: idempotencyKey } : undefined;
  const answer = await withUpstreamClient(endpoint, signal, (client) =>
    client.callTool(
      { name: tool.name, arguments: args, ...(_meta ? { _meta } : {}) },
      // The imported schema stands in for a tools/list round trip (and skips output-schema checks).
      { signal, timeout: SDK_TIMEOUT_MS, toolDefinition: { name: tool.name, inputSchema: { ...tool.inputSchema, type: 'object' } } },
    ),
  );
  const result = answer as CallToolResult;
  if (result.isError) throw new VendorRejectedError();
  const normalized = normalizedResult(result);
  // Measured as stored and shown: a giant answer is never written nor handed to the model.
  if (Buffer.byteLength(JSON.stringify(normalized)) > limits.maxResultBytes) throw new UpstreamResultTooLargeError(limits.maxResultBytes);
  return normalized;
}

function normalizedResult(result: CallToolResult): UpstreamResult {
  const structured = result.structuredContent;
  if (typeof structured === 'object' && structured !== null && !Array.isArray(structured)) return structured as UpstreamResult;
  if (structured !== undefined) return { result: structured };
  return { content: result.content ?? [] };
}

/** The JSON-RPC errors that say "your request was wrong", not "the server is unwell". */
const REJECTIONS = new Set<number>([ProtocolErrorCode.InvalidParams, ProtocolErrorCode.MethodNotFound, ProtocolErrorCode.InvalidRequest]);

function vendorErrorOf(error: unknown): Error {
  if (error instanceof VendorRejectedError || error instanceof UpstreamListTooLongError) return error;
  if (egressRefusalIn(error)) return networkErrorOf(error);
  if (error instanceof SdkHttpError) return new VendorHttpError(error.status);
  if (error instanceof ProtocolError) return REJECTIONS.has(error.code) ? new VendorRejectedError() : new VendorProtocolError(null);
  if (error instanceof SdkError) {
    const status = (error.data as { status?: unknown } | undefined)?.status;
    if (typeof status === 'number') return new VendorHttpError(status);
    if (error.code === 'INVALID_RESULT' || error.code === 'UNSUPPORTED_RESULT_TYPE') return new VendorProtocolError(null);
    return networkErrorOf(error);
  }
  if (error instanceof SyntaxError) return new VendorProtocolError(null);
  // fetch's TypeError ("fetch failed"), a reset socket, a closed stream.
  return networkErrorOf(error);
}
