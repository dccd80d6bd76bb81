/**
 * A non-idempotent action whose attempt failed in a way that does not say whether the
 * vendor acted — the answer came after the timeout, the connection dropped after the
 * request was sent, a 5xx from a vendor or gateway that may have acted, or a later step of
 * a multi-request action failed after an earlier one happened — is not a plain failure: the
 * executor asks the vendor, as reconciliation after a crash does (the action's `lookup`
 * with the call's idempotency key), and reports what the vendor holds.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../ledger/canonical-json';
import { VendorHttpError, VendorPartialError, VendorProtocolError } from '../vendors/vendor-handler';
import { VendorNetworkError } from '../vendors/http';
import { ERROR_CATALOG } from '../errors/error-codes';
import { AttemptTimeoutError, classifyFailure } from './failure-classifier';
import type { ExecutionOutcome, ExecutionRequest, LookupOutcome } from './executor.types';

/** Past a failed attempt, how long its request may still take to land at the vendor (as after a crash). */
export const LANDING_GRACE_MS = 2000;

export interface Uncertainty {
  /** What left it open: `timeout`, `connection_reset`, an HTTP status, `malformed_response`. */
  cause: string;
  /** The request may still be acted on (queued at the vendor): look only once it cannot land. */
  mayLand: boolean;
  /** Some steps happened (VendorPartialError): what the vendor holds, and its name. */
  partial: { result: unknown; state: string } | null;
}

/** Statuses after which a write may have happened: the vendor failed while acting, or a gateway in front of it gave up. */
const MAY_HAVE_ACTED = new Set([500, 502, 504]);

/** The uncertainty a failure leaves, or null when it is certain nothing happened (a refusal: 4xx, 503, 429, refused connection). */
export function uncertaintyOf(error: unknown): Uncertainty | null {
  if (error instanceof VendorPartialError) {
    const later = uncertaintyOf(error.cause);
    return { cause: classifyFailure(error.cause).cause, mayLand: later?.mayLand ?? false, partial: { result: error.result, state: error.state } };
  }
  if (error instanceof AttemptTimeoutError) return { cause: 'timeout', mayLand: true, partial: null };
  if (error instanceof VendorNetworkError && error.mayHaveArrived) return { cause: 'connection_reset', mayLand: true, partial: null };
  // A gateway's 502/504 may come while the vendor still works on the request.
  if (error instanceof VendorHttpError && MAY_HAVE_ACTED.has(error.status))
    return { cause: String(error.status), mayLand: error.status !== 500, partial: null };
  // A 2xx whose body could not be read: the vendor answered, so it acted.
  if (error instanceof VendorProtocolError && error.status !== null && error.status < 300)
    return { cause: 'malformed_response', mayLand: false, partial: null };
  return null;
}

/**
 * The key of the effect a call asks for: the same for every call of one run with the same
 * tool, action and input (the customer asking again), so the vendor's records show an
 * earlier call's effect to a later one. A run may not make the same request twice.
 */
export function effectKeyOf(request: Pick<ExecutionRequest, 'orgId' | 'runId' | 'tool' | 'params'>): string {
  const fingerprint = canonicalJson([request.orgId, request.runId, request.tool.toolName, request.tool.action, request.params]);
  return `effect-${createHash('sha256').update(fingerprint).digest('hex').slice(0, 40)}`;
}

/**
 * The outcome once the vendor was asked: performed → succeeded with its result (a partial
 * action the lookup finished is marked `partial` and `resumed`); not performed →
 * VENDOR_NOT_PERFORMED; the vendor cannot tell → VENDOR_OUTCOME_UNKNOWN for review. A
 * partial action stays what it is: succeeded with what the vendor holds, for review.
 */
export function outcomeAfterLookup(uncertainty: Uncertainty, found: LookupOutcome, failed: { vendorStatusCode: number | null }): ExecutionOutcome {
  const base = { uncertain: uncertainty.cause, ...(uncertainty.partial ? { partial: uncertainty.partial.state } : {}) };
  if (found.kind === 'performed') {
    const left = found.partial ?? null;
    return {
      ok: true,
      data: found.data,
      vendorStatusCode: found.vendorStatusCode,
      retries: [],
      metadata: {
        ...base,
        reconciled: 'vendor_confirmed',
        ...(uncertainty.partial || left ? { partial: left ?? uncertainty.partial!.state, resumed: !left } : {}),
      },
      reviewRequired: left !== null,
    };
  }
  if (uncertainty.partial) {
    // The earlier step's answer is proof enough: report what exists, and let a person finish it.
    const reason = found.kind === 'unknown' ? found.reason : 'not_found';
    return {
      ok: true,
      data: uncertainty.partial.result,
      vendorStatusCode: failed.vendorStatusCode,
      retries: [],
      metadata: { ...base, resumed: false, lookup: reason },
      reviewRequired: true,
    };
  }
  if (found.kind === 'not_performed') {
    return failure('VENDOR_NOT_PERFORMED', 'not_performed', failed.vendorStatusCode, { ...base, reconciled: 'vendor_not_performed' }, false);
  }
  return failure('VENDOR_OUTCOME_UNKNOWN', found.reason, failed.vendorStatusCode, { ...base, reconciled: 'vendor_outcome_unknown' }, true);
}

function failure(
  code: 'VENDOR_NOT_PERFORMED' | 'VENDOR_OUTCOME_UNKNOWN',
  reason: string,
  vendorStatusCode: number | null,
  metadata: Record<string, unknown>,
  reviewRequired: boolean,
): ExecutionOutcome {
  return { ok: false, code, errorText: ERROR_CATALOG[code].modelMessage!, reason, vendorStatusCode, retries: [], metadata, reviewRequired };
}
