import { startTestApp, errorCode, type TestApp } from '../support/app';
import { seedDemo, type SeedResult } from '../../src/seed/demo-seed';
import { ToolDefinition } from '../../src/catalog/tool-definition.entity';
import type { ExecutionOutcome, ToolExecutor } from '../../src/executor/executor.types';
import { GatewayClient } from '../gateway/gateway-helpers';
import { EXECUTE_APPROVED_TOOL_CALL, RESOLVE_APPROVAL } from '../support/documents';

/**
 * Cedar policies beside the rules (docs/policy.md, "Cedar"), through the real gateway on a
 * real PostgreSQL: validated against the generated schema on save, a forbid that blocks, a
 * permit that asks an expert above an amount, and the order between Cedar and the rules.
 */
let app: TestApp;
let seed: SeedResult;
let gw: GatewayClient;

const executor: ToolExecutor = {
  async execute(): Promise<ExecutionOutcome> {
    return { ok: true, data: { done: true }, vendorStatusCode: 200, retries: [] };
  },
};

beforeAll(async () => {
  app = await startTestApp({}, { executor });
  await app.em().transactional(async (tx) => {
    tx.create(ToolDefinition, {
      toolName: 'refund',
      action: 'issue',
      vendor: 'test',
      description: 'refund.issue (test)',
      defaultRisk: 'low',
      idempotent: false,
      inputSchema: {
        type: 'object',
        properties: { customerId: { type: 'string' }, amount: { type: 'number' }, items: { type: 'integer' } },
        required: ['customerId', 'amount'],
        additionalProperties: false,
      },
    });
  });
  seed = await seedDemo(app.em(), app.masterKey);
  gw = new GatewayClient(app, seed);
});
afterAll(async () => app?.close());

const UPSERT = `mutation($input: CedarPolicyInput!) { upsertCedarPolicy(input: $input) { id name } }`;
const POLICIES = `query { cedarPolicies { id name } viewer { org { policyVersion } } }`;
const DELETE = `mutation($id: ID!) { deleteCedarPolicy(id: $id) }`;
const UPSERT_RULE = `mutation($input: PolicyRuleInput!) { upsertPolicyRule(input: $input) { id } }`;
const DELETE_RULE = `mutation($id: ID!) { deletePolicyRule(id: $id) }`;

const NO_REFUNDS_TO_MALLORY = {
  name: 'no refunds to mallory',
  position: 1,
  text: '@risk("high") forbid (principal, action == Toolgate::Action::"refund.issue", resource) when { context.params.customerId == "mallory" };',
};
const EXPERT_ABOVE_250 = {
  name: 'refunds above 250 need an expert',
  position: 2,
  text: `@outcome("require_expert_approval") @risk("high")
permit (principal in Toolgate::Role::"agent", action == Toolgate::Action::"refund.issue", resource)
when { context.params.amount.greaterThan(decimal("250.0")) };`,
};

async function setCedar(...policies: { name: string; position: number; text: string }[]): Promise<void> {
  for (const { id } of (await gw.ok(POLICIES)).cedarPolicies) await gw.ok(DELETE, { id });
  for (const input of policies) await gw.ok(UPSERT, { input });
}

async function refund(params: Record<string, unknown>) {
  const answer = await gw.execute((await gw.startRun()).id, 'refund', 'issue', params);
  const recorded = await gw.call(answer.toolCallId);
  return { status: answer.status, risk: recorded.policyDecision?.risk, reason: recorded.policyDecision?.reason ?? null };
}

test('the generated schema declares the callers, the tools and the params with their Cedar types', async () => {
  const { cedarSchema } = await gw.ok('query { cedarSchema }');
  expect(cedarSchema).toContain('entity Person in [Role];');
  expect(cedarSchema).toContain('action "refund.issue" appliesTo');
  expect(cedarSchema).toMatch(/amount: __cedar::decimal,\s+customerId: __cedar::String,\s+items\?: __cedar::Long/);
});

test('a Cedar forbid blocks the call, and the decision names the Cedar policy', async () => {
  await setCedar(NO_REFUNDS_TO_MALLORY);
  expect(await refund({ customerId: 'mallory', amount: 5 })).toEqual({
    status: 'blocked',
    risk: 'high',
    reason: 'Cedar policy "no refunds to mallory" (forbid)',
  });
  expect(await refund({ customerId: 'alice', amount: 5 })).toEqual({
    status: 'succeeded',
    risk: 'low',
    reason: 'no rule matched; catalog default risk low',
  });
});

test('a Cedar permit with @outcome asks an expert above an amount (decimals included)', async () => {
  await setCedar(EXPERT_ABOVE_250);
  const asked = {
    status: 'waiting_approval',
    risk: 'high',
    reason: `Cedar policy "${EXPERT_ABOVE_250.name}" (position 2, permit @outcome("require_expert_approval"))`,
  };
  expect(await refund({ customerId: 'alice', amount: 300 })).toEqual(asked);
  expect(await refund({ customerId: 'alice', amount: 250.01 })).toEqual(asked);
  expect((await refund({ customerId: 'alice', amount: 250 })).status).toBe('succeeded');
});

test('a number Cedar cannot hold exactly blocks the call rather than being rounded', async () => {
  await setCedar(EXPERT_ABOVE_250);
  expect(await refund({ customerId: 'alice', amount: 250.00001 })).toEqual({
    status: 'blocked',
    risk: 'high',
    reason: 'Cedar policies cannot be asked: params.amount (250.00001) is not a Cedar decimal: at most 4 decimal places; blocked (fails closed)',
  });
});

test('order: a Cedar forbid, then the first rule that matches, then the Cedar permit', async () => {
  await setCedar(NO_REFUNDS_TO_MALLORY, EXPERT_ABOVE_250);
  const rule = await gw.ok(UPSERT_RULE, {
    input: { name: 'refunds are observed', position: 1, toolPattern: 'refund', risk: 'medium', decision: 'observe' },
  });
  try {
    expect((await refund({ customerId: 'mallory', amount: 5 })).reason).toBe('Cedar policy "no refunds to mallory" (forbid)');
    expect(await refund({ customerId: 'alice', amount: 300 })).toEqual({
      status: 'succeeded',
      risk: 'medium',
      reason: 'rule "refunds are observed" (position 1)',
    });
  } finally {
    await gw.ok(DELETE_RULE, { id: rule.upsertPolicyRule.id });
  }
  expect((await refund({ customerId: 'alice', amount: 300 })).status).toBe('waiting_approval');
});

test('a Cedar forbid added while a refund waits for its expert blocks it when approved', async () => {
  await setCedar(EXPERT_ABOVE_250);
  const waiting = await gw.execute((await gw.startRun()).id, 'refund', 'issue', { customerId: 'mallory', amount: 300 });
  expect(waiting.status).toBe('waiting_approval');
  await setCedar(NO_REFUNDS_TO_MALLORY, EXPERT_ABOVE_250);
  await gw.ok(RESOLVE_APPROVAL, { id: waiting.approvalRequestId!, decision: 'APPROVE' }, seed.keys.expert);
  const answer = await gw.ok(EXECUTE_APPROVED_TOOL_CALL, { id: waiting.toolCallId }, seed.keys.agent);
  expect(answer.executeApprovedToolCall.status).toBe('blocked');
});

test('a forbid whose evaluation errors blocks (fails closed); a permit that errors does not decide', async () => {
  const overflow = 'context.params has items && context.params.items * 4611686018427387904 > 0';
  await setCedar({
    name: 'overflowing forbid',
    position: 1,
    text: `forbid (principal, action == Toolgate::Action::"refund.issue", resource) when { ${overflow} };`,
  });
  const blocked = await refund({ customerId: 'alice', amount: 5, items: 3 });
  expect(blocked.status).toBe('blocked');
  expect(blocked.reason).toMatch(/^Cedar policy "overflowing forbid" \(forbid\) could not be evaluated \(.*overflow.*\); blocked \(fails closed\)$/);
  await setCedar(EXPERT_ABOVE_250, {
    name: 'overflowing permit',
    position: 1,
    text: `@outcome("require_client_approval") permit (principal, action, resource) when { ${overflow} };`,
  });
  expect((await refund({ customerId: 'alice', amount: 300, items: 3 })).reason).toBe(
    `Cedar policy "${EXPERT_ABOVE_250.name}" (position 2, permit @outcome("require_expert_approval"))`,
  );
});

test('a stored policy that no longer reads blocks every call rather than being left out', async () => {
  await setCedar(NO_REFUNDS_TO_MALLORY);
  // As a newer engine might find it: written past the API's validation, the org's config marked stale.
  await app.em().execute(`update cedar_policies set text = 'forbid (principal, action, resource) when { x };' where org_id = ?`, [seed.orgId]);
  await app.em().execute('update orgs set config_version = config_version + 1 where id = ?', [seed.orgId]);
  const answer = await refund({ customerId: 'alice', amount: 5 });
  expect(answer.status).toBe('blocked');
  expect(answer.reason).toMatch(/^Cedar policy "no refunds to mallory" no longer reads \(.*invalid variable: x.*\); blocked \(fails closed\)$/);
  await setCedar();
  expect((await refund({ customerId: 'alice', amount: 5 })).status).toBe('succeeded');
});

test('a replay does not evaluate Cedar policies, and says so', async () => {
  await setCedar(NO_REFUNDS_TO_MALLORY, EXPERT_ABOVE_250);
  expect((await refund({ customerId: 'mallory', amount: 5 })).status).toBe('blocked');
  const simulate = `query($from: DateTimeISO!, $to: DateTimeISO!) {
    simulatePolicy(from: $from, to: $to, rules: []) { callsRead changedCount cedarPoliciesNotReplayed }
  }`;
  const answer = await gw.ok(simulate, { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() });
  expect(answer.simulatePolicy.cedarPoliciesNotReplayed).toBe(2);
  // The Cedar-blocked calls show as changed by an empty draft: the count above says why.
  expect(answer.simulatePolicy.changedCount).toBeGreaterThan(0);
});

describe('a policy an admin may not save is refused with nothing written', () => {
  test.each([
    ['a syntax error', 'permit (principal, action, resource) when { x };', /invalid variable: x/],
    [
      'an attribute the schema does not have',
      '@outcome("observe") permit (principal, action == Toolgate::Action::"refund.issue", resource) when { context.params.currency == "EUR" };',
      /attribute `params.currency` in context for Toolgate::Action::"refund.issue" not found/,
    ],
    [
      'an optional attribute read without `has`',
      '@outcome("observe") permit (principal, action == Toolgate::Action::"refund.issue", resource) when { context.params.items > 3 };',
      /items/,
    ],
    [
      'a comparison of a decimal as a number',
      '@outcome("observe") permit (principal, action == Toolgate::Action::"refund.issue", resource) when { context.params.amount > 3 };',
      /Long/,
    ],
    ['a permit without @outcome', 'permit (principal, action == Toolgate::Action::"refund.issue", resource);', /a permit needs @outcome/],
    ['a forbid with another outcome', '@outcome("allow") forbid (principal, action, resource);', /a forbid blocks/],
    ['two policies in one', `${NO_REFUNDS_TO_MALLORY.text} ${NO_REFUNDS_TO_MALLORY.text}`, /exactly one policy/],
    ['an unknown action', '@outcome("allow") permit (principal, action == Toolgate::Action::"refund.steal", resource);', /refund.steal/],
  ])('%s', async (_, text, message) => {
    await setCedar();
    const before = await gw.ok(POLICIES);
    const res = await app.gql(UPSERT, { key: seed.keys.admin, variables: { input: { name: 'draft', position: 1, text } } });
    expect(errorCode(res)).toBe('BAD_USER_INPUT');
    expect(res.body.errors?.[0]?.extensions?.field).toBe('text');
    expect(res.body.errors?.[0]?.message).toMatch(message);
    expect(await gw.ok(POLICIES)).toEqual(before);
  });

  test('while the org requires a replay before a change, Cedar policies cannot change (a replay does not evaluate them)', async () => {
    await setCedar();
    const before = await gw.ok(POLICIES);
    await app.em().execute('update orgs set policy_replay_required = true where id = ?', [seed.orgId]);
    try {
      const res = await app.gql(UPSERT, { key: seed.keys.admin, variables: { input: { ...NO_REFUNDS_TO_MALLORY } } });
      expect(errorCode(res)).toBe('POLICY_REPLAY_REQUIRED');
      expect(await gw.ok(POLICIES)).toEqual(before);
    } finally {
      await app.em().execute('update orgs set policy_replay_required = false where id = ?', [seed.orgId]);
    }
  });

  test('only admins write Cedar policies', async () => {
    const res = await app.gql(UPSERT, { key: seed.keys.agent, variables: { input: { ...NO_REFUNDS_TO_MALLORY } } });
    expect(errorCode(res)).toBe('FORBIDDEN');
  });
});
