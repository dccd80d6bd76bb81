import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, notFound } from '../errors/app-error';

export interface PolicyLock {
  policyVersion: number;
  replayRequired: boolean;
}

/**
 * Locks the org's policy for a change (the org's row): a change, a publish and the setting
 * take turns, so a replay is checked against the version the change will bump.
 */
export async function lockPolicy(tx: EntityManager, orgId: string): Promise<PolicyLock> {
  const [row] = await tx.execute<{ policy_version: number; policy_replay_required: boolean }[]>(
    'select policy_version, policy_replay_required from orgs where id = ? for no key update',
    [orgId],
  );
  if (!row) throw notFound('Org');
  return { policyVersion: row.policy_version, replayRequired: row.policy_replay_required };
}

/** upsertPolicyRule and deletePolicyRule: refused while the org requires a replay (only publishPolicy changes rules then). */
export async function refuseUnreplayedChange(tx: EntityManager, orgId: string): Promise<void> {
  const lock = await lockPolicy(tx, orgId);
  if (lock.replayRequired) {
    throw replayRequired(
      'none',
      'This organization requires a replay before a policy change: publish the whole rule set with publishPolicy and a replay of it',
    );
  }
}

type ReplayRefusal = 'none' | 'unknown' | 'other_draft' | 'policy_changed' | 'too_old';

/** POLICY_REPLAY_REQUIRED, with why in `extensions.reason`. */
export const replayRequired = (reason: ReplayRefusal, message: string) => new AppError('POLICY_REPLAY_REQUIRED', message, { reason });
