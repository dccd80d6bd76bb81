import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AgentRun, type RunDriver } from './agent-run.entity';
import { findRun } from './run-query.service';
import { allowedToolsFor } from '../catalog/catalog.service';
import { findOrg, findSpecialist } from '../orgs/org.service';
import { appendLedgerEvents } from '../ledger/ledger.service';
import { AppError, badInput } from '../errors/app-error';
import type { Caller } from '../auth/caller';

const CORRELATION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Opens a run with its manifest frozen: the tools enabled for the org and bound to the
 * specialist at this moment, and the policy version. An external run starts `running`:
 * its loop is driven by the caller through executeToolCall.
 */
export async function startRun(
  em: EntityManager,
  caller: Caller,
  input: { specialistId: string; driver: RunDriver; correlationId?: string | null },
): Promise<AgentRun> {
  const correlationId = input.correlationId ?? randomUUID();
  if (!CORRELATION_ID.test(correlationId)) throw badInput('correlationId must be 1-128 of A-Z a-z 0-9 . _ : -', { field: 'correlationId' });
  return em.transactional(async (tx) => {
    await findSpecialist(tx, caller.orgId, input.specialistId);
    const org = await findOrg(tx, caller.orgId);
    const allowedTools = await allowedToolsFor(tx, caller.orgId, input.specialistId);
    const external = input.driver === 'external';
    const run = tx.create(AgentRun, {
      orgId: caller.orgId,
      specialistId: input.specialistId,
      driver: input.driver,
      status: external ? 'running' : 'queued',
      metadata: { runtimeManifest: { allowedTools, policyVersion: org.policyVersion } },
      correlationId,
    });
    await tx.flush();
    const base = { orgId: caller.orgId, runId: run.id, resourceId: run.id, actor: caller };
    await appendLedgerEvents(tx, [
      { ...base, type: 'run.created', metadata: { driver: input.driver, specialistId: input.specialistId, allowedTools, policyVersion: org.policyVersion } },
      ...(external ? [{ ...base, type: 'run.started' as const, metadata: { driver: input.driver } }] : []),
    ]);
    return run;
  });
}

/** Closes an external run. Pending approvals must be resolved (or expire) first. */
export async function completeExternalRun(em: EntityManager, caller: Caller, runId: string): Promise<AgentRun> {
  return em.transactional(async (tx) => {
    const run = await findRun(tx, caller.orgId, runId);
    if (run.driver !== 'external') throw new AppError('BAD_USER_INPUT', 'Only runs driven externally are completed by their caller', { field: 'runId' });
    if (run.pendingApprovalCount > 0) {
      throw new AppError('APPROVALS_PENDING', `The run has ${run.pendingApprovalCount} pending approval(s)`, {
        pendingApprovalCount: run.pendingApprovalCount,
      });
    }
    if (run.status !== 'running') throw new AppError('RUN_NOT_ACTIVE', `Run is ${run.status}`, { runStatus: run.status });
    run.status = 'completed';
    run.completedAt = new Date();
    run.updatedAt = run.completedAt;
    await tx.flush();
    await appendLedgerEvents(tx, [{ orgId: run.orgId, type: 'run.completed', runId: run.id, resourceId: run.id, actor: caller, metadata: {} }]);
    return run;
  });
}
