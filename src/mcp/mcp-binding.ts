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
export async function bindRun(
  em: EntityManager,
  gateway: ToolGateway,
  caller: Caller,
  target: McpTarget,
  options: { reuse: string | null; correlationId: string },
): Promise<McpBinding> {
  if (!(await gateway.toolCallingEnabled(caller.orgId))) {
    throw new AppError('FEATURE_DISABLED', 'Tool execution is not enabled for this organization');
  }
  const runId = target.kind === 'run' ? target.id : await openRun(em, caller, target.id, options);
  const run = await loadRunForCall(em, caller.orgId, runId, null);
  assertDriver(run, caller);
  return { caller, runId: run.id, allowedTools: run.allowedTools, policyVersion: run.policyVersion };
}

async function openRun(
  em: EntityManager,
  caller: Caller,
  specialistId: string,
  options: { reuse: string | null; correlationId: string },
): Promise<string> {
  await findSpecialist(em, caller.orgId, specialistId); // NOT_FOUND for another org's, like a bad id
  const { reuse } = options;
  if (reuse === null) return (await startRun(em, caller, { specialistId, driver: 'external', correlationId: options.correlationId })).id;
  return em.transactional(async (tx) => {
    // One open run per key and specialist: concurrent first requests wait for each other.
    await tx.execute('select pg_advisory_xact_lock(hashtext(?))', [reuse]);
    const [open] = await tx.execute<{ id: string }[]>(
      `select id from agent_runs
        where org_id = ? and specialist_id = ? and driver = 'external' and correlation_id = ? and status in ('running', 'waiting_approval')
        order by created_at desc limit 1`,
      [caller.orgId, specialistId, reuse],
    );
    return open?.id ?? (await startRun(tx, caller, { specialistId, driver: 'external', correlationId: reuse })).id;
  });
}
