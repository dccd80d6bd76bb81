/**
 * The executor boundary (layer 4). The gateway hands it an allowed or approved call; it
 * returns an outcome, never throws for vendor trouble, and never lets vendor text or
 * secrets into `errorText`.
 *
 * Glossary:
 * - tool action: a catalog entry `tool.action`, e.g. `order_lookup.lookup`.
 * - vendor: the external system a handler speaks to (shopify, amazon, jumio, nango).
 * - attempt: one HTTP exchange with the vendor; a call may take several (retries).
 */
import type { ErrorCode } from '../errors/error-codes';

export interface ExecutionRequest {
  orgId: string;
  runId: string;
  toolCallId: string;
  /**
   * Which catalog tool action; its vendor handler and idempotency are the registered
   * action's own (src/vendors), never a copy carried here.
   */
  tool: {
    toolName: string;
    action: string;
    /** The catalog's per-attempt timeout; null: the executor default (VENDOR_TIMEOUT_MS). */
    timeoutMs: number | null;
  };
  /** Validated against the tool's input schema; unredacted. */
  params: Record<string, unknown>;
}

export type ExecutorErrorCode = Extract<
  ErrorCode,
  | 'CREDENTIALS_NOT_FOUND'
  | 'CREDENTIALS_UNREADABLE'
  | 'VENDOR_ERROR'
  | 'VENDOR_TIMEOUT'
  | 'VENDOR_RATE_LIMITED'
  | 'CIRCUIT_OPEN'
  | 'UPSTREAM_RESULT_TOO_LARGE'
  // A non-idempotent call whose attempt left the outcome uncertain, settled by asking the vendor.
  | 'VENDOR_NOT_PERFORMED'
  | 'VENDOR_OUTCOME_UNKNOWN'
>;

/** One retry the executor made, for the ledger (`tool_call.retried`). */
export interface RetryRecord {
  attempt: number;
  /** What the failed attempt was: an HTTP status, `timeout` or `connection_reset`. */
  cause: string;
  delayMs: number;
}

export type ExecutionOutcome =
  | {
      ok: true;
      /** The normalized result; the model sees it in full, the ledger stores it redacted. */
      data: unknown;
      vendorStatusCode: number | null;
      retries: RetryRecord[];
      /** For the outcome's ledger event: how an uncertain attempt was settled (uncertain-outcome.ts). */
      metadata?: Record<string, unknown>;
      /** A person should look: a partial action left unfinished. */
      reviewRequired?: boolean;
    }
  | {
      ok: false;
      code: ExecutorErrorCode;
      /** Sanitized, fixed wording: no vendor body, no secrets. */
      errorText: string;
      /** Ledger reason, e.g. `credentials_missing`, `vendor_error`, `vendor_timeout`. */
      reason: string;
      vendorStatusCode: number | null;
      retries: RetryRecord[];
      metadata?: Record<string, unknown>;
      /** VENDOR_OUTCOME_UNKNOWN: the action may have happened. */
      reviewRequired?: boolean;
    };

/**
 * What the vendor says about a call whose outcome was lost (reconciliation of a
 * non-idempotent action, asked with the idempotency key the call was sent with).
 */
export type LookupOutcome =
  /** `partial`: the effect exists but a later step could not be finished (e.g. `created_not_emailed`). */
  | { kind: 'performed'; data: unknown; vendorStatusCode: number | null; partial?: string }
  | { kind: 'not_performed' }
  | { kind: 'unknown'; reason: string };

export interface ToolExecutor {
  execute(request: ExecutionRequest): Promise<ExecutionOutcome>;
  /**
   * Did the call `request.toolCallId` happen at the vendor? Never throws: `unknown` (with a
   * ledger-style reason such as `no_lookup`, `vendor_timeout`, `credentials_missing`) when
   * the vendor cannot tell or cannot be asked.
   */
  lookup?(request: ExecutionRequest): Promise<LookupOutcome>;
}
