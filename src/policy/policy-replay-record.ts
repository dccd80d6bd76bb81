import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../db/columns';
import { draftHash } from './policy-draft';
import type { PolicyRuleInput } from './policy-rule.service';

export interface ReplayRecord {
  rules: readonly PolicyRuleInput[];
  from: Date;
  to: Date;
  actorKeyId?: string | null;
  policyVersion: number;
  callsRead: number;
  changedCount: number;
  undecidableCount: number;
}

/**
 * Records that a replay ran (policy_replays), after its read-only transaction: the draft's
 * hash, the policy version it ran against and what it found. Its time is the database's,
 * which publishPolicy's 24-hour check reads too.
 */
export async function recordReplay(em: EntityManager, orgId: string, replay: ReplayRecord): Promise<string> {
  const id = newId();
  await em.execute(
    `insert into policy_replays (id, org_id, draft_hash, policy_version, range_from, range_to, calls_read, changed_count, undecidable_count, actor_key_id)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      id,
      orgId,
      draftHash(replay.rules),
      replay.policyVersion,
      replay.from,
      replay.to,
      replay.callsRead,
      replay.changedCount,
      replay.undecidableCount,
      replay.actorKeyId ?? null,
    ],
  );
  return id;
}
