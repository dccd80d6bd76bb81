import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Marks the org's cached gateway configuration stale (see OrgConfigCache); a policy change
 * also gets a new policy version. Runs inside the transaction making the change.
 */
export async function bumpConfigVersion(
  em: EntityManager,
  orgId: string,
  options: { policy?: boolean } = {},
): Promise<{ configVersion: number; policyVersion: number }> {
  const [row] = await em.execute<{ config_version: number; policy_version: number }[]>(
    `update orgs set config_version = config_version + 1${options.policy ? ', policy_version = policy_version + 1' : ''}
      where id = ? returning config_version, policy_version`,
    [orgId],
  );
  return { configVersion: row.config_version, policyVersion: row.policy_version };
}
