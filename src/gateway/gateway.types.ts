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
  /** The model's tool_use id: a repeated request with the same id never runs twice. */
  toolUseId?: string | null;
  caller: Caller;
}

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
  EXPERT_REJECTED: 'expert_rejected',
  CLIENT_REJECTED: 'client_rejected',
  APPROVAL_EXPIRED: 'approval_expired',
} as const satisfies Partial<Record<ErrorCode, string>>;
