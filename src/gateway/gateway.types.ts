import type { Caller } from '../auth/caller';
import type { ErrorCode } from '../errors/error-codes';
import type { ToolCallStatus } from './tool-call.entity';

/** One tool call as an agent runtime asks for it (ADR-029 step 5). */
export interface ToolCallRequest {
  runId: string;
  toolName: string;
  action: string;
  params: unknown;
  correlationId: string;
  /**
   * The idempotency key (a model's tool_use id, an MCP client's key): it names exactly one
   * call. The same key with the same content replays it; with other content it is refused
   * (IDEMPOTENCY_KEY_REUSED). Without one, every request is a new call, unless `joinRepeats`.
   */
  toolUseId?: string | null;
  /**
   * A request without a key of its own that repeats a call needing approval (an MCP client
   * asked to "call again later"): it joins the run's call with the same content that holds an
   * approval, whatever the concurrency, instead of asking again.
   */
  joinRepeats?: boolean;
  /** Recorded as blocked with this code and never run: input the runtime knows is not the model's whole call. */
  refusal?: { code: RefusalCode; details?: Record<string, unknown> };
  caller: Caller;
}

/** Why the caller itself refuses a call before the gateway decides it. */
export type RefusalCode = 'TOOL_INPUT_TRUNCATED' | 'INVALID_TOOL_INPUT' | 'IDEMPOTENCY_KEY_REUSED';

/** What the gateway answers (ADR-029 step 12), with the sentence the model is told on failure. */
export interface ToolCallOutcome {
  status: ToolCallStatus;
  toolCallId: string;
  /** The normalized vendor result, unredacted: for the model only, never stored as is. */
  result: unknown;
  error: { code: ErrorCode; message: string } | null;
  approvalRequestId: string | null;
  /** True when this answers a request already made (same toolUseId, or an executed approval). */
  replayed: boolean;
  /**
   * Set when a reviewer changed the params before approving: the params the call ran (or
   * runs) with, redacted. The model is told, so it never claims the requested ones.
   */
  editedParams: unknown;
}

/** Ledger reasons for blocked and failed calls, stable like the codes. */
export const BLOCK_REASONS = {
  FEATURE_DISABLED: 'feature_disabled',
  NOT_IN_MANIFEST: 'not_in_manifest',
  INVALID_TOOL_INPUT: 'invalid_tool_input',
  TOOL_INPUT_TRUNCATED: 'tool_input_truncated',
  IDEMPOTENCY_KEY_REUSED: 'idempotency_key_reused',
  POLICY_BLOCKED: 'policy_blocked',
  POLICY_OUTCOME_UNKNOWN: 'policy_outcome_unknown',
  EXPERT_REJECTED: 'expert_rejected',
  CLIENT_REJECTED: 'client_rejected',
  APPROVAL_EXPIRED: 'approval_expired',
} as const satisfies Partial<Record<ErrorCode, string>>;
