import type { SqlRunner } from '../db/raw-transaction';
import { AppError, notFound } from '../errors/app-error';
import { isUuid } from '../db/ids';
import { ACTIVE_RUN_STATUSES, type RunMetadata, type RunStatus } from '../runs/agent-run.entity';

/** What the gateway needs of a run and its org, in one SELECT (the org's versions invalidate its caches). */
export interface RunForCall {
  id: string;
  orgId: string;
  specialistId: string;
  status: RunStatus;
  driver: string;
  /** The key that owns the run: only it drives an external run. */
  ownerKeyId: string | null;
  allowedTools: string[];
  configVersion: number;
  policyVersion: number;
  shadowMode: boolean;
  /** The org is suspended: no tool call runs for it. */
  orgSuspended: boolean;
  /** The call already made with the request's toolUseId, if any, and its fingerprint (null: recorded before fingerprints). */
  toolUseCall: { id: string; fingerprint: string | null } | null;
}

/**
 * The run, if it is the caller's org's and active; NOT_FOUND or RUN_NOT_ACTIVE otherwise.
 * The replay check for `toolUseId` rides along (the call and what it was): on the hot path its answer is almost always "none".
 */
export async function loadRunForCall(em: SqlRunner, orgId: string, runId: string, toolUseId: string | null): Promise<RunForCall> {
  if (!isUuid(runId)) throw notFound('Run');
  const [row] = await em.execute<
    {
      id: string;
      org_id: string;
      specialist_id: string;
      status: RunStatus;
      metadata: RunMetadata;
      driver: string;
      owner_key_id: string | null;
      config_version: number;
      policy_version: number;
      policy_shadow_mode: boolean;
      org_suspended: boolean;
      tool_use_call_id: string | null;
      tool_use_fingerprint: string | null;
    }[]
  >(
    `select r.id, r.org_id, r.specialist_id, r.status, r.metadata, r.driver, r.owner_key_id, o.config_version, o.policy_version, o.policy_shadow_mode,
            o.suspended_at is not null as org_suspended,
            c.id as tool_use_call_id, c.fingerprint as tool_use_fingerprint
       from agent_runs r join orgs o on o.id = r.org_id
       left join tool_calls c on c.run_id = r.id and c.org_id = r.org_id and c.tool_use_id = ?
      where r.id = ? and r.org_id = ?`,
    [toolUseId, runId, orgId],
  );
  if (!row) throw notFound('Run');
  if (!ACTIVE_RUN_STATUSES.includes(row.status)) {
    throw new AppError('RUN_NOT_ACTIVE', `Run is ${row.status}; tool calls are accepted only while it is running`, {
      runStatus: row.status,
    });
  }
  return {
    id: row.id,
    orgId: row.org_id,
    specialistId: row.specialist_id,
    status: row.status,
    driver: row.driver,
    ownerKeyId: row.owner_key_id,
    allowedTools: row.metadata?.runtimeManifest?.allowedTools ?? [],
    configVersion: row.config_version,
    policyVersion: row.policy_version,
    shadowMode: row.policy_shadow_mode,
    orgSuspended: row.org_suspended,
    toolUseCall: row.tool_use_call_id ? { id: row.tool_use_call_id, fingerprint: row.tool_use_fingerprint } : null,
  };
}
