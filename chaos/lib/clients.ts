/**
 * What the harness sees, as an operator would: the GraphQL API over HTTP (with API keys)
 * and the vendor sandboxes' control API (`/_sandbox/…` of `toolgate sandboxes`).
 */
export class GraphqlError extends Error {
  constructor(
    message: string,
    readonly code: string | null,
  ) {
    super(message);
  }
}

/** The request never got an answer (connection refused or reset: the node is down or died). */
export class ConnectionLost extends Error {}

export async function graphql<T = any>(
  url: string,
  key: string,
  query: string,
  variables: Record<string, unknown> = {},
  timeoutMs = 15_000,
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ query, variables }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new ConnectionLost(
      `${url}: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}`,
    );
  }
  let body: { data?: T; errors?: { message: string; extensions?: { code?: string } }[] };
  try {
    body = (await response.json()) as typeof body;
  } catch (error) {
    throw new ConnectionLost(`${url}: the answer was cut off (${(error as Error).message})`);
  }
  if (body.errors?.length) {
    const [first] = body.errors;
    throw new GraphqlError(`${first.extensions?.code ?? 'ERROR'}: ${first.message}`, first.extensions?.code ?? null);
  }
  if (!body.data) throw new GraphqlError(`HTTP ${response.status} without data`, null);
  return body.data;
}

export interface SandboxRequestView {
  vendor: string;
  method: string;
  path: string;
  query: Record<string, string>;
  fault: string | null;
  requestId: string | null;
}

import type { InvoiceEffect } from '../../src/vendors/nango/nango.quickbooks-sandbox';

export type { InvoiceEffect };

export type Fault =
  | { kind: 'status'; status: number }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'hang' }
  | { kind: 'reset' }
  | { kind: 'after_effect'; status: number | null }
  | { kind: 'malformed_json' }
  | { kind: 'rate_limit'; retryAfter: 'seconds' | 'http_date'; seconds: number };

export class SandboxControl {
  constructor(readonly url: string) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.url}/_sandbox${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const json = (await response.json()) as T;
    if (!response.ok) throw new Error(`sandbox ${method} ${path}: HTTP ${response.status} ${JSON.stringify(json)}`);
    return json;
  }

  async requests(vendor?: string): Promise<SandboxRequestView[]> {
    return (await this.call<{ requests: SandboxRequestView[] }>('GET', `/requests${vendor ? `?vendor=${vendor}` : ''}`)).requests;
  }

  async effects(): Promise<InvoiceEffect[]> {
    return (await this.call<{ nango: InvoiceEffect[] }>('GET', '/effects')).nango;
  }

  async fault(vendor: string, fault: Fault, options: { times?: number; pathIncludes?: string } = {}): Promise<void> {
    await this.call('POST', '/faults', { vendor, fault, ...options });
  }

  async clearFaults(): Promise<void> {
    await this.call('DELETE', '/faults');
  }

  async reset(): Promise<void> {
    await this.call('POST', '/reset');
  }
}

/** The tool call id an invoice's PrivateNote names (`toolgate:toolgate-<id>`), or null. */
export function toolCallIdOfInvoice(effect: InvoiceEffect): string | null {
  const match = /(?:^|\s)toolgate:toolgate-([0-9a-f-]{36})(?:\s|$)/.exec(effect.privateNote ?? '');
  return match ? match[1] : null;
}

/** The tool call id of a QuickBooks write's `requestid` (`toolgate-<id>` or `toolgate-<id>-send`). */
export function toolCallIdOfRequestId(requestId: string | null): string | null {
  const match = /^toolgate-([0-9a-f-]{36})(?:-send)?$/.exec(requestId ?? '');
  return match ? match[1] : null;
}
