import type { Clock } from '../support/clock';
import { VendorHttpError, VendorProtocolError, parseRetryAfter } from './vendor-handler';
import { egressRefusalIn } from '../egress/egress-refused';

/**
 * The connection failed or was reset before an answer arrived. `mayHaveArrived`: false only
 * when the request certainly never left (refused, no such host); a reset after sending may
 * have reached the vendor, which matters for an action that must not run twice.
 * `unreachable`: no conversation with the server took place that a tenant may be told about
 * (nothing was sent, or the egress policy refused the address or a redirect).
 */
export class VendorNetworkError extends Error {
  constructor(
    readonly mayHaveArrived = true,
    readonly unreachable = !mayHaveArrived,
  ) {
    super('vendor connection failed');
    this.name = 'VendorNetworkError';
  }
}

/** Failures of the connect phase: nothing was sent. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** The VendorNetworkError for what fetch (or a client built on it) threw, from the codes in its cause chain. */
export function networkErrorOf(error: unknown): VendorNetworkError {
  const refusal = egressRefusalIn(error);
  if (refusal) return new VendorNetworkError(refusal.requestSent, true);
  for (let cause = error, depth = 0; cause && depth < 5; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && NEVER_SENT.has(code)) return new VendorNetworkError(false);
    cause = (cause as { cause?: unknown }).cause;
  }
  return new VendorNetworkError(true);
}

export interface VendorJsonResponse<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

/**
 * The HTTP primitive vendor transports build on: JSON in, JSON out. Non-2xx answers throw
 * VendorHttpError (with Retry-After, a date read against `clock`), unreadable bodies VendorProtocolError, connection
 * failures VendorNetworkError; an abort (the executor's timeout) propagates as is. Vendor
 * bodies are never copied into errors.
 */
export async function fetchJson<T = unknown>(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; signal: AbortSignal; clock: Clock },
): Promise<VendorJsonResponse<T>> {
  let response: Response;
  try {
    response = await fetch(url, {
      // A redirect is an answer, never followed: a vendor's access token must not travel to another origin.
      redirect: 'manual',
      method: init.method ?? 'GET',
      headers: { accept: 'application/json', ...(init.headers ?? {}) },
      body: init.body,
      signal: init.signal,
    });
  } catch (error) {
    if (init.signal.aborted) throw error;
    throw networkErrorOf(error);
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    if (init.signal.aborted) throw error;
    // The answer had begun: the request arrived.
    throw new VendorNetworkError(true);
  }
  if (!response.ok) {
    throw new VendorHttpError(response.status, parseRetryAfter(response.headers.get('retry-after'), init.clock.now()));
  }
  try {
    return { status: response.status, body: (text ? JSON.parse(text) : null) as T, headers: response.headers };
  } catch {
    throw new VendorProtocolError(response.status);
  }
}
