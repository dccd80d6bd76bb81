import type { EntityManager } from '@mikro-orm/postgresql';
import type { SqlTransaction } from '../db/raw-transaction';
import type { LedgerEvent } from '../ledger/ledger-event.entity';
import { appendAfterUpdate, appendLedgerEvents, type LedgerEntry } from '../ledger/ledger.service';
import { ERROR_CATALOG, type ErrorCode } from '../errors/error-codes';
import type { SealedJson } from '../credentials/sealed-json';
import { effectOf, type OutcomeEffect } from '../policy/policy-outcomes';
import { ToolCall, type ToolCallStatus } from './tool-call.entity';
import { toolKey } from '../catalog/tool-key';
import { BLOCK_REASONS } from './gateway.types';
import { sqlList } from '../db/sql-list';

/**
 * The ToolCall state machine and its only writer. Every status change is a named
 * transition: one conditional UPDATE from the statuses it may leave, plus its ledger
 * event, in the caller's transaction. A transition that finds the call elsewhere changes
 * nothing and says so (false / null), so concurrent or repeated attempts settle once.
 *
 *   (new) → blocked | waiting_approval | running          initialCallStatus (policy)
 *   waiting_approval → approved                           approveCall
 *   waiting_approval → blocked                            rejectCall, expireCall
 *   waiting_approval | approved → blocked                 cancelRunCalls
 *   approved → blocked                                    blockApprovedCall (policy changed, now blocks)
 *   approved → running                                    startApprovedCall
 *   running → succeeded | failed                          settleCall (owner node only)
 *   running → running, on another node                    takeOverCall (reconciliation)
 */
export const TOOL_CALL_TRANSITIONS = {
  approve: { from: ['waiting_approval'], to: 'approved' },
  reject: { from: ['waiting_approval'], to: 'blocked' },
  expire: { from: ['waiting_approval'], to: 'blocked' },
  cancel: { from: ['waiting_approval', 'approved'], to: 'blocked' },
  policyBlock: { from: ['approved'], to: 'blocked' },
  start: { from: ['approved'], to: 'running' },
  succeed: { from: ['running'], to: 'succeeded' },
  fail: { from: ['running'], to: 'failed' },
  takeOver: { from: ['running'], to: 'running' },
} as const satisfies Record<string, { from: readonly ToolCallStatus[]; to: ToolCallStatus }>;

const T = TOOL_CALL_TRANSITIONS;

export type Actor = LedgerEntry['actor'];

/** What a transition needs to know of its call (the row or the entity). */
export interface CallRef {
  id: string;
  orgId: string;
  runId: string;
  toolName: string;
  action: string;
}

interface CallRow {
  id: string;
  org_id: string;
  run_id: string;
  tool_name: string;
  action: string;
}

const RETURNING = 'returning id, org_id, run_id, tool_name, action';
const refOf = (row: CallRow): CallRef => ({ id: row.id, orgId: row.org_id, runId: row.run_id, toolName: row.tool_name, action: row.action });

export function callEvent(call: CallRef, type: LedgerEntry['type'], metadata: Record<string, unknown>, actor: Actor = null): LedgerEntry {
  return {
    orgId: call.orgId,
    type,
    runId: call.runId,
    resourceId: call.id,
    actor,
    metadata: { tool: toolKey(call.toolName, call.action), ...metadata },
  };
}

/** Where a new call enters the machine: the effect of the policy's outcome (policy-outcomes.ts), or blocked when refused before policy. */
export function initialCallStatus(decided: OutcomeEffect | 'refused'): ToolCallStatus {
  return decided === 'refused' ? 'blocked' : decided.callStatus;
}

/** A new call that runs at once: owned by `nodeId`, its input sealed so that reconciliation can repeat it or ask the vendor about it. */
export function sealRunningInput(call: ToolCall, nodeId: string, sealedInput: SealedJson): void {
  call.nodeId = nodeId;
  call.sealedInput = sealedInput;
}

/**
 * waiting_approval → approved. The ledger event is returned for the caller's batch. An
 * approval with edits records the edited input (redacted) beside the requested one.
 */
export async function approveCall(
  tx: EntityManager,
  callId: string,
  actor: Actor,
  metadata: Record<string, unknown>,
  editedInputRedacted: unknown = null,
): Promise<LedgerEntry | null> {
  const edited = editedInputRedacted === null ? '' : ', edited_input_redacted = ?';
  const [row] = await tx.execute<CallRow[]>(
    `update tool_calls set status = '${T.approve.to}'${edited}, updated_at = now() where id = ? and status in (${sqlList(T.approve.from)}) ${RETURNING}`,
    [...(editedInputRedacted === null ? [] : [JSON.stringify(editedInputRedacted)]), callId],
  );
  return row ? callEvent(refOf(row), 'tool_call.approved', metadata, actor) : null;
}

/** waiting_approval → blocked by a human's rejection (EXPERT_REJECTED / CLIENT_REJECTED). */
export async function rejectCall(
  tx: EntityManager,
  callId: string,
  code: 'EXPERT_REJECTED' | 'CLIENT_REJECTED',
  actor: Actor,
  metadata: Record<string, unknown>,
): Promise<LedgerEntry | null> {
  const row = await block(tx, callId, T.reject.from, code);
  return row ? callEvent(refOf(row), 'tool_call.rejected', { ...metadata, errorCode: code }, actor) : null;
}

/** waiting_approval → blocked because its approval ran out of time. */
export async function expireCall(tx: EntityManager, callId: string, metadata: Record<string, unknown>): Promise<LedgerEntry | null> {
  const row = await block(tx, callId, T.expire.from, 'APPROVAL_EXPIRED');
  return row ? callEvent(refOf(row), 'tool_call.expired', { ...metadata, reason: 'approval_expired', errorCode: 'APPROVAL_EXPIRED' }) : null;
}

/** Every waiting or approved call of a cancelled run → blocked (RUN_CANCELLED). */
export async function cancelRunCalls(tx: EntityManager, runId: string, actor: Actor): Promise<LedgerEntry[]> {
  const rows = await tx.execute<CallRow[]>(
    `update tool_calls set status = '${T.cancel.to}', error_code = 'RUN_CANCELLED', error_text = ?, updated_at = now()
      where run_id = ? and status in (${sqlList(T.cancel.from)}) ${RETURNING}`,
    [ERROR_CATALOG.RUN_CANCELLED.modelMessage, runId],
  );
  return rows.map((row) => callEvent(refOf(row), 'tool_call.blocked', { reason: 'run_cancelled', errorCode: 'RUN_CANCELLED' }, actor));
}

/**
 * approved → blocked: the policy changed after the call was decided and now blocks it
 * (POLICY_BLOCKED, or POLICY_OUTCOME_UNKNOWN when it decided what this server does not
 * know), so approving it does not run it. The event names the rule.
 */
export async function blockApprovedCall(
  tx: EntityManager,
  callId: string,
  code: 'POLICY_BLOCKED' | 'POLICY_OUTCOME_UNKNOWN',
  metadata: Record<string, unknown>,
): Promise<LedgerEntry | null> {
  const row = await block(tx, callId, T.policyBlock.from, code);
  return row ? callEvent(refOf(row), 'tool_call.blocked', { ...metadata, reason: BLOCK_REASONS[code], errorCode: code }) : null;
}

async function block(tx: EntityManager, callId: string, from: readonly ToolCallStatus[], code: ErrorCode): Promise<CallRow | null> {
  const [row] = await tx.execute<CallRow[]>(
    `update tool_calls set status = 'blocked', error_code = ?, error_text = ?, updated_at = now()
      where id = ? and status in (${sqlList(from)}) ${RETURNING}`,
    [code, ERROR_CATALOG[code].modelMessage ?? null, callId],
  );
  return row ?? null;
}

/**
 * approved → running on `nodeId`, with its input sealed for reconciliation. False when
 * another claim won (the approved call runs once, whoever asks how often).
 */
export async function startApprovedCall(tx: EntityManager, callId: string, nodeId: string, sealedInput: SealedJson | null): Promise<boolean> {
  const rows = await tx.execute<{ id: string }[]>(
    `update tool_calls set status = '${T.start.to}', node_id = ?, sealed_input = ?, updated_at = now()
      where id = ? and status in (${sqlList(T.start.from)}) returning id`,
    [nodeId, sealedInput === null ? null : JSON.stringify(sealedInput), callId],
  );
  return rows.length > 0;
}

/** The fields an outcome writes besides the status. */
export interface Settlement {
  ok: boolean;
  outputRedacted: unknown;
  durationMs: number | null;
  retryCount: number;
  vendorStatusCode: number | null;
  costCents: number;
  errorCode: ErrorCode | null;
  errorText: string | null;
  /** Flag the call for a person (an outcome nobody could confirm). */
  reviewRequired?: boolean;
  /** The terminal event's metadata (tool is added). */
  metadata: Record<string, unknown>;
  /** Events that precede the terminal one (e.g. tool_call.retried). */
  before?: LedgerEntry[];
}

/** A failure that never reached a vendor answer: no output, no cost, no vendor status. */
export function failureSettlement(
  code: ErrorCode,
  metadata: Record<string, unknown>,
  errorText = ERROR_CATALOG[code].modelMessage ?? null,
): Settlement {
  return {
    ok: false,
    outputRedacted: null,
    durationMs: null,
    retryCount: 0,
    vendorStatusCode: null,
    costCents: 0,
    errorCode: code,
    errorText,
    metadata: { ...metadata, errorCode: code },
  };
}

/**
 * running → succeeded | failed, only while `nodeId` owns the call: a call another node has
 * taken over for reconciliation is settled by that node, never twice. One UPDATE (hot path).
 * `call` gets the written fields; it must not be managed by `tx` (or the commit writes them again).
 */
export async function settleCall(
  tx: SqlTransaction,
  call: CallRef,
  nodeId: string,
  settlement: Settlement,
  /** Writes that follow from the settlement (the run's cost): after the call's row, before the ledger, as every path locks. */
  afterUpdate?: () => Promise<void>,
): Promise<LedgerEvent[] | null> {
  const fields = {
    status: settlement.ok ? T.succeed.to : T.fail.to,
    outputRedacted: settlement.ok ? settlement.outputRedacted : null,
    durationMs: settlement.durationMs,
    retryCount: settlement.retryCount,
    vendorStatusCode: settlement.vendorStatusCode,
    costCents: settlement.ok ? settlement.costCents : 0,
    errorCode: settlement.ok ? null : settlement.errorCode,
    errorText: settlement.ok ? null : settlement.errorText,
    sealedInput: null,
    ...(settlement.reviewRequired ? { reviewRequired: true } : {}),
    updatedAt: new Date(),
  };
  // One `status = ?` (the only status either settlement leaves from): the hot path's statement.
  // The row is locked before the ledger, as on every path.
  const update = {
    sql: `update tool_calls set status = ?, output_redacted = ?::jsonb, duration_ms = ?, retry_count = ?, vendor_status_code = ?,
       cost_cents = ?, error_code = ?, error_text = ?, sealed_input = null,${settlement.reviewRequired ? ' review_required = true,' : ''} updated_at = ?
     where id = ? and status = '${T.succeed.from[0]}' and node_id = ? returning org_id`,
    params: [
      fields.status,
      fields.outputRedacted === null ? null : JSON.stringify(fields.outputRedacted),
      fields.durationMs,
      fields.retryCount,
      fields.vendorStatusCode,
      fields.costCents,
      fields.errorCode,
      fields.errorText,
      fields.updatedAt,
      call.id,
      nodeId,
    ],
  };
  const events = () => [
    ...(settlement.before ?? []),
    callEvent({ ...call, ...fields }, settlement.ok ? 'tool_call.succeeded' : 'tool_call.failed', settlement.metadata),
  ];
  if (!afterUpdate) {
    // Nothing between the row and the ledger: the UPDATE and the append are one statement.
    const appended = await appendAfterUpdate(tx, update, events());
    if (appended) Object.assign(call, fields);
    return appended;
  }
  const changed = await tx.execute<{ org_id: string }[]>(update.sql, update.params);
  if (changed.length === 0) return null;
  Object.assign(call, fields);
  await afterUpdate();
  return appendLedgerEvents(tx, events());
}

/**
 * running (on a dead node, or orphaned on this one) → running on `toNodeId`: the call is
 * handed to reconciliation, recorded as tool_call.interrupted. Null when it settled or
 * another node took it first.
 */
export async function takeOverCall(
  tx: EntityManager,
  callId: string,
  fromNodeId: string | null,
  toNodeId: string,
  reason: string,
): Promise<ToolCall | null> {
  const [row] = await tx.execute<CallRow[]>(
    `update tool_calls set node_id = ?, updated_at = now()
      where id = ? and status in (${sqlList(T.takeOver.from)}) and node_id is not distinct from ? ${RETURNING}`,
    [toNodeId, callId, fromNodeId],
  );
  if (!row) return null;
  await appendLedgerEvents(tx, [callEvent(refOf(row), 'tool_call.interrupted', { reason, previousNodeId: fromNodeId, nodeId: toNodeId })]);
  return tx.findOneOrFail(ToolCall, { id: callId }, { refresh: true });
}

/** Ledger event → the tool-call status it records (subscriptions). `requested` only when it runs at once. */
export function toolCallStatusOf(event: Pick<LedgerEvent, 'type' | 'metadata'>): ToolCallStatus | null {
  switch (event.type) {
    case 'tool_call.requested':
      return effectOf(event.metadata.decision).callStatus === 'running' ? 'running' : null;
    case 'tool_call.blocked':
    case 'tool_call.rejected':
    case 'tool_call.expired':
      return 'blocked';
    case 'tool_call.approval_requested':
      return 'waiting_approval';
    case 'tool_call.approved':
      return 'approved';
    case 'tool_call.succeeded':
      return 'succeeded';
    case 'tool_call.failed':
      return 'failed';
    default:
      return null;
  }
}

/**
 * A reviewer's acknowledgement of a call flagged for review (not a status change): once
 * only, so of concurrent acknowledgements one wins (true) and the others find it taken.
 */
export async function acknowledgeCallReview(
  tx: SqlTransaction,
  callId: string,
  orgId: string,
  by: { keyId: string | null; note: string | null; at: Date },
): Promise<boolean> {
  const won = await tx.execute<{ id: string }[]>(
    `update tool_calls set review_acknowledged_at = ?, review_acknowledged_by = ?, review_note = ?
      where id = ? and org_id = ? and review_required and review_acknowledged_at is null returning id`,
    [by.at, by.keyId, by.note, callId, orgId],
  );
  return won.length > 0;
}
