import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AgentRun, type RunDriver, type RunStatus } from './agent-run.entity';
import { findRunToDrive } from './run-query.service';
import { assertRunOwner } from './run-visibility';
import { manifestPins } from '../upstream/upstream-pin';
import { readRunStart } from './run-start-reads';
import { appendLedgerEvents } from '../ledger/ledger.service';
import { AppError, badInput } from '../errors/app-error';
import { cancelRunCalls } from '../gateway/tool-call-state';
import { cancelRunApprovals } from '../approvals/approval-state';
import { cancelRun as cancelRunState, completeRun, initialRunStatus, requeueRun } from './run-state';
import { appendMessage, type StoredBlock } from './run-messages';
import { notRunResult } from './tool-results';
import { enqueueRunStep } from './run-jobs';
import type { Caller } from '../auth/caller';
import { withRunTrace } from '../telemetry/trace-runs';
import { withLocalSteps, type LocalStepStarter } from './step-batches';

const CORRELATION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Opens a run with its manifest frozen: the tools enabled for the org and bound to the
 * specialist at this moment, and the policy version. An external run starts `running`:
 * its loop is driven by the caller through executeToolCall. With `local` (this node's), an
 * internal run's first step starts here once the run has committed.
 */
export async function startRun(
  em: EntityManager,
  caller: Caller,
  input: { specialistId: string; driver: RunDriver; message?: string | null; correlationId?: string | null },
  local?: LocalStepStarter | null,
): Promise<AgentRun> {
  const correlationId = input.correlationId ?? randomUUID();
  if (!CORRELATION_ID.test(correlationId)) throw badInput('correlationId must be 1-128 of A-Z a-z 0-9 . _ : -', { field: 'correlationId' });
  const message = input.driver === 'internal' ? checkMessage(input.message) : null;
  return withLocalSteps(em, local, (batch) =>
    em.transactional(async (tx) => {
      const { specialist, org, allowedTools } = await readRunStart(tx, caller.orgId, input.specialistId);
      const upstreamTools = await manifestPins(tx, caller.orgId, allowedTools);
      const external = input.driver === 'external';
      const run = tx.create(AgentRun, {
        orgId: caller.orgId,
        specialistId: input.specialistId,
        driver: input.driver,
        ownerKeyId: caller.keyId,
        status: initialRunStatus(input.driver),
        // The thinking budget is frozen with the manifest: a tool loop never changes its thinking configuration.
        metadata: withRunTrace({
          runtimeManifest: { allowedTools, policyVersion: org.policyVersion, upstreamTools },
          ...(external ? {} : { thinkingBudgetTokens: specialist.thinkingBudgetTokens }),
        }),
        correlationId,
      });
      const first = message === null ? null : appendMessage(tx, run, 0, 'user', [{ type: 'text', text: message }]);
      await tx.flush();
      if (first) {
        await enqueueRunStep(tx, run.id, batch);
        // The step starts from what this transaction wrote and read: no reads before its model request.
        batch?.know(run.id, { run, messages: [first], orgSuspended: org.suspended, systemPrompt: specialist.systemPrompt ?? null });
      }
      const base = { orgId: caller.orgId, runId: run.id, resourceId: run.id, actor: caller };
      await appendLedgerEvents(tx, [
        {
          ...base,
          type: 'run.created',
          metadata: { driver: input.driver, specialistId: input.specialistId, allowedTools, policyVersion: org.policyVersion },
        },
        ...(external ? [{ ...base, type: 'run.started' as const, metadata: { driver: input.driver } }] : []),
      ]);
      return run;
    }),
  );
}

/** Why a run takes no message now, by its status (the README's table). */
function notAnswered(status: RunStatus): AppError {
  if (status === 'waiting_approval') {
    return new AppError('APPROVALS_PENDING', 'Run waits for approval; post when it has answered', { runStatus: status });
  }
  if (status === 'cancelled') return new AppError('RUN_NOT_ACTIVE', 'Run is cancelled; start a new one', { runStatus: status });
  return new AppError('RUN_BUSY', `Run is ${status}; post when it has answered`, { runStatus: status });
}

/** Continues a finished internal run as a conversation: a new user message, a new turn (started here with `local`). */
export async function postMessage(
  em: EntityManager,
  caller: Caller,
  runId: string,
  text: string,
  local?: LocalStepStarter | null,
): Promise<AgentRun> {
  const message = checkMessage(text);
  return withLocalSteps(em, local, (batch) =>
    em.transactional(async (tx) => {
      const run = await findRunToDrive(tx, caller, runId);
      assertRunOwner(run, caller);
      if (run.driver !== 'internal')
        throw badInput('Messages are posted to runs Toolgate drives; an external run is driven by its caller', { field: 'runId' });
      await tx.execute('select id from agent_runs where id = ? for no key update', [run.id]);
      await tx.refresh(run);
      if (run.status !== 'completed' && run.status !== 'failed') throw notAnswered(run.status);
      const [last] = await tx.execute<{ position: number; role: string; content: StoredBlock[] }[]>(
        'select position, role, content from run_messages where run_id = ? order by position desc limit 1',
        [run.id],
      );
      const next = last ? last.position + 1 : 0;
      // A turn whose tool_uses were never run (the run failed before them) is answered first: the API takes no tool_use without its result.
      const unanswered = last?.role === 'assistant' ? last.content.filter((b) => b.type === 'tool_use').map((b) => notRunResult(String(b.id))) : [];
      appendMessage(tx, run, next, 'user', [...unanswered, { type: 'text', text: message }]);
      run.metadata = withRunTrace(run.metadata); // the new turn is the posting request's trace
      await tx.flush();
      if (!(await requeueRun(tx, run, caller, next, batch))) throw notAnswered(run.status);
      await tx.refresh(run);
      return run;
    }),
  );
}

/**
 * Stops a queued, running or waiting run. Its pending approvals are cancelled and their
 * calls blocked (RUN_CANCELLED); a model stream in flight on this node is aborted, and
 * steps elsewhere stop at their next check.
 */
export async function cancelRun(em: EntityManager, caller: Caller, runId: string): Promise<AgentRun> {
  return em.transactional(async (tx) => {
    const run = await findRunToDrive(tx, caller, runId);
    // An admin stops any run of the org; anyone else only the runs its key owns.
    if (caller.role !== 'admin') assertRunOwner(run, caller);
    await tx.execute('select id from agent_runs where id = ? for no key update', [run.id]);
    await tx.refresh(run);
    if (!['queued', 'running', 'waiting_approval'].includes(run.status)) {
      throw new AppError('RUN_NOT_ACTIVE', `Run is ${run.status}`, { runStatus: run.status });
    }
    const blocked = await cancelRunCalls(tx, run.id, caller);
    await cancelRunApprovals(tx, run.id, caller.keyId);
    if (!(await cancelRunState(tx, run, caller, blocked))) throw new AppError('RUN_NOT_ACTIVE', `Run is ${run.status}`, { runStatus: run.status });
    await tx.refresh(run);
    return run;
  });
}

const MAX_MESSAGE = 20_000;

function checkMessage(text: string | null | undefined): string {
  const message = (text ?? '').trim();
  if (message.length < 1 || message.length > MAX_MESSAGE || message.includes('\u0000')) {
    throw badInput(`message must be 1 to ${MAX_MESSAGE} characters`, { field: 'message' });
  }
  return message;
}

/** Closes an external run. Pending approvals must be resolved (or expire) first. */
export async function completeExternalRun(em: EntityManager, caller: Caller, runId: string): Promise<AgentRun> {
  return em.transactional(async (tx) => {
    const run = await findRunToDrive(tx, caller, runId);
    if (caller.role !== 'admin') assertRunOwner(run, caller);
    if (run.driver !== 'external')
      throw new AppError('BAD_USER_INPUT', 'Only runs driven externally are completed by their caller', { field: 'runId' });
    if (run.pendingApprovalCount > 0) {
      throw new AppError('APPROVALS_PENDING', `The run has ${run.pendingApprovalCount} pending approval(s)`, {
        pendingApprovalCount: run.pendingApprovalCount,
      });
    }
    if (run.status !== 'running' || !(await completeRun(tx, run, caller))) {
      throw new AppError('RUN_NOT_ACTIVE', `Run is ${run.status}`, { runStatus: run.status });
    }
    await tx.refresh(run);
    return run;
  });
}
