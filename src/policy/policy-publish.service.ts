import type { EntityManager } from '@mikro-orm/postgresql';
import type { Caller } from '../auth/caller';
import { badInput, notFound } from '../errors/app-error';
import { isUuid } from '../db/ids';
import { appendLedgerEvent } from '../ledger/ledger.service';
import { findSpecialist } from '../orgs/org.service';
import { draftHash } from './policy-draft';
import { lockPolicy, replayRequired } from './policy-lock';
import { PolicyRule } from './policy-rule.entity';
import { listPolicyRules, type PolicyRuleInput, recordPolicyChange, ruleFields, validateRule } from './policy-rule.service';
import { MAX_DRAFT_RULES } from './policy-simulation.service';

/** How recent a replay must be to publish its draft. */
export const REPLAY_VALID_HOURS = 24;

export interface PublishResult {
  policyVersion: number;
  rules: PolicyRule[];
}

/**
 * Replaces the org's rules with the draft in one transaction: a rule sent with an id keeps
 * it (past decisions stay linked), one without is created, a saved rule not in the draft is
 * deleted; one policy version bump and one `policy.changed` (`change: published`) naming the
 * replay it was checked by. When the org requires a replay, or one is named, it must be of
 * this exact draft, against the current policy version, within 24 h: else
 * POLICY_REPLAY_REQUIRED and nothing changes.
 */
export async function publishPolicy(
  em: EntityManager,
  orgId: string,
  actor: Caller | null,
  rules: PolicyRuleInput[],
  replayId: string | null,
): Promise<PublishResult> {
  checkDraft(rules);
  const hash = draftHash(rules);
  return em.transactional(async (tx) => {
    const lock = await lockPolicy(tx, orgId);
    if (replayId !== null || lock.replayRequired) await checkReplay(tx, orgId, replayId, hash, lock.policyVersion);
    for (const rule of rules) if (rule.specialistId) await findSpecialist(tx, orgId, rule.specialistId);
    const saved = new Map((await listPolicyRules(tx, orgId)).map((r) => [r.id, r]));
    const kept = new Set<string>();
    for (const input of rules) {
      const fields = { ...ruleFields(input), enabled: input.enabled };
      const existing = input.id ? saved.get(input.id) : undefined;
      if (input.id && !existing) throw notFound(`Policy rule ${input.id}`);
      if (existing) {
        kept.add(existing.id);
        tx.assign(existing, { ...fields, updatedAt: new Date() });
      } else tx.create(PolicyRule, { orgId, ...fields });
    }
    const removed = [...saved.values()].filter((r) => !kept.has(r.id));
    for (const rule of removed) tx.remove(rule);
    const policyVersion = await recordPolicyChange(tx, orgId, actor, orgId, {
      change: 'published',
      replayId,
      draftHash: hash,
      rules: rules.length,
      created: rules.length - kept.size,
      updated: kept.size,
      deleted: removed.map((r) => ({ id: r.id, name: r.name })),
    });
    return { policyVersion, rules: await listPolicyRules(tx, orgId) };
  });
}

/**
 * Each rule as upsertPolicyRule checks it; ids once each; positions distinct, since the
 * gateway breaks ties by creation time and a replay by the draft's order.
 */
function checkDraft(rules: PolicyRuleInput[]): void {
  if (rules.length > MAX_DRAFT_RULES) throw badInput(`a draft holds at most ${MAX_DRAFT_RULES} rules`, { field: 'rules' });
  for (const rule of rules) validateRule(rule);
  const ids = rules.map((r) => r.id).filter((id): id is string => Boolean(id));
  if (new Set(ids).size !== ids.length) throw badInput('a rule id appears twice in the draft', { field: 'rules' });
  for (const id of ids) if (!isUuid(id)) throw notFound(`Policy rule ${id}`);
  const positions = rules.map((r) => r.position);
  if (new Set(positions).size !== positions.length) {
    throw badInput('positions must be distinct: they are the evaluation order', { field: 'position' });
  }
}

async function checkReplay(tx: EntityManager, orgId: string, replayId: string | null, hash: string, policyVersion: number): Promise<void> {
  if (replayId === null) {
    throw replayRequired(
      'none',
      'This organization requires a replay before a policy change: replay this draft (simulatePolicy) and publish it with the replay id',
    );
  }
  const [row] = isUuid(replayId)
    ? await tx.execute<{ draft_hash: string; policy_version: number; recent: boolean }[]>(
        `select draft_hash, policy_version, created_at > now() - make_interval(hours => ?) as recent
           from policy_replays where id = ? and org_id = ?`,
        [REPLAY_VALID_HOURS, replayId, orgId],
      )
    : [];
  if (!row) throw replayRequired('unknown', `Replay ${replayId} not found in this organization`);
  if (row.draft_hash !== hash) throw replayRequired('other_draft', 'The replay was of another draft: replay the rules you publish');
  if (row.policy_version !== policyVersion) {
    throw replayRequired(
      'policy_changed',
      `The replay ran against policy version ${row.policy_version}; the policy is now at version ${policyVersion}: replay again`,
    );
  }
  if (!row.recent) throw replayRequired('too_old', `The replay is more than ${REPLAY_VALID_HOURS} hours old: replay again`);
}

/** The org setting: every policy change through publishPolicy with a replay of its draft. Recorded in the ledger; the policy version stays. */
export async function setPolicyReplayRequired(em: EntityManager, caller: Caller, required: boolean): Promise<boolean> {
  return em.transactional(async (tx) => {
    const lock = await lockPolicy(tx, caller.orgId);
    await tx.execute('update orgs set policy_replay_required = ? where id = ?', [required, caller.orgId]);
    await appendLedgerEvent(tx, {
      orgId: caller.orgId,
      type: 'policy.changed',
      resourceId: caller.orgId,
      actor: caller,
      metadata: { change: 'replay_required', required, previous: lock.replayRequired, policyVersion: lock.policyVersion },
    });
    return required;
  });
}
