import type { MetadataStorage } from '@mikro-orm/core';
import type { SqlTransaction } from '../db/raw-transaction';
import { ToolCall } from './tool-call.entity';
import { PolicyDecision } from '../policy/policy-decision.entity';
import type { ApprovalRequest } from '../approvals/approval-request.entity';
import { dropSealedParams, openApproval } from '../approvals/approval-state';
import { type ApprovalRouting, ladderTimes } from '../policy/approval-routing';
import { approvalBindingHash, sealedParamsAad } from '../approvals/approval-binding';
import { sealJson } from '../credentials/sealed-json';
import type { MasterKeyring } from '../credentials/keyring';
import { appendLedgerEvents, type JoinedWrite, type LedgerEntry } from '../ledger/ledger.service';
import { redactOutput } from '../redaction/redact';
import { ERROR_CATALOG, type ErrorCode } from '../errors/error-codes';
import type { PolicyVerdict } from '../policy/policy-evaluator';
import type { PolicyOutcome } from '../policy/policy-decision-outcome';
import { enforced, reviewRequiredBy } from '../policy/policy-outcomes';
import type { ExecutionOutcome } from '../executor/executor.types';
import type { RegisteredTool } from './tool-registry';
import type { RunStatus } from '../runs/agent-run.entity';
import { addToolCost, awaitApproval } from '../runs/run-state';
import { callEvent, failureSettlement, initialCallStatus, sealRunningInput, settleCall } from './tool-call-state';
import { BLOCK_REASONS, type ToolCallRequest } from './gateway.types';
import { toolKey } from '../catalog/tool-key';
import { insertSql } from '../db/insert-sql';

/**
 * The gateway's writes. Each function runs inside one transaction of the caller and
 * writes the rows and ledger events of one step together, so the ledger never tells
 * a story the tables do not. Rows are built detached and inserted in the same statement
 * as their ledger events (`insertSql`, joined to the append), not through the unit of
 * work: the hot path knows exactly what it writes, and one round trip carries it.
 */
interface CallBase {
  run: { id: string; orgId: string; status: RunStatus };
  request: ToolCallRequest;
  inputRedacted: unknown;
  /** The call's content as one value (call-fingerprint.ts): what its key names. */
  fingerprint: string;
  /** The ORM's metadata: the rows' INSERTs are made from it. */
  metadata: MetadataStorage;
  /** When the call was decided (the gateway's clock: what history windows are measured on); default now. */
  createdAt?: Date;
  /** The run was not read for this call: the decision's statement checks it (run-cache.ts) and rolls back if it changed. */
  runCheck?: JoinedWrite;
}

/** A new row, detached: the entity's own initializers fill ids and defaults. */
const detached = <T extends object>(Entity: new () => T, fields: Partial<T>): T => Object.assign(new Entity(), fields);

export interface DecidedCall {
  call: ToolCall;
  tool: RegisteredTool;
  approvalRequestId: string | null;
  /** The policy's enforced outcome (allow, observe, block, require_*_approval). */
  decision: PolicyOutcome;
}

function newCall(base: CallBase, fields: Partial<ToolCall> & Pick<ToolCall, 'status'>): ToolCall {
  return detached(ToolCall, {
    orgId: base.run.orgId,
    runId: base.run.id,
    toolName: base.request.toolName,
    action: base.request.action,
    correlationId: base.request.correlationId,
    toolUseId: base.request.toolUseId ?? null,
    fingerprint: base.fingerprint,
    inputRedacted: base.inputRedacted,
    ...(base.createdAt ? { createdAt: base.createdAt } : {}),
    ...fields,
  });
}

/** A call's event as the gateway records it: the caller's, with the call's correlation id. */
function requestEvent(call: ToolCall, base: CallBase, type: LedgerEntry['type'], metadata: Record<string, unknown>): LedgerEntry {
  return callEvent(call, type, { correlationId: call.correlationId, ...metadata }, base.request.caller);
}

/** A call stopped before policy (flag, manifest, input): its row and its two events, the transaction's last statement. */
export async function recordBlockedCall(
  tx: SqlTransaction,
  base: CallBase,
  code: ErrorCode,
  reason: string,
  details: Record<string, unknown>,
): Promise<ToolCall> {
  const call = newCall(base, { status: initialCallStatus('refused'), errorCode: code, errorText: ERROR_CATALOG[code].modelMessage ?? null });
  await appendLedgerEvents(
    tx,
    [requestEvent(call, base, 'tool_call.requested', {}), requestEvent(call, base, 'tool_call.blocked', { reason, errorCode: code, ...details })],
    [insertSql(base.metadata, 'ToolCall', call)],
    // The decision's last statement: alone (no BEGIN, no COMMIT) when nothing came before it.
    { toolUse: toolUseOf(base), last: true, precondition: base.runCheck },
  );
  return call;
}

/** The tool use an append records: a racing request may have recorded it while this one waited for the lock. */
function toolUseOf(base: CallBase): { runId: string; toolUseId: string } | undefined {
  return base.request.toolUseId ? { runId: base.run.id, toolUseId: base.request.toolUseId } : undefined;
}

/** An approval's quorum, ladder and times from its rule's routing. */
function routedApproval(routing: ApprovalRouting, nowMs: number, ttlMs: number) {
  return { quorum: routing.quorum, escalation: routing.escalation, ...ladderTimes(routing, nowMs, ttlMs) };
}

/** A call the policy decided: decision row, call row, and an approval request when needed; the transaction's last statement. */
export async function recordDecidedCall(
  tx: SqlTransaction,
  input: CallBase & {
    tool: RegisteredTool;
    verdict: PolicyVerdict;
    policyVersion: number;
    keyring: MasterKeyring;
    approvalTtlMs: number;
    params: Record<string, unknown>;
    /** This node: a call that runs at once is owned by it until it settles. */
    nodeId: string;
    /** A call that runs at once joins this node's in-flight set before it is written (the orphan scan must never see it as abandoned). */
    claim: (callId: string) => void;
  },
): Promise<DecidedCall> {
  const { run, request, tool } = input;
  // An outcome the table does not know is recorded as the block it is enforced as.
  const { verdict, effect } = enforced(input.verdict);
  const decision = detached(PolicyDecision, {
    orgId: run.orgId,
    runId: run.id,
    toolName: request.toolName,
    action: request.action,
    outcome: verdict.outcome,
    shadowOutcome: verdict.shadowOutcome,
    risk: verdict.risk,
    matchedRuleId: verdict.matchedRuleId,
    policyVersion: input.policyVersion,
    callerRole: request.caller.role,
    callerKeyId: request.caller.keyId,
    reason: verdict.reason,
  });
  const call = newCall(input, {
    status: initialCallStatus(effect),
    policyDecisionId: decision.id,
    riskLevel: verdict.risk,
    reviewRequired: reviewRequiredBy(verdict.outcome, verdict.shadowOutcome),
    ...(effect.blockCode ? { errorCode: effect.blockCode, errorText: ERROR_CATALOG[effect.blockCode].modelMessage } : {}),
  });
  const sealed = () => sealJson(input.keyring.current.key, input.keyring.current.version, sealedParamsAad(run.orgId, call.id), input.params);
  // Sealed while it runs, so that reconciliation can repeat it or ask the vendor about it.
  if (call.status === 'running') {
    sealRunningInput(call, input.nodeId, sealed());
    input.claim(call.id);
  }
  const events: LedgerEntry[] = [
    requestEvent(call, input, 'tool_call.requested', {
      decision: verdict.outcome,
      shadowDecision: verdict.shadowOutcome,
      risk: verdict.risk,
      matchedRuleId: verdict.matchedRuleId,
      policyVersion: input.policyVersion,
    }),
  ];
  const rows = [insertSql(input.metadata, 'PolicyDecision', decision), insertSql(input.metadata, 'ToolCall', call)];
  let approvalRequestId: string | null = null;
  if (effect.blockCode) {
    events.push(
      requestEvent(call, input, 'tool_call.blocked', {
        reason: BLOCK_REASONS[effect.blockCode],
        errorCode: effect.blockCode,
        matchedRuleId: verdict.matchedRuleId,
      }),
    );
  } else if (effect.approver) {
    const opened = openApproval(input.metadata, {
      orgId: run.orgId,
      runId: run.id,
      toolCallId: call.id,
      kind: effect.approver,
      bindingHash: approvalBindingHash({
        orgId: run.orgId,
        runId: run.id,
        toolName: request.toolName,
        action: request.action,
        params: input.params,
        policyVersion: input.policyVersion,
      }),
      sealedParams: sealed(),
      requestedBy: request.caller.keyId,
      // The rule's quorum and ladder travel with the approval: a later rule change does not move them.
      ...(verdict.routing
        ? routedApproval(verdict.routing, Date.now(), input.approvalTtlMs)
        : { expiresAt: new Date(Date.now() + input.approvalTtlMs) }),
    });
    approvalRequestId = opened.approval.id;
    rows.push(opened.insert);
    events.push(
      requestEvent(call, input, 'tool_call.approval_requested', {
        approvalRequestId,
        kind: effect.approver,
        expiresAt: opened.approval.expiresAt.toISOString(),
        ...(opened.approval.quorum > 1 ? { quorum: opened.approval.quorum } : {}),
        ...(opened.approval.stepEndsAt ? { stepEndsAt: opened.approval.stepEndsAt.toISOString() } : {}),
      }),
    );
    // The run's row is locked here, before the ledger's append point, as on every path.
    events.push(...(await awaitApproval(tx, run, request.caller, call.id)));
  }
  // The decision's last statement: alone (no BEGIN, no COMMIT) when nothing came before it.
  await appendLedgerEvents(tx, events, rows, { toolUse: toolUseOf(input), last: true, precondition: input.runCheck });
  return { call, tool, approvalRequestId, decision: verdict.outcome };
}

/**
 * Transaction 2: the executor's outcome on the call, its ledger events, the run's cost.
 * Null when this node no longer owns the call (it was handed to reconciliation meanwhile).
 */
export async function recordOutcome(
  tx: SqlTransaction,
  call: ToolCall,
  outcome: ExecutionOutcome,
  extra: { durationMs: number; costCents: number; approvalRequestId: string | null; nodeId: string },
): Promise<ToolCall | null> {
  const tool = toolKey(call.toolName, call.action);
  const base = { orgId: call.orgId, runId: call.runId, resourceId: call.id };
  const settled = await settleCall(
    tx,
    call,
    extra.nodeId,
    {
      ok: outcome.ok,
      outputRedacted: outcome.ok ? redactOutput(outcome.data) : null,
      durationMs: extra.durationMs,
      retryCount: outcome.retries.length,
      vendorStatusCode: outcome.vendorStatusCode,
      costCents: extra.costCents,
      errorCode: outcome.ok ? null : outcome.code,
      errorText: outcome.ok ? null : outcome.errorText,
      ...(outcome.reviewRequired ? { reviewRequired: true } : {}),
      before: outcome.retries.map((retry) => ({ ...base, type: 'tool_call.retried' as const, metadata: { tool, ...retry } })),
      // An uncertain attempt settled by asking the vendor says how (executor/uncertain-outcome.ts).
      metadata: outcome.ok
        ? { durationMs: extra.durationMs, retryCount: outcome.retries.length, costCents: extra.costCents, ...outcome.metadata }
        : {
            reason: outcome.reason,
            errorCode: outcome.code,
            vendorStatusCode: outcome.vendorStatusCode,
            durationMs: extra.durationMs,
            retryCount: outcome.retries.length,
            ...outcome.metadata,
          },
    },
    // The run's row before the org's ledger lock: a call deciding an approval in the same run
    // locks them in that order, so the other order would deadlock with it. With nothing to
    // write there, the call's UPDATE and its events go as one statement.
    settlesInOneStatement(outcome, extra) ? undefined : () => afterSettled(tx, call, extra.approvalRequestId),
  );
  if (!settled) return null;
  return call;
}

/** Whether recordOutcome sends one statement: nothing follows the settlement (no tool cost to add, no approved params to drop). */
export function settlesInOneStatement(outcome: ExecutionOutcome, extra: { costCents: number; approvalRequestId: string | null }): boolean {
  return !(outcome.ok && extra.costCents > 0) && !extra.approvalRequestId;
}

/** What follows any settlement: the run's tool cost, and the approved params' one use is over. */
export async function afterSettled(tx: SqlTransaction, call: ToolCall, approvalRequestId: string | null): Promise<void> {
  if (call.costCents > 0) await addToolCost(tx, call.runId, call.costCents);
  // The approved params have served their one use; keep only the redacted copy.
  if (approvalRequestId) await dropSealedParams(tx, approvalRequestId);
}

/** An approved call whose params no longer open or match the approval: failed, with its code. */
export async function recordRefusedApproval(
  tx: SqlTransaction,
  call: ToolCall,
  approval: ApprovalRequest,
  code: ErrorCode,
  nodeId: string,
): Promise<void> {
  await settleCall(
    tx,
    call,
    nodeId,
    failureSettlement(
      code,
      { reason: 'approval_binding_mismatch', approvalRequestId: approval.id },
      'The approved call could not be resumed as approved',
    ),
  );
  await dropSealedParams(tx, approval.id);
}
