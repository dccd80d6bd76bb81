import type { EntityManager } from '@mikro-orm/postgresql';
import { AgentRun } from './agent-run.entity';
import { ApiKey } from '../auth/api-key.entity';
import type { Caller } from '../auth/caller';
import { mayUse } from '../auth/access';
import { isUuid } from '../db/ids';
import { badInput, notFound } from '../errors/app-error';
import { appendLedgerEvent } from '../ledger/ledger.service';
import { setRunOwner } from './run-state';

/**
 * An admin hands a run to another key of the org, which then owns it: it drives the run
 * (an external run's tool calls, MCP, postMessage) and reads it; the previous owner no
 * longer does (RUN_NOT_YOURS, NOT_FOUND for an agent key). The key must be usable now and
 * of a role that drives runs of the run's kind (agent for an external run). Recorded in the
 * ledger as `run.handed_over`; handing a run to its owner changes nothing.
 */
export async function handOverRun(em: EntityManager, caller: Caller, runId: string, apiKeyId: string, now: Date): Promise<AgentRun> {
  return em.transactional(async (tx) => {
    const run = isUuid(runId) ? await tx.findOne(AgentRun, { id: runId, orgId: caller.orgId }) : null;
    if (!run) throw notFound('Run');
    const key = isUuid(apiKeyId) ? await tx.findOne(ApiKey, { id: apiKeyId, orgId: caller.orgId }) : null;
    if (!key) throw notFound('API key');
    if (key.revokedAt !== null || (key.expiresAt !== null && key.expiresAt <= now)) {
      throw badInput('The API key is revoked or expired', { field: 'apiKeyId' });
    }
    const drives = run.driver === 'external' ? 'Mutation.executeToolCall' : 'Mutation.postMessage';
    if (!mayUse(drives, key.role)) {
      throw badInput(`A ${key.role} key does not drive ${run.driver} runs`, { field: 'apiKeyId', role: key.role });
    }
    // Locked, so two handovers of one run are recorded in the order they happened.
    await tx.execute('select id from agent_runs where id = ? for no key update', [run.id]);
    await tx.refresh(run);
    if (run.ownerKeyId === key.id) return run;
    const from = run.ownerKeyId;
    await setRunOwner(tx, run.id, key.id);
    await appendLedgerEvent(tx, {
      orgId: caller.orgId,
      type: 'run.handed_over',
      runId: run.id,
      resourceId: run.id,
      actor: caller,
      metadata: { fromKeyId: from, toKeyId: key.id, toRole: key.role },
    });
    await tx.refresh(run);
    return run;
  });
}
