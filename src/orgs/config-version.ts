import type { EntityManager } from '@mikro-orm/postgresql';
import type { Caller } from '../auth/caller';
import { appendLedgerEvent, type LedgerEntry } from '../ledger/ledger.service';

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

/**
 * An admin's change of the org's gateway configuration (a flag, a permission, a binding):
 * written, the cached configuration marked stale, and its ledger event — in one transaction.
 */
export async function recordConfigChange(
  tx: EntityManager,
  caller: Caller,
  event: { type: LedgerEntry['type']; resourceId: string; metadata: Record<string, unknown> },
): Promise<void> {
  await tx.flush();
  await bumpConfigVersion(tx, caller.orgId);
  await appendLedgerEvent(tx, { orgId: caller.orgId, actor: caller, ...event });
}
