import type { EntityManager } from '@mikro-orm/postgresql';
import type { SqlTransaction } from '../db/raw-transaction';
import { appendLedgerEvents, type LedgerEntry } from '../ledger/ledger.service';
import type { LedgerEventType } from '../ledger/ledger-event-types';
import type { ErrorCode } from '../errors/error-codes';
import { enqueueRunStep, type StepClaims } from './run-jobs';
import type { SqlRunner } from '../db/raw-transaction';
import type { RunDriver, RunStatus } from './agent-run.entity';
import { sqlList } from '../db/sql-list';

/**
 * The AgentRun state machine and the only writer of a run's row (its status, and the
 * counters and owner beside it: cost, tokens, owner key). Each transition is one conditional
 * UPDATE from the statuses it may leave plus its ledger event, in the caller's
 * transaction; a run found elsewhere is left alone and the transition says so (false).
 *
 *   (new) → queued (internal) | running (external)          initialRunStatus
 *   queued → running                                        startRun
 *   running ⇄ waiting_approval                              awaitApproval, releaseApproval
 *   running → completed                                     completeRun
 *   queued | running → failed                               failRun
 *   queued | running | waiting_approval → cancelled         cancelRun
 *   completed | failed → queued (a new message)             requeueRun
 */
export const RUN_TRANSITIONS = {
  start: { from: ['queued'], to: 'running' },
  awaitApproval: { from: ['running', 'waiting_approval'], to: 'waiting_approval' },
  releaseApproval: { from: ['waiting_approval'], to: 'running' },
  complete: { from: ['running'], to: 'completed' },
  fail: { from: ['queued', 'running'], to: 'failed' },
  cancel: { from: ['queued', 'running', 'waiting_approval'], to: 'cancelled' },
  requeue: { from: ['completed', 'failed'], to: 'queued' },
} as const satisfies Record<string, { from: readonly RunStatus[]; to: RunStatus }>;

type Actor = LedgerEntry['actor'];
export interface RunRef {
  id: string;
  orgId: string;
}

function runEvent(run: RunRef, type: LedgerEventType, actor: Actor, metadata: Record<string, unknown> = {}): LedgerEntry {
  return { orgId: run.orgId, type, runId: run.id, resourceId: run.id, actor, metadata };
}

/** Where a new run enters the machine: an external run is driven by its caller at once. */
export function initialRunStatus(driver: RunDriver): RunStatus {
  return driver === 'external' ? 'running' : 'queued';
}

/** queued → running (the runtime's first step). */
export async function startRun(tx: EntityManager, run: RunRef): Promise<boolean> {
  const rows = await tx.execute<{ id: string }[]>(
    `update agent_runs set status = '${RUN_TRANSITIONS.start.to}', updated_at = now() where id = ? and status in (${sqlList(RUN_TRANSITIONS.start.from)}) returning id`,
    [run.id],
  );
  if (rows.length === 0) return false;
  await appendLedgerEvents(tx, [runEvent(run, 'run.started', null)]);
  return true;
}

/** running → completed; `requireNoPendingApprovals` for external runs closed by their caller. */
export async function completeRun(tx: EntityManager, run: RunRef, actor: Actor = null): Promise<boolean> {
  const rows = await tx.execute<{ id: string }[]>(
    `update agent_runs set status = '${RUN_TRANSITIONS.complete.to}', completed_at = now(), updated_at = now()
      where id = ? and status in (${sqlList(RUN_TRANSITIONS.complete.from)}) and pending_approval_count = 0 returning id`,
    [run.id],
  );
  if (rows.length === 0) return false;
  await appendLedgerEvents(tx, [runEvent(run, 'run.completed', actor)]);
  return true;
}

/** queued | running → failed with a code (model outage, tool-round limit, …). */
export async function failRun(tx: EntityManager, run: RunRef, code: ErrorCode, message: string): Promise<boolean> {
  const rows = await tx.execute<{ id: string }[]>(
    `update agent_runs set status = '${RUN_TRANSITIONS.fail.to}', error_code = ?, error_message = ?, completed_at = now(), updated_at = now()
      where id = ? and status in (${sqlList(RUN_TRANSITIONS.fail.from)}) returning id`,
    [code, message, run.id],
  );
  if (rows.length === 0) return false;
  await appendLedgerEvents(tx, [runEvent(run, 'run.failed', null, { errorCode: code })]);
  return true;
}

/**
 * → cancelled. The caller has already blocked the run's calls and cancelled its approvals
 * (their events come first in `before`).
 */
export async function cancelRun(tx: EntityManager, run: RunRef, actor: Actor, before: LedgerEntry[]): Promise<boolean> {
  const rows = await tx.execute<{ id: string }[]>(
    `update agent_runs set status = '${RUN_TRANSITIONS.cancel.to}', pending_approval_count = 0, completed_at = now(), updated_at = now()
      where id = ? and status in (${sqlList(RUN_TRANSITIONS.cancel.from)}) returning id`,
    [run.id],
  );
  if (rows.length === 0) return false;
  await appendLedgerEvents(tx, [...before, runEvent(run, 'run.cancelled', actor, { cancelledToolCalls: before.length })]);
  return true;
}

/** completed | failed → queued: a posted message starts a new turn (its job is enqueued here; `local` may start it on this node). */
export async function requeueRun(tx: EntityManager, run: RunRef, actor: Actor, position: number, local?: StepClaims | null): Promise<boolean> {
  const rows = await tx.execute<{ id: string }[]>(
    `update agent_runs set status = '${RUN_TRANSITIONS.requeue.to}', error_code = null, error_message = null, completed_at = null, updated_at = now()
      where id = ? and status in (${sqlList(RUN_TRANSITIONS.requeue.from)}) returning id`,
    [run.id],
  );
  if (rows.length === 0) return false;
  await enqueueRunStep(tx, run.id, local);
  await appendLedgerEvents(tx, [runEvent(run, 'run.message_posted', actor, { position })]);
  return true;
}

/**
 * One more pending approval; a running run now waits (run.waiting_approval, returned for
 * the caller's batch so it follows the call's own events).
 */
export async function awaitApproval(tx: SqlTransaction, run: RunRef, actor: Actor, toolCallId: string): Promise<LedgerEntry[]> {
  const [previous] = await tx.execute<{ status: RunStatus }[]>('select status from agent_runs where id = ? for no key update', [run.id]);
  await tx.execute(
    `update agent_runs set pending_approval_count = pending_approval_count + 1, status = 'waiting_approval', updated_at = now()
      where id = ? and status in (${sqlList(RUN_TRANSITIONS.awaitApproval.from)})`,
    [run.id],
  );
  return previous?.status === 'running' ? [runEvent(run, 'run.waiting_approval', actor, { toolCallId })] : [];
}

/**
 * One fewer pending approval; the last one brings a waiting run back to running
 * (run.resumed) and, for Toolgate's own runtime, enqueues its next step on any node (`local`
 * may start it on this one).
 */
export async function releaseApproval(tx: EntityManager, run: RunRef, actor: Actor, local?: StepClaims | null): Promise<LedgerEntry[]> {
  // One statement: the row locked first (the status it had once locked, as a separate
  // SELECT … FOR NO KEY UPDATE read it), then updated from its latest version.
  const [row] = await tx.execute<{ previous: string; status: string; driver: string }[]>(
    `with previous as (select id, status from agent_runs where id = ? for no key update)
     update agent_runs r
        set pending_approval_count = greatest(r.pending_approval_count - 1, 0),
            status = case when r.pending_approval_count <= 1 and r.status = 'waiting_approval' then 'running' else r.status end,
            updated_at = now()
       from previous where r.id = previous.id returning previous.status as previous, r.status, r.driver`,
    [run.id],
  );
  if (row && row.previous === 'waiting_approval' && row.status === 'running') {
    if (row.driver === 'internal') await enqueueRunStep(tx, run.id, local);
    return [runEvent(run, 'run.resumed', actor)];
  }
  return [];
}

/** A settled call's vendor cost, added to its run's (after the call's row, before the ledger, as every path locks). */
export async function addToolCost(tx: SqlRunner, runId: string, costCents: number): Promise<void> {
  await tx.execute('update agent_runs set tool_cost_cents = tool_cost_cents + ?, updated_at = now() where id = ?', [costCents, runId]);
}

/** What one model turn used, as the Messages API counts it. */
export interface ModelUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/** A stored model turn's tokens and cost, added to its run's. */
export async function addModelUsage(tx: SqlRunner, runId: string, usage: ModelUsage, costMicros: number): Promise<void> {
  await tx.execute(
    `update agent_runs set input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
            cache_creation_input_tokens = cache_creation_input_tokens + ?, cache_read_input_tokens = cache_read_input_tokens + ?,
            llm_cost_micros = llm_cost_micros + ?, updated_at = now() where id = ?`,
    [usage.input_tokens, usage.output_tokens, usage.cache_creation_input_tokens, usage.cache_read_input_tokens, costMicros, runId],
  );
}

/** The run's row locked for this transaction; true while it is running (it may still take model output). */
export async function lockRunning(tx: SqlRunner, runId: string): Promise<boolean> {
  const [row] = await tx.execute<{ status: string }[]>('select status from agent_runs where id = ? for no key update', [runId]);
  return row?.status === 'running';
}

/** Whether the run is running now (a step stops once it is not). */
export async function isRunning(em: SqlRunner, runId: string): Promise<boolean> {
  const [row] = await em.execute<{ status: string }[]>('select status from agent_runs where id = ?', [runId]);
  return row?.status === 'running';
}

/** The run's owner key changes (an admin's handover; its row is locked by the caller). */
export async function setRunOwner(tx: SqlRunner, runId: string, ownerKeyId: string): Promise<void> {
  await tx.execute('update agent_runs set owner_key_id = ?, updated_at = now() where id = ?', [ownerKeyId, runId]);
}
