import type { Clock } from '../clock';
import { VendorHttpError, VendorProtocolError, parseRetryAfter } from './vendor-handler';

/** The connection failed or was reset before an answer arrived. */
export class VendorNetworkError extends Error {
  constructor() {
    super('vendor connection failed');
    this.name = 'VendorNetworkError';
  }
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
      method: init.method ?? 'GET',
      headers: { accept: 'application/json', ...(init.headers ?? {}) },
      body: init.body,
      signal: init.signal,
    });
  } catch (error) {
    if (init.signal.aborted) throw error;
    throw new VendorNetworkError();
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    if (init.signal.aborted) throw error;
    throw new VendorNetworkError();
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
