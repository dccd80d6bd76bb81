import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors/app-error';
import type { Caller } from '../auth/caller';
import type { ToolGateway } from '../gateway/gateway.service';
import { loadRunForCall } from '../gateway/run-for-call';
import { assertDriver } from '../gateway/call-outcome';
import { startRun } from '../runs/run-lifecycle.service';
import { findSpecialist } from '../orgs/org.service';

/** What an MCP endpoint names: `/mcp/specialists/:id` (a run is opened) or `/mcp/runs/:id`. */
export type McpTarget = { kind: 'specialist' | 'run'; id: string };

/** The external run an MCP session (2025 era) or request (2026 era) acts in, and who acts. */
export interface McpBinding {
  caller: Caller;
  runId: string;
  allowedTools: readonly string[];
  policyVersion: number;
}

/**
 * Binds a caller to a run of its own org. The feature flag is checked first, so a disabled
 * org gets no run and no tool list. A specialist endpoint opens an external run: a fresh one
 * per session (`reuse` null), or — stateless, where nothing carries a run between requests —
 * the one still open under `reuse` (the key and specialist), so a call repeated later lands
 * in the run that holds its approval.
 */
export async function bindRun(em: EntityManager, gateway: ToolGateway, caller: Caller, target: McpTarget, options: OpenOptions): Promise<McpBinding> {
  if (!(await gateway.toolCallingEnabled(caller.orgId))) {
    throw new AppError('FEATURE_DISABLED', 'Tool execution is not enabled for this organization');
  }
  const runId = target.kind === 'run' ? target.id : await openRun(em, caller, target.id, options);
  const run = await loadRunForCall(em, caller.orgId, runId, null);
  assertDriver(run, caller);
  return { caller, runId: run.id, allowedTools: run.allowedTools, policyVersion: run.policyVersion };
}

interface OpenOptions {
  reuse: string | null;
  correlationId: string;
  /** How many open external runs the key may hold when a new one is opened (MCP_MAX_OPEN_RUNS_PER_KEY). */
  maxOpenRuns: number;
}

async function openRun(em: EntityManager, caller: Caller, specialistId: string, options: OpenOptions): Promise<string> {
  await findSpecialist(em, caller.orgId, specialistId); // NOT_FOUND for another org's, like a bad id
  const { reuse } = options;
  return em.transactional(async (tx) => {
    if (reuse !== null) {
      // One open run per key and specialist: concurrent first requests wait for each other.
      await tx.execute('select pg_advisory_xact_lock(hashtext(?))', [reuse]);
      const [open] = await tx.execute<{ id: string }[]>(
        `select id from agent_runs
          where org_id = ? and specialist_id = ? and driver = 'external' and correlation_id = ? and status in ('running', 'waiting_approval')
          order by created_at desc limit 1`,
        [caller.orgId, specialistId, reuse],
      );
      if (open) return open.id;
    }
    await assertRunSlot(tx, caller, options.maxOpenRuns);
    return (await startRun(tx, caller, { specialistId, driver: 'external', correlationId: reuse ?? options.correlationId })).id;
  });
}

/**
 * The key may open one more external run: it holds fewer than `limit` that are still open
 * (running or waiting for an approval), counted from their `run.created` events, whichever
 * door opened them. The key's lock makes concurrent opens count one after another.
 */
async function assertRunSlot(tx: EntityManager, caller: Caller, limit: number): Promise<void> {
  if (!caller.keyId) return;
  await tx.execute('select pg_advisory_xact_lock(hashtext(?))', [`mcp-runs:${caller.keyId}`]);
  const [{ open }] = await tx.execute<{ open: number }[]>(
    `select count(*)::int as open from agent_runs r
      where r.org_id = ? and r.driver = 'external' and r.status in ('running', 'waiting_approval')
        and exists (select 1 from ledger_events e
                     where e.org_id = r.org_id and e.run_id = r.id and e.type = 'run.created' and e.actor_key_id = ?)`,
    [caller.orgId, caller.keyId.toLowerCase()],
  );
  if (open >= limit) {
    throw new AppError('MCP_RUN_LIMIT', `This API key already holds ${limit} open external runs; complete or cancel one first`, { limit });
  }
}
