// What the gateway answers about a call: its outcome, replays, and what may be stored.
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors/app-error';
import { ERROR_CATALOG, type ErrorCode } from '../errors/error-codes';
import { ApprovalRequest } from '../approvals/approval-request.entity';
import type { Caller } from '../auth/caller';
import { assertRunOwner } from '../runs/run-visibility';
import type { ToolCall } from './tool-call.entity';
import type { ToolCallOutcome } from './gateway.types';

/**
 * A call refused INVALID_TOOL_INPUT, with what the model is told: each field that failed the
 * tool's schema and why (Ajv's message names the schema's rule, never the input's value), so
 * its next call can be fixed. Ledger rows keep the catalog sentence and the problems apart.
 */
export function invalidInput(outcome: ToolCallOutcome, problems: readonly { path: string; problem: string }[]): ToolCallOutcome {
  if (!outcome.error || problems.length === 0) return outcome;
  const fields = problems.map((p) => `${p.path} ${p.problem}`).join('; ');
  return { ...outcome, error: { ...outcome.error, message: `${outcome.error.message}: ${fields}` } };
}

export function blocked(call: ToolCall, code: ErrorCode): ToolCallOutcome {
  return {
    status: 'blocked',
    toolCallId: call.id,
    result: null,
    error: errorFor(code),
    approvalRequestId: null,
    replayed: false,
    editedParams: null,
  };
}

/**
 * The state of a call made before. A succeeded call replays its stored result, which is
 * the redacted output (only the first answer carried the unredacted one): a call that
 * happened is never reported as failed.
 */
export async function replay(em: EntityManager, call: ToolCall): Promise<ToolCallOutcome> {
  const approval = await em.findOne(ApprovalRequest, { toolCallId: call.id, orgId: call.orgId });
  return { ...outcomeOf(call, call.outputRedacted, approval?.id ?? null), replayed: true };
}

/**
 * Toolgate's own runtime drives internal runs: an API caller must not act on them. An
 * external run is driven only by the key that owns it (RUN_NOT_YOURS), checked before
 * anything is recorded or replayed.
 */
export function assertDriver(run: { driver: string; ownerKeyId: string | null }, caller: Caller): void {
  if (run.driver === 'internal' && caller.keyId !== null) {
    throw new AppError('FORBIDDEN', "This run is driven by Toolgate's agent runtime; its tool calls cannot be made through the API");
  }
  assertRunOwner(run, caller);
}

/** PostgreSQL text and jsonb cannot hold NUL. */
export function isStorable(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return !value.includes('\u0000');
  if (depth > 64 || value === null || typeof value !== 'object') return true;
  return Object.entries(value).every(([key, v]) => !key.includes('\u0000') && isStorable(v, depth + 1));
}

export function storable<T>(value: T): T {
  return isStorable(value) ? value : (JSON.parse(JSON.stringify(value).replace(/\\u0000/g, '\\ufffd')) as T);
}

export function outcomeOf(call: ToolCall, result: unknown, approvalRequestId: string | null): ToolCallOutcome {
  const code = call.errorCode as ErrorCode | null;
  return {
    status: call.status,
    toolCallId: call.id,
    result: call.status === 'succeeded' ? result : null,
    error: code ? errorFor(code) : null,
    approvalRequestId,
    replayed: false,
    editedParams: call.editedInputRedacted ?? null,
  };
}

/** The stable code and the fixed sentence the model is told (an unknown stored code reads as VENDOR_ERROR). */
export function errorFor(code: string | null): { code: ErrorCode; message: string } {
  const known: ErrorCode = code && code in ERROR_CATALOG ? (code as ErrorCode) : 'VENDOR_ERROR';
  return { code: known, message: ERROR_CATALOG[known].modelMessage ?? 'Tool execution failed' };
}
