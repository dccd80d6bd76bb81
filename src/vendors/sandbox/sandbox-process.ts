import { createSandboxes } from '../index';
import type { NangoSandbox } from '../nango/nango.sandbox';
import { MCP_SANDBOX, type McpSandbox } from '../../upstream/mcp.sandbox';
import { CONTROL_PREFIX, SandboxServer, type Fault, type SandboxRequest, type SandboxResponse, type VendorSandbox } from './sandbox-server';

/**
 * The vendor sandboxes in their own process (`toolgate sandboxes`), so that vendor state
 * (created invoices, emails sent) outlives a Toolgate node: a crash harness kills nodes
 * and asks this process what the vendors did. Besides each vendor under `/<vendor>/…`, a
 * JSON control API under `/_sandbox/`:
 *
 * - `GET /_sandbox/requests[?vendor=V]` → `{ requests: [{ vendor, method, path, query,
 *   fault, requestId }] }`, oldest first (the last 1000)
 * - `POST /_sandbox/faults` `{ vendor, fault, times?, pathIncludes?, bodyIncludes? }` → 201: the next
 *   `times` matching requests get the fault (SandboxServer.injectFault)
 * - `DELETE /_sandbox/faults` → 200: no queued faults
 * - `GET /_sandbox/effects` → `{ nango: [{ invoiceId, docNumber, customerId, totalAmount,
 *   privateNote, requestId, emailsSent }], mcp: [{ notificationId, email, phone, message }] }` (the
 *   upstream MCP sandbox's `contact.notify` messages)
 * - `POST /_sandbox/reset` → 200: a fresh QuickBooks company, no MCP messages, no faults, no recorded requests
 */
export interface RecordedRequestView {
  vendor: string;
  method: string;
  path: string;
  query: Record<string, string>;
  fault: Fault['kind'] | null;
  /** The `requestid` query parameter (QuickBooks' idempotency key), if any. */
  requestId: string | null;
}

export interface ServedSandboxes {
  /** e.g. http://127.0.0.1:4020; each vendor answers under `<url>/<vendor>`. */
  url: string;
  server: SandboxServer;
  stop(): Promise<void>;
}

export const DEFAULT_SANDBOX_PORT = 4020;

const FAULT_KINDS = new Set<Fault['kind']>(['status', 'rate_limit', 'hang', 'malformed_json', 'slow', 'reset', 'after_effect']);

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const json = (status: number, body: unknown): SandboxResponse => ({ status, json: body });
const badRequest = (message: string): SandboxResponse => json(400, { error: message });
const isInteger = (value: unknown, min: number, max: number): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;

/** A Fault from untrusted JSON, or a sentence saying what is wrong with it. */
export function parseFault(value: unknown): Fault | string {
  if (!isObject(value) || typeof value.kind !== 'string' || !FAULT_KINDS.has(value.kind as Fault['kind'])) {
    return `fault.kind must be one of ${[...FAULT_KINDS].join(', ')}`;
  }
  switch (value.kind as Fault['kind']) {
    case 'status':
      return isInteger(value.status, 100, 599) ? { kind: 'status', status: value.status } : 'fault.status must be an HTTP status';
    case 'rate_limit':
      if (value.retryAfter !== 'seconds' && value.retryAfter !== 'http_date') return 'fault.retryAfter must be seconds or http_date';
      if (!isInteger(value.seconds, 0, 86_400)) return 'fault.seconds must be an integer from 0 to 86400';
      return { kind: 'rate_limit', retryAfter: value.retryAfter, seconds: value.seconds };
    case 'slow':
      return isInteger(value.delayMs, 0, 600_000) ? { kind: 'slow', delayMs: value.delayMs } : 'fault.delayMs must be an integer from 0 to 600000';
    case 'hang':
      return { kind: 'hang' };
    case 'malformed_json':
      return { kind: 'malformed_json' };
    case 'reset':
      return { kind: 'reset' };
    case 'after_effect':
      if (value.status === null || value.status === undefined) return { kind: 'after_effect', status: null };
      return isInteger(value.status, 100, 599) ? { kind: 'after_effect', status: value.status } : 'fault.status must be an HTTP status or null';
  }
}

/** The control API's handler for a SandboxServer serving these sandboxes. */
export function createSandboxControl(sandboxes: VendorSandbox[], server: () => SandboxServer): (request: SandboxRequest) => SandboxResponse {
  const vendors = new Set(sandboxes.map((s) => s.vendor));
  const nango = sandboxes.find((s) => s.vendor === 'nango') as NangoSandbox | undefined;
  const mcp = sandboxes.find((s) => s.vendor === MCP_SANDBOX) as McpSandbox | undefined;

  return (request) => {
    const route = `${request.method} ${request.path.replace(/\/+$/, '') || '/'}`;
    switch (route) {
      case 'GET /requests': {
        const vendor = request.query.get('vendor');
        const requests: RecordedRequestView[] = server()
          .requests.filter((r) => !vendor || r.vendor === vendor)
          .map((r) => ({
            vendor: r.vendor,
            method: r.method,
            path: r.path,
            query: Object.fromEntries(r.query),
            fault: r.fault,
            requestId: r.query.get('requestid'),
          }));
        return json(200, { requests });
      }
      case 'POST /faults': {
        const body = request.body;
        if (!isObject(body)) return badRequest('expected a JSON object { vendor, fault, times?, pathIncludes?, bodyIncludes? }');
        if (typeof body.vendor !== 'string' || !vendors.has(body.vendor)) return badRequest(`vendor must be one of ${[...vendors].join(', ')}`);
        const fault = parseFault(body.fault);
        if (typeof fault === 'string') return badRequest(fault);
        if (body.times !== undefined && !isInteger(body.times, 1, 100_000)) return badRequest('times must be an integer from 1 to 100000');
        for (const field of ['pathIncludes', 'bodyIncludes'] as const) {
          if (body[field] !== undefined && (typeof body[field] !== 'string' || body[field] === '')) {
            return badRequest(`${field} must be a non-empty string`);
          }
        }
        const matching = { pathIncludes: body.pathIncludes as string | undefined, bodyIncludes: body.bodyIncludes as string | undefined };
        server().injectFault(body.vendor, fault, { times: body.times as number | undefined, ...matching });
        return json(201, {
          vendor: body.vendor,
          fault,
          times: body.times ?? 1,
          pathIncludes: matching.pathIncludes ?? null,
          bodyIncludes: matching.bodyIncludes ?? null,
        });
      }
      case 'DELETE /faults':
        server().clearFaults();
        return json(200, { cleared: true });
      case 'GET /effects':
        return json(200, { nango: nango?.effects() ?? [], mcp: mcp?.notifications ?? [] });
      case 'POST /reset':
        nango?.reset();
        mcp?.notifications.splice(0);
        server().clearFaults();
        server().requests.length = 0;
        return json(200, { reset: true });
      default:
        return json(404, { error: `no control route ${route} under /${CONTROL_PREFIX}` });
    }
  };
}

/** Serves fresh vendor sandboxes and the control API on one port. */
export async function serveVendorSandboxes(options: { port?: number; host?: string } = {}): Promise<ServedSandboxes> {
  const sandboxes = createSandboxes();
  const server: SandboxServer = new SandboxServer(sandboxes, { control: createSandboxControl(sandboxes, () => server) });
  const url = await server.start(options.port ?? DEFAULT_SANDBOX_PORT, options.host ?? '127.0.0.1');
  return { url, server, stop: () => server.stop() };
}
