import type { EntityManager } from '@mikro-orm/postgresql';
import { ALLOWED_TOOLS_SQL } from '../catalog/catalog.service';
import { toolKey, type ToolKey } from '../catalog/tool-key';
import { isUuid } from '../db/ids';
import { notFound } from '../errors/app-error';
import { Specialist } from '../orgs/specialist.entity';

/** What a new run's manifest is frozen from. */
export interface RunStart {
  specialist: Specialist;
  org: { policyVersion: number; suspended: boolean };
  /** As allowedToolsFor answers them (catalog.service.ts): enabled permissions ∩ bindings, in order. */
  allowedTools: ToolKey[];
}

/**
 * The specialist (of the caller's org, else NOT_FOUND), its org's policy version and
 * suspension, and the tools the specialist may use, in one read in the caller's transaction
 * (three round trips before the run's commit were one each).
 */
export async function readRunStart(tx: EntityManager, orgId: string, specialistId: string): Promise<RunStart> {
  if (!isUuid(specialistId)) throw notFound('Specialist');
  const [row] = await tx.execute<
    ({ org_policy_version: number; org_suspended: boolean; allowed_tools: [string, string][] } & Record<string, unknown>)[]
  >(
    `select s.*, o.policy_version as org_policy_version, o.suspended_at is not null as org_suspended,
            (select coalesce(json_agg(json_build_array(t.tool_name, t.action) order by t.tool_name, t.action), '[]'::json)
               from (${ALLOWED_TOOLS_SQL}) t) as allowed_tools
       from specialists s join orgs o on o.id = s.org_id
      where s.id = ? and s.org_id = ?`,
    [orgId, specialistId, specialistId, orgId],
  );
  if (!row) throw notFound('Specialist');
  const { org_policy_version: policyVersion, org_suspended: suspended, allowed_tools: tools, ...columns } = row;
  return {
    specialist: tx.map(Specialist, columns),
    org: { policyVersion, suspended },
    allowedTools: tools.map(([toolName, action]) => toolKey(toolName, action)),
  };
}
