import { BrokenCircuitError } from 'cockatiel';
import { AppError } from '../errors/app-error';
import { ERROR_CATALOG } from '../errors/error-codes';
import { VendorHttpError, VendorPartialError, VendorProtocolError, VendorRejectedError } from '../vendors/vendor-handler';
import { VendorNetworkError } from '../vendors/http';
import { UpstreamResultTooLargeError } from '../upstream/mcp-client';
import type { ExecutorErrorCode } from './executor.types';

/** Thrown inside an attempt when the executor's own timer aborted it. */
export class AttemptTimeoutError extends Error {
  constructor() {
    super('vendor call timed out');
    this.name = 'AttemptTimeoutError';
  }
}

export interface Failure {
  code: ExecutorErrorCode;
  reason: string;
  vendorStatusCode: number | null;
  /** Worth another attempt of an idempotent action. */
  transient: boolean;
  /** Counts against the vendor's circuit breaker. */
  vendorUnhealthy: boolean;
  /** For retry records: an HTTP status, `timeout` or `connection_reset`. */
  cause: string;
  retryAfterMs: number | null;
}

const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);

/** Maps anything an attempt threw to a stable code; nothing of the vendor's text survives. */
export function classifyFailure(error: unknown): Failure {
  const base = { vendorStatusCode: null, transient: false, vendorUnhealthy: false, retryAfterMs: null };
  // What happened first is the vendor's; the failure is the later step's.
  if (error instanceof VendorPartialError) return classifyFailure(error.cause);
  if (error instanceof VendorHttpError) {
    const status = error.status;
    return {
      ...base,
      code: status === 429 ? 'VENDOR_RATE_LIMITED' : 'VENDOR_ERROR',
      reason: status === 429 ? 'vendor_rate_limited' : status === 401 || status === 403 ? 'vendor_auth_failed' : 'vendor_error',
      vendorStatusCode: status,
      transient: RETRYABLE_STATUS.has(status),
      vendorUnhealthy: status >= 500,
      cause: String(status),
      retryAfterMs: error.retryAfterMs,
    };
  }
  if (error instanceof AttemptTimeoutError) {
    return { ...base, code: 'VENDOR_TIMEOUT', reason: 'vendor_timeout', transient: true, vendorUnhealthy: true, cause: 'timeout' };
  }
  if (error instanceof VendorNetworkError) {
    return { ...base, code: 'VENDOR_ERROR', reason: 'connection_failed', transient: true, vendorUnhealthy: true, cause: 'connection_reset' };
  }
  if (error instanceof VendorProtocolError) {
    return {
      ...base,
      code: 'VENDOR_ERROR',
      reason: 'vendor_malformed_response',
      vendorStatusCode: error.status,
      vendorUnhealthy: true,
      cause: 'malformed_response',
    };
  }
  if (error instanceof VendorRejectedError) {
    return { ...base, code: 'VENDOR_ERROR', reason: 'vendor_rejected', cause: 'vendor_rejected' };
  }
  if (error instanceof UpstreamResultTooLargeError) {
    // The upstream acted and answered: nothing to retry, and the vendor is not unwell.
    return { ...base, code: 'UPSTREAM_RESULT_TOO_LARGE', reason: 'upstream_result_too_large', cause: 'result_too_large' };
  }
  if (error instanceof BrokenCircuitError) {
    return { ...base, code: 'CIRCUIT_OPEN', reason: 'circuit_open', cause: 'circuit_open' };
  }
  if (error instanceof AppError && error.code === 'CREDENTIALS_NOT_FOUND') {
    return { ...base, code: 'CREDENTIALS_NOT_FOUND', reason: 'credentials_missing', cause: 'credentials_missing' };
  }
  if (error instanceof AppError && error.code === 'CREDENTIALS_UNREADABLE') {
    return { ...base, code: 'CREDENTIALS_UNREADABLE', reason: 'credentials_unreadable', cause: 'credentials_unreadable' };
  }
  return { ...base, code: 'VENDOR_ERROR', reason: 'handler_error', cause: 'handler_error' };
}

export const sanitizedText = (code: ExecutorErrorCode): string => ERROR_CATALOG[code].modelMessage ?? 'Tool execution failed';
