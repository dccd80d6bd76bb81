import { useDemoApp } from '../support/demo-fixture';
import { errorCode } from '../support/app';

/**
 * Publishing a whole draft, and the org setting that makes a replay of that exact draft
 * (against the current policy version, within 24 h) the only way to change rules.
 */
const demo = useDemoApp();

const RULE_FIELDS = 'id name position toolPattern decision enabled';
const SIMULATE = `query($rules: [PolicyRuleInput!]!) {
  simulatePolicy(from: "2026-11-01T00:00:00Z", to: "2026-11-02T00:00:00Z", rules: $rules) { replayId policyVersion callsRead }
}`;
const PUBLISH = `mutation($rules: [PolicyRuleInput!]!, $replay: ID) {
  publishPolicy(rules: $rules, replay: $replay) { policyVersion rules { ${RULE_FIELDS} } }
}`;
const RULES = `query { policyRules { ${RULE_FIELDS} } viewer { org { policyVersion policyReplayRequired } } }`;
const REQUIRE = 'mutation($required: Boolean!) { setPolicyReplayRequired(required: $required) }';
const UPSERT = 'mutation($input: PolicyRuleInput!) { upsertPolicyRule(input: $input) { id } }';

const rule = (name: string, position: number, extra: Record<string, unknown> = {}) => ({
  name,
  position,
  toolPattern: 'invoice',
  actionPattern: 'send',
  risk: 'high',
  decision: 'require_expert_approval',
  ...extra,
});

const admin = (query: string, variables: Record<string, unknown> = {}) => demo.app.gql(query, { key: demo.seed.keys.admin, variables });
const replay = async (rules: unknown[]) => {
  const res = await admin(SIMULATE, { rules });
  expect(res.body.errors).toBeUndefined();
  return res.body.data!.simulatePolicy as { replayId: string; policyVersion: number };
};
const state = async () => (await admin(RULES)).body.data!;
const policyEvents = async () =>
  demo.app
    .em()
    .execute<{ metadata: Record<string, unknown>; actor_role: string }[]>(
      "select metadata, actor_role from ledger_events where org_id = ? and type = 'policy.changed' order by sequence",
      [demo.seed.orgId],
    );

afterEach(async () => {
  await admin(REQUIRE, { required: false });
});

test('publishPolicy replaces the rule set in one version: ids kept, new rules created, the rest deleted; one policy.changed', async () => {
  const first = await admin(PUBLISH, { rules: [rule('a', 1), rule('b', 2)] });
  expect(first.body.errors).toBeUndefined();
  const [a, b] = first.body.data!.publishPolicy.rules;
  const eventsBefore = (await policyEvents()).length;
  const versionBefore = (await state()).viewer.org.policyVersion;

  // b kept (moved first, renamed), a deleted, c created.
  const res = await admin(PUBLISH, { rules: [rule('b renamed', 1, { id: b.id }), rule('c', 2, { decision: 'block' })] });
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data!.publishPolicy.policyVersion).toBe(versionBefore + 1);
  const now = await state();
  expect(now.policyRules.map((r: { name: string; id: string }) => [r.name, r.id === b.id])).toEqual([
    ['b renamed', true],
    ['c', false],
  ]);
  expect(now.policyRules.some((r: { id: string }) => r.id === a.id)).toBe(false);
  const events = await policyEvents();
  expect(events).toHaveLength(eventsBefore + 1);
  expect(events.at(-1)!.metadata).toMatchObject({
    change: 'published',
    replayId: null,
    rules: 2,
    created: 1,
    updated: 1,
    deleted: [{ id: a.id, name: 'a' }],
    policyVersion: versionBefore + 1,
  });
});

test('a draft with duplicate positions, a repeated or unknown id is refused and nothing changes', async () => {
  const before = await state();
  expect(errorCode(await admin(PUBLISH, { rules: [rule('x', 1), rule('y', 1)] }))).toBe('BAD_USER_INPUT');
  const [saved] = before.policyRules;
  expect(errorCode(await admin(PUBLISH, { rules: [rule('x', 1, { id: saved.id }), rule('y', 2, { id: saved.id })] }))).toBe('BAD_USER_INPUT');
  expect(errorCode(await admin(PUBLISH, { rules: [rule('x', 1, { id: '00000000-0000-4000-8000-000000000000' })] }))).toBe('NOT_FOUND');
  expect(await state()).toEqual(before);
});

test('with replays required: no replay, a replay of another draft, or one the policy moved past are refused; the matching one publishes', async () => {
  const set = await admin(REQUIRE, { required: true });
  expect(set.body.data!.setPolicyReplayRequired).toBe(true);
  expect((await state()).viewer.org.policyReplayRequired).toBe(true);
  expect((await policyEvents()).at(-1)!.metadata).toMatchObject({ change: 'replay_required', required: true, previous: false });
  const draft = [rule('at most one invoice', 1, { history: [{ kind: 'count', tool: 'invoice', scope: 'run', limit: 1 }], decision: 'block' })];
  const before = await state();

  const none = await admin(PUBLISH, { rules: draft });
  expect(errorCode(none)).toBe('POLICY_REPLAY_REQUIRED');
  expect(none.body.errors![0].extensions!.reason).toBe('none');

  const other = await replay([rule('something else', 1)]);
  const wrong = await admin(PUBLISH, { rules: draft, replay: other.replayId });
  expect(errorCode(wrong)).toBe('POLICY_REPLAY_REQUIRED');
  expect(wrong.body.errors![0].extensions!.reason).toBe('other_draft');

  const unknown = await admin(PUBLISH, { rules: draft, replay: '00000000-0000-4000-8000-000000000000' });
  expect(unknown.body.errors![0].extensions!.reason).toBe('unknown');

  // Rule by rule edits are refused as well while the setting is on.
  expect(errorCode(await admin(UPSERT, { input: rule('sneaky', 5) }))).toBe('POLICY_REPLAY_REQUIRED');
  expect(errorCode(await admin('mutation($id: ID!) { deletePolicyRule(id: $id) }', { id: before.policyRules[0].id }))).toBe('POLICY_REPLAY_REQUIRED');
  expect(await state()).toEqual(before);

  // A replay of this draft, then the policy moves on (shadow mode bumps the version): stale.
  const stale = await replay(draft);
  expect(stale.policyVersion).toBe(before.viewer.org.policyVersion);
  await admin('mutation { setPolicyShadowMode(enabled: false) }');
  const moved = await admin(PUBLISH, { rules: draft, replay: stale.replayId });
  expect(moved.body.errors![0].extensions!.reason).toBe('policy_changed');

  // The same draft replayed again, but over 24 hours ago (the database's clock decides).
  const old = await replay(draft);
  await demo.app.em().execute("update policy_replays set created_at = now() - interval '25 hours' where id = ?", [old.replayId]);
  expect((await admin(PUBLISH, { rules: draft, replay: old.replayId })).body.errors![0].extensions!.reason).toBe('too_old');

  const fresh = await replay(draft);
  const published = await admin(PUBLISH, { rules: draft, replay: fresh.replayId });
  expect(published.body.errors).toBeUndefined();
  expect(published.body.data!.publishPolicy.rules.map((r: { name: string }) => r.name)).toEqual(['at most one invoice']);
  expect((await policyEvents()).at(-1)!.metadata).toMatchObject({ change: 'published', replayId: fresh.replayId });
  // Published once: the replay is now of an older version.
  expect(errorCode(await admin(PUBLISH, { rules: draft, replay: fresh.replayId }))).toBe('POLICY_REPLAY_REQUIRED');
});

test('two publishes racing with one replay: the org lock lets one through, the other finds the policy moved on', async () => {
  await admin(REQUIRE, { required: true });
  const draft = [rule('raced', 1)];
  const { replayId } = await replay(draft);
  const versionBefore = (await state()).viewer.org.policyVersion;
  // Both publishes start while another transaction holds the org's row, and wait on it together.
  let racing!: Promise<Awaited<ReturnType<typeof admin>>[]>;
  await demo.app
    .em()
    .fork()
    .transactional(async (tx) => {
      await tx.execute('select id from orgs where id = ? for update', [demo.seed.orgId]);
      racing = Promise.all([admin(PUBLISH, { rules: draft, replay: replayId }), admin(PUBLISH, { rules: draft, replay: replayId })]);
      for (;;) {
        const [row] = await demo.app
          .em()
          .fork()
          .execute<{ n: number }[]>(
            "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()",
          );
        if (row.n >= 2) break;
      }
    });
  const answers = await racing;
  const codes = answers.map((a) => errorCode(a) ?? 'published').sort();
  expect(codes).toEqual(['POLICY_REPLAY_REQUIRED', 'published']);
  expect(answers.find((a) => a.body.errors)!.body.errors![0].extensions!.reason).toBe('policy_changed');
  expect((await state()).viewer.org.policyVersion).toBe(versionBefore + 1);
});

test('with the setting off, rule by rule edits work as before and publishing needs no replay', async () => {
  const created = await admin(UPSERT, { input: rule('plain', 7) });
  expect(created.body.errors).toBeUndefined();
  const deleted = await admin('mutation($id: ID!) { deletePolicyRule(id: $id) }', { id: created.body.data!.upsertPolicyRule.id });
  expect(deleted.body.data!.deletePolicyRule).toBe(true);
  expect((await admin(PUBLISH, { rules: [] })).body.data!.publishPolicy.rules).toEqual([]);
});

test('a replay reads only the calls but records that it ran; experts may neither publish nor change the setting', async () => {
  const result = await replay([rule('r', 1)]);
  const [row] = await demo.app
    .em()
    .execute<{ org_id: string; policy_version: number; actor_key_id: string | null; draft_hash: string }[]>(
      'select org_id, policy_version, actor_key_id, draft_hash from policy_replays where id = ?',
      [result.replayId],
    );
  expect(row).toMatchObject({ org_id: demo.seed.orgId, policy_version: result.policyVersion });
  expect(row.actor_key_id).not.toBeNull();
  expect(row.draft_hash).toMatch(/^[0-9a-f]{64}$/);
  const expert = (query: string, variables: Record<string, unknown>) => demo.app.gql(query, { key: demo.seed.keys.expert, variables });
  expect(errorCode(await expert(PUBLISH, { rules: [] }))).toBe('FORBIDDEN');
  expect(errorCode(await expert(REQUIRE, { required: true }))).toBe('FORBIDDEN');
});
