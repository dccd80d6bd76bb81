import type { RiskLevel } from '../catalog/risk';
import type { Clock } from '../support/clock';

/**
 * The one interface every vendor handler implements. A vendor is a folder under
 * src/vendors/<vendor>/ holding: the handler (this interface), a transport (the only
 * place that does HTTP for that vendor), one file per action, and a sandbox (a loopback
 * HTTP server speaking the vendor's real paths, auth and response shapes). It is
 * registered by one line in src/vendors/index.ts (docs/architecture.md, "Adding a vendor").
 */

/** What a handler needs from the org's stored credential for its integration. */
export interface CredentialSpec {
  /** The IntegrationCredential.integrationType holding this vendor's config. */
  integrationType: string;
  /** Config fields that must be present (e.g. accessToken). */
  required: string[];
  /** No stored credential is fine: the handler then gets `{}` (an upstream MCP server without auth). */
  optional?: boolean;
}

export interface VendorContext {
  /** The decrypted credential config of the org for `credentialSpec.integrationType`. */
  credentials: Record<string, unknown>;
  /** Base URL per endpoint name the handler declares (a sandbox URL in dev and tests). */
  urls: Record<string, string>;
  /** Aborts the attempt at the call's timeout. */
  signal: AbortSignal;
  /** Stable per tool call: sent as the vendor's idempotency key on writes. */
  idempotencyKey: string;
  /**
   * Stable per requested effect: the same for every call of one run that asks for the same
   * action with the same input (a customer repeating a request). A non-idempotent action
   * marks what it creates with it and looks for it before creating again.
   */
  effectKey: string;
  /**
   * An earlier call of the same request in this run may have acted without being answered
   * plainly (it timed out, was reset after sending, failed after an earlier step, or was cut
   * by a crash): look for its effect (ctx.effectKey) before creating. Otherwise an identical
   * request is a new one, and its action creates anew.
   */
  lookForEarlierEffect: boolean;
  /** Per-handler memory that lives as long as the process (e.g. cached access tokens). */
  cache: Map<string, unknown>;
  /** The time for token expiry and the like (systemClock in production; tests move a manual one). */
  clock: Clock;
}

/**
 * One catalog tool action, declared here and nowhere else: the tool catalog (and with it
 * tool_definitions, the gateway's validators and the model's tool list) is derived from
 * the registered handlers' actions (src/catalog/tool-catalog.ts).
 */
export interface VendorAction<Input = Record<string, unknown>, Output = unknown> {
  toolName: string;
  action: string;
  /** What the model and the catalog are told the action does. */
  description: string;
  /** JSON schema of the input; the gateway refuses a call that does not satisfy it. */
  inputSchema: Record<string, unknown>;
  /** The risk policy assumes when no rule matches (low: allow, medium: observe, high: expert approval). */
  defaultRisk: RiskLevel;
  /** What one successful call costs, recorded on the call. */
  costCents: number;
  /** Safe to repeat: the executor may retry it, and reconciliation re-runs it instead of asking the vendor. */
  idempotent: boolean;
  /** Per-attempt vendor timeout; absent means the executor default (VENDOR_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Documented shape of the normalized result. */
  describeResult: string;
  execute(input: Input, ctx: VendorContext): Promise<Output>;
  /**
   * Non-idempotent actions: did the call with ctx.idempotencyKey happen at the vendor (or an
   * earlier call of the same effect, ctx.effectKey)? Finishes what a partial call left
   * undone. Throws when the vendor cannot tell.
   */
  lookup?(input: Input, ctx: VendorContext): Promise<{ performed: true; result: Output } | { performed: false }>;
}

/** A base URL the handler talks to, e.g. Amazon's `lwa` (tokens) and `spApi` (data). */
export interface VendorEndpoint {
  /** Environment variable that overrides it, e.g. AMAZON_SP_API_URL. */
  env: string;
  /** The real vendor's URL, possibly derived from the credential (a Shopify shop domain). */
  production: (credentials: Record<string, unknown>) => string;
}

export interface VendorHandler {
  vendor: string;
  credentialSpec: CredentialSpec;
  endpoints: Record<string, VendorEndpoint>;
  // biome-ignore lint/suspicious/noExplicitAny: one handler's actions take different inputs and results
  actions: VendorAction<any, any>[];
}

/**
 * What a transport throws. The executor maps it to a stable code and a fixed sentence;
 * `status` and `retryAfterMs` drive retries. Never put a vendor body or secret in it.
 */
export class VendorHttpError extends Error {
  constructor(
    readonly status: number,
    readonly retryAfterMs: number | null = null,
  ) {
    super(`vendor answered HTTP ${status}`);
    this.name = 'VendorHttpError';
  }
}

/**
 * A multi-step action stopped after some of its steps happened at the vendor (an invoice
 * created, its email not sent): `result` is what the vendor holds now, `state` names it
 * (e.g. `created_not_emailed`), `cause` is the later step's failure. The executor resumes
 * the rest through the action's `lookup`, or reports this result as it is.
 */
export class VendorPartialError extends Error {
  constructor(
    readonly result: unknown,
    readonly state: string,
    override readonly cause: unknown,
  ) {
    super(`vendor action partly performed (${state})`);
    this.name = 'VendorPartialError';
  }
}

/** The vendor's answer could not be understood (malformed JSON, wrong shape). */
export class VendorProtocolError extends Error {
  constructor(readonly status: number | null = null) {
    super('vendor answer could not be read');
    this.name = 'VendorProtocolError';
  }
}

/**
 * The vendor answered, and its answer is that the action failed (an MCP tool's `isError`
 * result, a JSON-RPC "invalid params"): a healthy vendor, an outcome known not to be a
 * success; not worth repeating.
 */
export class VendorRejectedError extends Error {
  constructor() {
    super('vendor refused the action');
    this.name = 'VendorRejectedError';
  }
}

/** Parses Retry-After: delta-seconds or an HTTP-date; null when absent or invalid. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // Only an IMF-fixdate; Date.parse would also accept junk such as "1.5" as a date.
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(trimmed)) return null;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
