import { useDemoApp } from '../support/demo-fixture';
import { newOrg } from '../support/factories';
import { evaluatePolicy, type CompiledRule, type PolicyInput } from '../../src/policy/policy-evaluator';
import { graphql } from '../gql';
import type { PolicyRuleInput } from '../gql/graphql';
import { textOf } from '../support/graphql-http';
import { DELETE_POLICY_RULE, SET_SHADOW_MODE, UPSERT_POLICY_RULE } from '../support/documents';
import { errorCode, recordStatements, touching } from './gateway-helpers';

/**
 * Administering policy rules: every change is versioned and audited, bad rules are refused
 * whole, and the gateway reads rules and flags only when the org's configuration changed.
 */
const demo = useDemoApp({}, { sandboxes: true });

const RULES = graphql(`
  query PolicyRules {
    policyRules { ...RuleFields }
  }
`);
const POLICY_EVENTS = graphql(`
  query PolicyChanges {
    ledgerEvents(first: 100, filter: {type: "policy.changed"}) { edges { node { type resourceId actorRole metadata } } }
  }
`);

async function policyEvents() {
  return (await demo.gw.ok(POLICY_EVENTS)).ledgerEvents.edges.map((e) => e.node);
}

/**
 * Rules the API must refuse are sent as the document's text: their variables break the
 * typed PolicyRuleInput (an unknown role, decision or op) on purpose.
 */
const UPSERT_TEXT = textOf(UPSERT_POLICY_RULE);

describe('every change is versioned and audited', () => {
  test('create, update, delete and shadow mode each append policy.changed and bump the version', async () => {
    const start = (await demo.gw.org()).policyVersion;
    const eventsBefore = (await policyEvents()).length;

    const input: PolicyRuleInput = {
      name: '  Large invoices  ',
      position: 3,
      toolPattern: 'invoice',
      actionPattern: 'send',
      conditions: [{ path: 'amount', op: 'gt', value: 1000 }],
      roles: ['agent', 'agent'],
      risk: 'high',
      decision: 'block',
    };
    const created = (await demo.gw.ok(UPSERT_POLICY_RULE, { input })).upsertPolicyRule;
    expect(created).toEqual({
      id: expect.any(String),
      name: 'Large invoices',
      position: 3,
      toolPattern: 'invoice',
      actionPattern: 'send',
      conditions: [{ path: 'amount', op: 'gt', value: 1000 }],
      roles: ['agent'],
      specialistId: null,
      risk: 'high',
      decision: 'block',
      enabled: true,
    });
    expect((await demo.gw.ok(RULES)).policyRules).toEqual([created]);
    expect((await demo.gw.org()).policyVersion).toBe(start + 1);

    const updated = (await demo.gw.ok(UPSERT_POLICY_RULE, { input: { ...input, id: created.id, position: 7, enabled: false } })).upsertPolicyRule;
    expect(updated).toMatchObject({ id: created.id, position: 7, enabled: false });
    expect((await demo.gw.org()).policyVersion).toBe(start + 2);

    expect((await demo.gw.ok(DELETE_POLICY_RULE, { id: created.id })).deletePolicyRule).toBe(true);
    expect((await demo.gw.ok(RULES)).policyRules).toEqual([]);
    expect((await demo.gw.org()).policyVersion).toBe(start + 3);

    expect((await demo.gw.ok(SET_SHADOW_MODE, { enabled: true })).setPolicyShadowMode).toBe(start + 4);
    expect((await demo.gw.ok(SET_SHADOW_MODE, { enabled: false })).setPolicyShadowMode).toBe(start + 5);

    const events = (await policyEvents()).slice(eventsBefore);
    expect(events.map((e) => [e.type, e.actorRole, e.metadata.change, e.metadata.policyVersion])).toEqual([
      ['policy.changed', 'admin', 'rule_created', start + 1],
      ['policy.changed', 'admin', 'rule_updated', start + 2],
      ['policy.changed', 'admin', 'rule_deleted', start + 3],
      ['policy.changed', 'admin', 'shadow_mode', start + 4],
      ['policy.changed', 'admin', 'shadow_mode', start + 5],
    ]);
    expect(events.slice(0, 3).map((e) => e.resourceId)).toEqual([created.id, created.id, created.id]);
    expect(events[0].metadata.rule).toMatchObject({ name: 'Large invoices', toolPattern: 'invoice', decision: 'block' });
    expect(events[2].metadata).toMatchObject({ name: 'Large invoices' });
    expect(events[3].metadata).toMatchObject({ enabled: true, previous: false });
    expect(events[4].metadata).toMatchObject({ enabled: false, previous: true });
  });

  test("only admins change rules; admins and experts read them; another org's rule is NOT_FOUND", async () => {
    const input: PolicyRuleInput = { name: 'r', position: 1, risk: 'low', decision: 'allow' };
    for (const role of ['agent', 'expert', 'client', 'partner'] as const) {
      expect(errorCode(await demo.app.gql(UPSERT_POLICY_RULE, { key: demo.seed.keys[role], variables: { input } }))).toBe('FORBIDDEN');
      expect(errorCode(await demo.app.gql(SET_SHADOW_MODE, { key: demo.seed.keys[role], variables: { enabled: true } }))).toBe('FORBIDDEN');
    }
    expect(errorCode(await demo.app.gql(RULES, { key: demo.seed.keys.expert }))).toBeUndefined();
    expect(errorCode(await demo.app.gql(RULES, { key: demo.seed.keys.agent }))).toBe('FORBIDDEN');

    const mine = (await demo.gw.ok(UPSERT_POLICY_RULE, { input })).upsertPolicyRule.id;
    try {
      const other = await newOrg(demo.app.em());
      const versionBefore = (await demo.gw.org()).policyVersion;
      expect(errorCode(await demo.app.gql(DELETE_POLICY_RULE, { key: other.keys.admin, variables: { id: mine } }))).toBe('NOT_FOUND');
      expect(errorCode(await demo.app.gql(UPSERT_POLICY_RULE, { key: other.keys.admin, variables: { input: { ...input, id: mine } } }))).toBe(
        'NOT_FOUND',
      );
      // A specialist of this org cannot scope the other org's rule.
      expect(
        errorCode(
          await demo.app.gql(UPSERT_POLICY_RULE, { key: other.keys.admin, variables: { input: { ...input, specialistId: demo.seed.specialistId } } }),
        ),
      ).toBe('NOT_FOUND');
      expect((await demo.app.gql(RULES, { key: other.keys.admin })).body.data!.policyRules).toEqual([]);
      expect((await demo.gw.ok(RULES)).policyRules.map((r: { id: string }) => r.id)).toEqual([mine]);
      expect((await demo.gw.org()).policyVersion).toBe(versionBefore);
    } finally {
      await demo.gw.ok(DELETE_POLICY_RULE, { id: mine });
    }
  });
});

describe('bad rules are BAD_USER_INPUT and write nothing', () => {
  const valid: PolicyRuleInput = { name: 'ok', position: 1, toolPattern: 'invoice', actionPattern: 'send', risk: 'high', decision: 'block' };

  test.each([
    ['a space in toolPattern', { toolPattern: 'order lookup' }],
    ['brackets in toolPattern', { toolPattern: 'order_[a-z]' }],
    ['a slash in actionPattern', { actionPattern: 'send/*' }],
    ['an empty toolPattern', { toolPattern: '' }],
    ['a blank name', { name: '   ' }],
    ['a negative position', { position: -1 }],
    ['"in" with a non-list', { conditions: [{ path: 'customerId', op: 'in', value: '1' }] }],
    ['gt with a string', { conditions: [{ path: 'amount', op: 'gt', value: '1000' }] }],
    ['lt without a value', { conditions: [{ path: 'amount', op: 'lt' }] }],
    ['equals without a value', { conditions: [{ path: 'currency', op: 'equals' }] }],
    ['exists with a string', { conditions: [{ path: 'email', op: 'exists', value: 'yes' }] }],
    ['the path a..b', { conditions: [{ path: 'a..b', op: 'exists' }] }],
    ['a path starting with a dot', { conditions: [{ path: '.amount', op: 'exists' }] }],
    ['an unknown role', { roles: ['superuser'] }],
    ['an unknown decision', { decision: 'maybe' }],
    ['an unknown condition op', { conditions: [{ path: 'amount', op: 'ne', value: 1 }] }],
    ['21 conditions', { conditions: Array.from({ length: 21 }, () => ({ path: 'amount', op: 'exists' })) }],
  ])('%s', async (_label, change) => {
    const versionBefore = (await demo.gw.org()).policyVersion;
    const eventsBefore = await demo.gw.count('ledger_events');
    const rulesBefore = await demo.gw.count('policy_rules');
    const res = await demo.app.gql(UPSERT_TEXT, { key: demo.seed.keys.admin, variables: { input: { ...valid, ...change } } });
    expect(errorCode(res)).toBe('BAD_USER_INPUT');
    expect(res.body.data ?? null).toBeNull();
    expect(await demo.gw.count('policy_rules')).toBe(rulesBefore);
    expect(await demo.gw.count('ledger_events')).toBe(eventsBefore);
    expect((await demo.gw.org()).policyVersion).toBe(versionBefore);
  });

  test('a bad update leaves the stored rule as it was', async () => {
    const id = (await demo.gw.ok(UPSERT_POLICY_RULE, { input: valid })).upsertPolicyRule.id;
    try {
      const before = (await demo.gw.ok(RULES)).policyRules;
      const res = await demo.app.gql(UPSERT_POLICY_RULE, {
        key: demo.seed.keys.admin,
        variables: { input: { ...valid, id, toolPattern: 'bad pattern' } },
      });
      expect(errorCode(res)).toBe('BAD_USER_INPUT');
      expect((await demo.gw.ok(RULES)).policyRules).toEqual(before);
    } finally {
      await demo.gw.ok(DELETE_POLICY_RULE, { id });
    }
  });
});

describe('the gateway keeps rules and flags in memory', () => {
  const lookup = (runId: string) => recordStatements(demo.app, () => demo.gw.execute(runId, 'order_lookup', 'lookup', { orderId: '12345' }));

  test('no reads per call; one reload after a rule change, a flag change or shadow mode', async () => {
    const run = await demo.gw.startRun();
    await lookup(run.id); // warm-up

    const warm = await lookup(run.id);
    expect(warm.value.status).toBe('succeeded');
    expect(touching(warm.statements, 'policy_rules')).toEqual([]);
    expect(touching(warm.statements, 'feature_flags')).toEqual([]);

    // A rule change: the next call reloads rules and flags once, and already decides by the new rule.
    const id = (
      await demo.gw.ok(UPSERT_POLICY_RULE, {
        input: { name: 'block lookups', position: 1, toolPattern: 'order_lookup', risk: 'high', decision: 'block' },
      })
    ).upsertPolicyRule.id;
    const reloaded = await lookup(run.id);
    expect(reloaded.value.error?.code).toBe('POLICY_BLOCKED');
    expect(touching(reloaded.statements, 'policy_rules')).toHaveLength(1);
    expect(touching(reloaded.statements, 'feature_flags')).toHaveLength(1);
    const settled = await lookup(run.id);
    expect(settled.value.error?.code).toBe('POLICY_BLOCKED');
    expect(touching(settled.statements, 'policy_rules')).toEqual([]);

    await demo.gw.ok(DELETE_POLICY_RULE, { id });
    const afterDelete = await lookup(run.id);
    expect(afterDelete.value.status).toBe('succeeded');
    expect(touching(afterDelete.statements, 'policy_rules')).toHaveLength(1);

    await demo.gw.setFlag(true); // unchanged value, still a change of configuration
    const afterFlag = await lookup(run.id);
    expect(touching(afterFlag.statements, 'feature_flags')).toHaveLength(1);
    expect(touching((await lookup(run.id)).statements, 'feature_flags')).toEqual([]);

    await demo.gw.ok(SET_SHADOW_MODE, { enabled: false });
    const afterShadow = await lookup(run.id);
    expect(touching(afterShadow.statements, 'policy_rules')).toHaveLength(1);
    expect(touching((await lookup(run.id)).statements, 'policy_rules')).toEqual([]);
  });
});

describe('conditions on nested paths (evaluator)', () => {
  // No catalog tool's input schema admits nested params, so the gateway can never hand
  // the evaluator one; the paths are checked on the pure evaluator instead.
  const input = (params: Record<string, unknown>): PolicyInput => ({
    toolName: 'crm',
    action: 'update',
    params,
    callerRole: 'agent',
    specialistId: 's1',
    defaultRisk: 'low',
  });
  const ruleWith = (conditions: CompiledRule['conditions']): CompiledRule => ({
    id: 'r1',
    name: 'nested',
    position: 1,
    toolPattern: '*',
    actionPattern: '*',
    conditions,
    roles: [],
    specialistId: null,
    risk: 'high',
    decision: 'block',
  });
  const matched = (conditions: CompiledRule['conditions'], params: Record<string, unknown>) =>
    evaluatePolicy([ruleWith(conditions)], input(params), false).matchedRuleId === 'r1';

  test.each([
    [
      'equals on customer.country',
      [{ path: 'customer.country', op: 'equals', value: 'DE' }],
      { customer: { country: 'DE' } },
      { customer: { country: 'US' } },
    ],
    ['in on customer.country', [{ path: 'customer.country', op: 'in', value: ['DE', 'FR'] }], { customer: { country: 'FR' } }, { customer: {} }],
    [
      'gt on items[1].price',
      [{ path: 'items[1].price', op: 'gt', value: 100 }],
      { items: [{ price: 1 }, { price: 101 }] },
      { items: [{ price: 101 }] },
    ],
    ['lt on a numeric string', [{ path: 'order.total', op: 'lt', value: 10 }], { order: { total: '9.5' } }, { order: { total: 'nine' } }],
    ['exists on a null value', [{ path: 'customer.vip', op: 'exists' }], { customer: { vip: null } }, { customer: 'vip' }],
    ['exists false on a missing branch', [{ path: 'customer.country', op: 'exists', value: false }], {}, { customer: { country: 'DE' } }],
    [
      'equals on a nested object',
      [{ path: 'ship.to', op: 'equals', value: { a: 1, b: [2] } }],
      { ship: { to: { b: [2], a: 1 } } },
      { ship: { to: { a: 1 } } },
    ],
  ] as const)('%s', (_label, conditions, hit, miss) => {
    expect(matched(conditions as unknown as CompiledRule['conditions'], hit as Record<string, unknown>)).toBe(true);
    expect(matched(conditions as unknown as CompiledRule['conditions'], miss as Record<string, unknown>)).toBe(false);
  });
});
