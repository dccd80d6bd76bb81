import { startTestApp, errorCode, type TestApp } from '../support/app';
import { ManualClock } from '../support/clock';
import { seedDemo, type SeedResult } from '../../src/seed/demo-seed';
import { ToolDefinition } from '../../src/catalog/tool-definition.entity';
import type { ExecutionOutcome, ToolExecutor } from '../../src/executor/executor.types';
import { GatewayClient, recordStatements, touching } from '../gateway/gateway-helpers';
import { graphql } from '../gql';
import type { PolicyRuleInput } from '../gql/graphql';
import { textOf } from '../support/graphql-http';
import { EXECUTE_APPROVED_TOOL_CALL, RESOLVE_APPROVAL } from '../support/documents';

/**
 * Rules over history (docs/policy.md), through the real gateway on a real PostgreSQL: a
 * count per run, a sum per customer in a sliding window on the gateway's clock, a sequence
 * in a run; one statement per decision at most, and limits that hold under concurrency.
 *
 * Two test tools join the catalog: `refund.issue` and `invoice.create`; a fake executor
 * answers every call (an order lookup of `missing` fails, as a vendor 404 would).
 */
const clock = new ManualClock();
let app: TestApp;
let seed: SeedResult;
let gw: GatewayClient;

const executor: ToolExecutor = {
  async execute(request): Promise<ExecutionOutcome> {
    if (request.params.orderId === 'missing') {
      return { ok: false, code: 'VENDOR_ERROR', errorText: 'not found', reason: 'vendor_error', vendorStatusCode: 404, retries: [] };
    }
    return { ok: true, data: { done: true }, vendorStatusCode: 200, retries: [] };
  },
};

const TEST_TOOLS = [
  {
    toolName: 'refund',
    action: 'issue',
    properties: { customerId: { type: 'string' }, amount: { type: 'number' }, orderId: { type: 'string' } },
    required: ['customerId', 'amount'],
  },
  { toolName: 'invoice', action: 'create', properties: { orderId: { type: 'string' }, amount: { type: 'number' } }, required: ['orderId'] },
];

beforeAll(async () => {
  app = await startTestApp({}, { executor, clock });
  await app.em().transactional(async (tx) => {
    for (const t of TEST_TOOLS) {
      tx.create(ToolDefinition, {
        toolName: t.toolName,
        action: t.action,
        vendor: 'test',
        description: `${t.toolName}.${t.action} (test)`,
        defaultRisk: 'low',
        idempotent: false,
        inputSchema: { type: 'object', properties: t.properties, required: t.required, additionalProperties: false },
      });
    }
  });
  seed = await seedDemo(app.em(), app.masterKey);
  gw = new GatewayClient(app, seed);
});
afterAll(async () => app?.close());

graphql(`
  fragment HistoryRuleFields on PolicyRule {
    id name history { kind tool action scope customerPath paramPath windowSeconds limit }
  }
`);
const UPSERT = graphql(`
  mutation UpsertHistoryRule($input: PolicyRuleInput!) {
    upsertPolicyRule(input: $input) { ...HistoryRuleFields }
  }
`);
const RULES = graphql(`
  query HistoryRules {
    policyRules { id }
  }
`);
const DELETE = graphql(`
  mutation DeleteHistoryRule($id: ID!) {
    deletePolicyRule(id: $id)
  }
`);

const PER_RUN: PolicyRuleInput = {
  name: 'At most 3 refunds per run',
  position: 1,
  toolPattern: 'refund',
  actionPattern: 'issue',
  history: [{ kind: 'count', tool: 'refund', action: 'issue', scope: 'run', limit: 3 }],
  risk: 'high',
  decision: 'block',
};
const PER_CUSTOMER_DAY: PolicyRuleInput = {
  name: 'No more than $500 refunded per customer per day',
  position: 1,
  toolPattern: 'refund',
  history: [{ kind: 'sum', tool: 'refund', scope: 'customer', customerPath: 'customerId', paramPath: 'amount', windowSeconds: 86_400, limit: 500 }],
  risk: 'high',
  decision: 'block',
};
const INVOICE_AFTER_LOOKUP: PolicyRuleInput = {
  name: 'Invoice only after a lookup of the same order',
  position: 1,
  toolPattern: 'invoice',
  actionPattern: 'create',
  history: [{ kind: 'not_after', tool: 'order_lookup', action: 'lookup', scope: 'run', paramPath: 'orderId' }],
  risk: 'high',
  decision: 'block',
};

async function setRules(...rules: PolicyRuleInput[]): Promise<void> {
  for (const { id } of (await gw.ok(RULES)).policyRules) await gw.ok(DELETE, { id });
  for (const input of rules) await gw.ok(UPSERT, { input });
}

async function call(runId: string, toolName: string, action: string, params: Record<string, unknown>) {
  const answer = await gw.execute(runId, toolName, action, params);
  const recorded = await gw.call(answer.toolCallId);
  return { status: answer.status, reason: recorded.policyDecision?.reason ?? null };
}

const refund = (runId: string, customerId: string, amount: number) => call(runId, 'refund', 'issue', { customerId, amount });

describe('a count per run', () => {
  beforeAll(() => setRules(PER_RUN));

  test('the 4th refund in a run is blocked (limit 3); another run starts again', async () => {
    const run = (await gw.startRun()).id;
    for (let i = 1; i <= 3; i += 1) {
      expect(await refund(run, `count-${i}`, 10)).toEqual({ status: 'succeeded', reason: 'no rule matched; catalog default risk low' });
    }
    expect(await refund(run, 'count-4', 10)).toEqual({
      status: 'blocked',
      reason: 'rule "At most 3 refunds per run" (position 1): 4th refund.issue call in this run; limit 3',
    });
    // The blocked 4th does not count: the 5th is the 4th counted again.
    expect((await refund(run, 'count-5', 10)).reason).toContain('4th refund.issue call in this run');
    expect((await refund((await gw.startRun()).id, 'count-6', 10)).status).toBe('succeeded');
  });

  test('two concurrent calls of one run never both pass a limit of 1', async () => {
    await setRules({ ...PER_RUN, name: 'One refund per run', history: [{ kind: 'count', tool: 'refund', scope: 'run', limit: 1 }] });
    try {
      for (let round = 0; round < 3; round += 1) {
        const run = (await gw.startRun()).id;
        const answers = await Promise.all(
          Array.from({ length: 6 }, (_, i) => gw.execute(run, 'refund', 'issue', { customerId: `race-${round}-${i}`, amount: 1 })),
        );
        expect(answers.map((a) => a.status).sort()).toEqual(['blocked', 'blocked', 'blocked', 'blocked', 'blocked', 'succeeded']);
      }
    } finally {
      await setRules(PER_RUN);
    }
  });
});

describe('a sum per customer in a 24 h window', () => {
  beforeAll(() => setRules(PER_CUSTOMER_DAY));

  test('$501 refunded for one customer in one day is blocked; other customers and the next day are not', async () => {
    const [a, b] = [(await gw.startRun()).id, (await gw.startRun()).id];
    expect((await refund(a, 'cust-1', 200)).status).toBe('succeeded');
    expect((await refund(b, 'cust-1', 300)).status).toBe('succeeded'); // 500: at the limit, not above it
    expect(await refund(b, 'cust-1', 1)).toEqual({
      status: 'blocked',
      reason:
        'rule "No more than $500 refunded per customer per day" (position 1): refund amount for customerId "cust-1" in the last 24h: 501 with this call; limit 500',
    });
    expect((await refund(a, 'cust-2', 400)).status).toBe('succeeded');
    // The window slides on the gateway's clock: a day and a second later the $500 are out of it.
    clock.advance(86_400_000 + 1000);
    expect((await refund(a, 'cust-1', 500)).status).toBe('succeeded');
    expect((await refund(a, 'cust-1', 0.5)).status).toBe('blocked');
  });

  test('a refund waiting for approval counts, so that a second one cannot slip under the limit', async () => {
    await setRules(PER_CUSTOMER_DAY, {
      name: 'Refunds above $250 need an expert',
      position: 2,
      toolPattern: 'refund',
      conditions: [{ path: 'amount', op: 'gt', value: 250 }],
      risk: 'high',
      decision: 'require_expert_approval',
    });
    try {
      const run = (await gw.startRun()).id;
      expect((await refund(run, 'cust-3', 300)).status).toBe('waiting_approval');
      expect((await refund(run, 'cust-3', 250)).status).toBe('blocked');
      expect((await refund(run, 'cust-4', 250)).status).toBe('succeeded');
    } finally {
      await setRules(PER_CUSTOMER_DAY);
    }
  });

  test('a limit added while a refund waits applies when it is approved, the refund itself counted once', async () => {
    const needsExpert = {
      name: 'every refund needs an expert',
      position: 5,
      toolPattern: 'refund',
      risk: 'high',
      decision: 'require_expert_approval',
    } as const;
    const run = (await gw.startRun()).id;
    const approveAndRun = async (toolCallId: string, approvalRequestId: string | null | undefined) => {
      await gw.ok(RESOLVE_APPROVAL, { id: approvalRequestId!, decision: 'APPROVE' }, seed.keys.expert);
      return (await gw.ok(EXECUTE_APPROVED_TOOL_CALL, { id: toolCallId }, seed.keys.agent)).executeApprovedToolCall.status;
    };
    for (const [limit, expected] of [
      [200, 'blocked'],
      [400, 'succeeded'], // 300 with this call: the waiting refund is not counted twice
    ] as const) {
      await setRules(needsExpert);
      const waiting = await gw.execute(run, 'refund', 'issue', { customerId: `approved-${limit}`, amount: 300 });
      expect(waiting.status).toBe('waiting_approval');
      await setRules({ ...PER_CUSTOMER_DAY, history: [{ ...PER_CUSTOMER_DAY.history![0], limit }] }, needsExpert);
      expect(await approveAndRun(waiting.toolCallId, waiting.approvalRequestId)).toBe(expected);
    }
    await setRules(PER_CUSTOMER_DAY);
  });

  test('a customer key redaction hides is compared and shown as stored: hidden keys share one limit, never escape it', async () => {
    const run = (await gw.startRun()).id;
    // Both look like card numbers: stored as [REDACTED], like any other such key.
    expect((await refund(run, '4111111111111111', 300)).status).toBe('succeeded');
    const second = await refund(run, '5555555555554444', 300);
    expect(second.status).toBe('blocked');
    expect(second.reason).toContain('for customerId "[REDACTED]" in the last 24h: 600 with this call; limit 500');
    expect(second.reason).not.toContain('5555');
  });

  test('concurrent refunds of one customer from different runs never both pass', async () => {
    const runs = await Promise.all(Array.from({ length: 5 }, () => gw.startRun()));
    const answers = await Promise.all(runs.map((r) => gw.execute(r.id, 'refund', 'issue', { customerId: 'cust-race', amount: 300 })));
    expect(answers.filter((a) => a.status === 'succeeded')).toHaveLength(1);
  });
});

describe('a sequence in a run', () => {
  beforeAll(() => setRules(INVOICE_AFTER_LOOKUP));

  test('an invoice needs a succeeded lookup of the same order earlier in the same run', async () => {
    const run = (await gw.startRun()).id;
    const invoice = (orderId: string, runId = run) => call(runId, 'invoice', 'create', { orderId, amount: 10 });
    expect(await invoice('1001')).toEqual({
      status: 'blocked',
      reason:
        'rule "Invoice only after a lookup of the same order" (position 1): no succeeded order_lookup.lookup with the same orderId (1001) in this run',
    });
    expect((await call(run, 'order_lookup', 'lookup', { orderId: '1001' })).status).toBe('succeeded');
    expect(await invoice('1001')).toEqual({ status: 'succeeded', reason: 'no rule matched; catalog default risk low' });
    // Another order, a lookup in another run, a lookup that failed: none of them opens the way.
    expect((await invoice('1002')).status).toBe('blocked');
    const other = (await gw.startRun()).id;
    expect((await call(other, 'order_lookup', 'lookup', { orderId: '1003' })).status).toBe('succeeded');
    expect((await invoice('1003')).status).toBe('blocked');
    expect((await invoice('1003', other)).status).toBe('succeeded');
    expect((await call(run, 'order_lookup', 'lookup', { orderId: 'missing' })).status).toBe('failed');
    expect((await invoice('missing')).status).toBe('blocked');
  });
});

describe('at most one extra statement per decision (and the transaction its locks need)', () => {
  const statementsOf = async (runId: string, toolName: string, action: string, params: Record<string, unknown>) =>
    (await recordStatements(app, () => gw.execute(runId, toolName, action, params))).statements;

  test('one for all the history conditions of the candidate rules; none when no rule with history is a candidate', async () => {
    const run = (await gw.startRun()).id;
    await setRules();
    await gw.execute(run, 'refund', 'issue', { customerId: 'warm', amount: 1 }); // the org's rules are loaded once per version
    const without = await statementsOf(run, 'refund', 'issue', { customerId: 'stmt', amount: 1 });

    await setRules(PER_RUN, { ...PER_CUSTOMER_DAY, position: 2 }, { ...INVOICE_AFTER_LOOKUP, position: 3 });
    await gw.execute(run, 'order_lookup', 'lookup', { orderId: 'warm' });
    const withHistory = await statementsOf(run, 'refund', 'issue', { customerId: 'stmt', amount: 1 });
    expect(withHistory.filter((s) => s.includes('policy_history('))).toHaveLength(1);
    // The history's advisory locks must hold until the decision commits: the decision becomes a
    // transaction (BEGIN and COMMIT) where, without history, its statements go alone.
    const transactionStatements = (statements: string[]) => statements.filter((s) => /^\[query\] (begin|commit)\b/.test(s)).length;
    expect(transactionStatements(without)).toBe(0);
    expect(transactionStatements(withHistory)).toBe(2);
    expect(withHistory.length).toBe(without.length + 1 + 2);
    // Two rules' conditions in the one statement: the count and the sum.
    const [history] = withHistory.filter((s) => s.includes('policy_history('));
    expect(touching(withHistory, 'tool_calls').length).toBe(touching(without, 'tool_calls').length);
    expect(history).toBeDefined();

    // The org has rules with history, but none is a candidate for an order lookup: no extra statement.
    const lookup = await statementsOf(run, 'order_lookup', 'lookup', { orderId: 'stmt' });
    expect(lookup.filter((s) => s.includes('policy_history('))).toHaveLength(0);
  });
});

describe('bad history conditions are BAD_USER_INPUT with a field and write nothing', () => {
  const UPSERT_TEXT = textOf(UPSERT);
  const base = { name: 'bad', position: 1, risk: 'high', decision: 'block' };
  const count = { kind: 'count', tool: 'refund', scope: 'run', limit: 3 };

  test.each([
    ['an unknown aggregate', { ...count, kind: 'avg' }, 'history[0].kind'],
    ['a negative limit', { ...count, limit: -1 }, 'history[0].limit'],
    ['a fractional count limit', { ...count, limit: 1.5 }, 'history[0].limit'],
    ['a window of 0', { ...count, windowSeconds: 0 }, 'history[0].windowSeconds'],
    ['a window over 31 days', { ...count, windowSeconds: 31 * 86_400 + 1 }, 'history[0].windowSeconds'],
    ['a customer scope without a window', { ...count, scope: 'customer', customerPath: 'customerId' }, 'history[0].windowSeconds'],
    ['a customer path that is not a param path', { ...count, scope: 'customer', customerPath: 'a..b', windowSeconds: 60 }, 'history[0].customerPath'],
    ['a sum without a param path', { ...count, kind: 'sum' }, 'history[0].paramPath'],
    ['a sum over a path that is not a param path', { ...count, kind: 'sum', paramPath: '$.amount[*]' }, 'history[0].paramPath'],
    ['a count with a param path', { ...count, paramPath: 'amount' }, 'history[0].paramPath'],
    ['not_after with a limit', { kind: 'not_after', tool: 'order_lookup', scope: 'run', paramPath: 'orderId', limit: 1 }, 'history[0].limit'],
    ['a tool glob', { ...count, tool: 'refund*' }, 'history[0].tool'],
  ])('%s', async (_label, history, field) => {
    await setRules();
    const versionBefore = (await gw.org()).policyVersion;
    const eventsBefore = await gw.count('ledger_events');
    const res = await app.gql(UPSERT_TEXT, { key: seed.keys.admin, variables: { input: { ...base, history: [history] } } });
    expect(errorCode(res)).toBe('BAD_USER_INPUT');
    const error = res.body.errors![0];
    // Ours name the field; an unknown enum value is refused by GraphQL itself, its message naming the field.
    expect(error.extensions?.field ?? error.message).toContain(field);
    expect(await gw.count('policy_rules')).toBe(0);
    expect(await gw.count('ledger_events')).toBe(eventsBefore);
    expect((await gw.org()).policyVersion).toBe(versionBefore);
  });

  test('a rule reads back as stored, absent fields null', async () => {
    await setRules();
    const saved = (await gw.ok(UPSERT, { input: PER_CUSTOMER_DAY })).upsertPolicyRule;
    expect(saved.history).toEqual([
      {
        kind: 'sum',
        tool: 'refund',
        action: null,
        scope: 'customer',
        customerPath: 'customerId',
        paramPath: 'amount',
        windowSeconds: 86_400,
        limit: 500,
      },
    ]);
  });
});
