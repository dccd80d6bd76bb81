import { randomUUID } from 'node:crypto';
import { useDemoApp } from '../support/demo-fixture';
import { newOrg, newRun, type TestOrg } from '../support/factories';
import { errorCode } from '../support/app';
import { simulatePolicy } from '../../src/policy/policy-simulation.service';
import type { PolicyRuleInput } from '../../src/policy/policy-rule.service';

/**
 * Policy replay: a draft rule set decided again over recorded calls, read in pages inside a
 * read-only transaction. The calls are written straight in SQL (as the gateway records them:
 * a decision and a call), at known times, so each expectation can be counted by hand.
 */
const demo = useDemoApp();

const SIMULATE = `
  query Simulate($from: DateTimeISO!, $to: DateTimeISO!, $rules: [PolicyRuleInput!]!, $first: Int) {
    simulatePolicy(from: $from, to: $to, rules: $rules, first: $first) {
      callsRead changedCount undecidableCount
      changes { oldOutcome newOutcome count rule { index id name position } }
      examples { toolCallId toolName action createdAt oldOutcome oldMatchedRuleId oldReason newOutcome rule { index name } }
    }
  }`;

const DAY = 86_400_000;
/** The demo org's recorded calls lie in [T0, T0 + 1 day). */
const T0 = Date.parse('2026-11-01T00:00:00Z');
const RANGE = { from: new Date(T0).toISOString(), to: new Date(T0 + DAY).toISOString() };

const BLOCK_BIG_INVOICES = {
  name: 'big invoices are blocked',
  position: 10,
  toolPattern: 'invoice',
  actionPattern: 'send',
  conditions: [{ path: 'amount', op: 'gt', value: 1000 }],
  risk: 'high',
  decision: 'block',
};

function owner(orgId: string, specialistId: string): TestOrg {
  return { org: { id: orgId }, specialist: { id: specialistId } } as unknown as TestOrg;
}

/**
 * `count` calls of tool.action in one run of the org, one a second from `start`; call i's
 * input is `input(i)` (`perInstant` calls share each second, `micros` past it). Each was allowed by the catalog default (no rule matched, risk low).
 */
async function recordCalls(
  org: TestOrg,
  count: number,
  options: {
    start: number;
    toolName?: string;
    action?: string;
    input: (i: number) => unknown;
    perInstant?: number;
    micros?: number;
    /** The run to record them in (default a new one), and their status (default succeeded). */
    runId?: string;
    status?: string;
  },
): Promise<string[]> {
  const run = options.runId ? { id: options.runId } : await newRun(demo.app.em(), org, { createdAt: new Date(options.start) });
  const ids = Array.from({ length: count }, () => randomUUID());
  const inputs = Array.from({ length: count }, (_, i) => options.input(i));
  const instants = [options.start, options.perInstant ?? 1, options.micros ?? 0];
  await demo.app.em().execute(
    `with c as (select * from unnest(?::uuid[], ?::uuid[]) with ordinality as c(id, decision_id, n)),
       d as (insert into policy_decisions (id, org_id, run_id, tool_name, action, outcome, risk, policy_version, caller_role, reason, created_at)
             select c.decision_id, ?, ?, ?, ?, 'allow', 'low', 1, 'agent', 'no rule matched; catalog default risk low',
                    to_timestamp(?::double precision / 1000) + ((c.n - 1) / ?::int) * interval '1 second' + ?::int * interval '1 microsecond' from c)
     insert into tool_calls (id, org_id, run_id, tool_name, action, correlation_id, status, input_redacted, policy_decision_id, risk_level, created_at, updated_at)
     select c.id, ?, ?, ?, ?, c.id::text, ?, (?::jsonb) -> (c.n::int - 1), c.decision_id, 'low',
            to_timestamp(?::double precision / 1000) + ((c.n - 1) / ?::int) * interval '1 second' + ?::int * interval '1 microsecond', now() from c`,
    [
      // Array parameters as PostgreSQL array text: knex would spread a JavaScript array.
      `{${ids.join(',')}}`,
      `{${ids.map(() => randomUUID()).join(',')}}`,
      org.org.id,
      run.id,
      options.toolName ?? 'invoice',
      options.action ?? 'send',
      ...instants,
      org.org.id,
      run.id,
      options.toolName ?? 'invoice',
      options.action ?? 'send',
      options.status ?? 'succeeded',
      JSON.stringify(inputs),
      ...instants,
    ],
  );
  return ids;
}

async function tableCounts() {
  const [row] = await demo.app.em().execute<{ rules: string; events: string; decisions: string; calls: string; version: number }[]>(
    `select (select count(*) from policy_rules) as rules, (select count(*) from ledger_events) as events,
            (select count(*) from policy_decisions) as decisions, (select count(*) from tool_calls) as calls,
            (select policy_version from orgs where id = ?) as version`,
    [demo.seed.orgId],
  );
  return row;
}

let demoOrg: TestOrg;
let invoiceIds: string[];

beforeAll(async () => {
  demoOrg = owner(demo.seed.orgId, demo.seed.specialistId);
  // Ten invoices of 0, 250, …, 2250: the last five are over 1000.
  invoiceIds = await recordCalls(demoOrg, 10, { start: T0 + 1000, input: (i) => ({ amount: i * 250, customer: 'c-1' }) });
  // Two more whose amount redaction hid, and one order lookup the draft does not touch.
  await recordCalls(demoOrg, 2, { start: T0 + 3_600_000, input: () => ({ amount: '[REDACTED]', customer: 'c-2' }) });
  await recordCalls(demoOrg, 1, { start: T0 + 7_200_000, toolName: 'order_lookup', action: 'lookup', input: () => ({ orderId: '1' }) });
});

const simulate = async (variables: Record<string, unknown>, key = demo.seed.keys.admin) =>
  demo.app.gql(SIMULATE, { key, variables: { ...RANGE, ...variables } });

test('a draft that blocks what was allowed shows each changed call, grouped by outcome and rule, with the first examples', async () => {
  const res = await simulate({ rules: [BLOCK_BIG_INVOICES], first: 3 });
  expect(res.body.errors).toBeUndefined();
  const answer = res.body.data!.simulatePolicy;
  expect(answer).toMatchObject({ callsRead: 13, changedCount: 5, undecidableCount: 2 });
  expect(answer.changes).toEqual([
    { oldOutcome: 'allow', newOutcome: 'block', count: 5, rule: { index: 0, id: null, name: 'big invoices are blocked', position: 10 } },
    { oldOutcome: 'allow', newOutcome: null, count: 2, rule: { index: 0, id: null, name: 'big invoices are blocked', position: 10 } },
  ]);
  // Oldest first: amounts 1250, 1500, 1750 (calls 5 to 7), one second apart.
  expect(answer.examples).toEqual(
    [5, 6, 7].map((i) => ({
      toolCallId: invoiceIds[i],
      toolName: 'invoice',
      action: 'send',
      createdAt: new Date(T0 + 1000 + i * 1000).toISOString(),
      oldOutcome: 'allow',
      oldMatchedRuleId: null,
      oldReason: 'no rule matched; catalog default risk low',
      newOutcome: 'block',
      rule: { index: 0, name: 'big invoices are blocked' },
    })),
  );
});

test('a draft that decides as before shows no change; a disabled rule is not evaluated', async () => {
  const unchanged = await simulate({ rules: [] });
  expect(unchanged.body.data!.simulatePolicy).toMatchObject({ callsRead: 13, changedCount: 0, undecidableCount: 0, changes: [], examples: [] });
  const disabled = await simulate({ rules: [{ ...BLOCK_BIG_INVOICES, enabled: false }] });
  expect(disabled.body.data!.simulatePolicy).toMatchObject({ callsRead: 13, changedCount: 0, undecidableCount: 0 });
});

test('a condition over a redacted value is undecidable, never guessed; a rule that matches before it still decides', async () => {
  const res = await simulate({ rules: [{ ...BLOCK_BIG_INVOICES, conditions: [{ path: 'amount', op: 'lt', value: 100 }] }] });
  const answer = res.body.data!.simulatePolicy;
  // Only amount 0 is under 100; the two redacted amounts cannot be compared either way.
  expect(answer).toMatchObject({ changedCount: 1, undecidableCount: 2 });
  expect(answer.examples.filter((e: { newOutcome: string | null }) => e.newOutcome === null)).toHaveLength(2);

  // A customer rule placed first decides c-2's calls before the amount is read; `exists` over a redacted key is known.
  const first = {
    ...BLOCK_BIG_INVOICES,
    name: 'customer c-2 needs the client',
    position: 1,
    conditions: [{ path: 'customer', op: 'equals', value: 'c-2' }],
  };
  const present = {
    ...BLOCK_BIG_INVOICES,
    name: 'amount present',
    position: 20,
    conditions: [{ path: 'amount', op: 'exists', value: true }],
    decision: 'observe',
  };
  const ordered = (await simulate({ rules: [BLOCK_BIG_INVOICES, present, { ...first, decision: 'require_client_approval' }] })).body.data!
    .simulatePolicy;
  expect(ordered).toMatchObject({ undecidableCount: 0, changedCount: 12 });
  expect(ordered.changes.map((c: { newOutcome: string; count: number; rule: { index: number } }) => [c.newOutcome, c.rule.index, c.count])).toEqual([
    ['block', 0, 5],
    ['observe', 1, 5],
    ['require_client_approval', 2, 2],
  ]);
});

test('paging: 2,500 calls read 100 at a time answer exactly what one pass answers, in a read-only transaction', async () => {
  const other = await newOrg(demo.app.em());
  const start = Date.parse('2026-10-01T00:00:00Z');
  // Seven calls share each instant, 123 µs past the millisecond: pages end inside ties, and a
  // cursor rounded to a JavaScript Date would read some calls twice.
  await recordCalls(other, 2500, {
    start,
    perInstant: 7,
    micros: 123,
    input: (i) => ({ amount: (i * 37) % 3000, customer: i % 7 === 0 ? '[REDACTED]' : `c-${i % 5}` }),
  });
  const rules = [
    { ...BLOCK_BIG_INVOICES, roles: [], enabled: true, conditions: [{ path: 'amount', op: 'gt', value: 2000 }] } as PolicyRuleInput,
    {
      ...BLOCK_BIG_INVOICES,
      roles: [],
      name: 'c-3',
      position: 20,
      enabled: true,
      conditions: [{ path: 'customer', op: 'equals', value: 'c-3' }],
      decision: 'observe',
    } as PolicyRuleInput,
  ];
  const request = { from: new Date(start), to: new Date(start + DAY), rules, first: 100 };
  const statementsBefore = demo.app.statements.length;
  const paged = await simulatePolicy(demo.app.em(), other.org.id, { ...request, pageSize: 100 });
  const sent = demo.app.statements.slice(statementsBefore);
  const pages = sent.filter((s) => s.includes('from tool_calls tc')).length;
  // The transaction is read only before its first read: PostgreSQL refuses any write in it.
  expect(sent.slice(0, 2).map((s) => s.replace(/ \[took.*$/, ''))).toEqual(['[query] begin', '[query] set transaction read only']);
  const whole = await simulatePolicy(demo.app.em(), other.org.id, { ...request, pageSize: 10_000 });
  expect(pages).toBe(26); // 25 full pages and the empty one that ends it
  // Each replay is recorded on its own (policy_replays); what they found is the same.
  expect({ ...paged, replayId: null }).toEqual({ ...whole, replayId: null });
  expect(paged.replayId).not.toBe(whole.replayId);
  expect(paged.callsRead).toBe(2500);
  // By hand: amount > 2000 blocks; of the rest, c-3 is observed, a redacted customer is undecidable.
  let blocked = 0;
  let observed = 0;
  let undecidable = 0;
  for (let i = 0; i < 2500; i++) {
    if ((i * 37) % 3000 > 2000) blocked += 1;
    else if (i % 7 === 0) undecidable += 1;
    else if (i % 5 === 3) observed += 1;
  }
  expect(paged).toMatchObject({ changedCount: blocked + observed, undecidableCount: undecidable });
  expect(paged.examples).toHaveLength(100);
});

test("another org's calls are never read: each admin replays only its own org", async () => {
  const other = await newOrg(demo.app.em());
  await recordCalls(other, 4, { start: T0 + 60_000, input: () => ({ amount: 5000 }) });
  const mine = (await simulate({ rules: [BLOCK_BIG_INVOICES] })).body.data!.simulatePolicy;
  expect(mine).toMatchObject({ callsRead: 13, changedCount: 5 });
  const theirs = (await simulate({ rules: [BLOCK_BIG_INVOICES] }, other.keys.admin)).body.data!.simulatePolicy;
  expect(theirs).toMatchObject({ callsRead: 4, changedCount: 4 });
});

test('only admins replay', async () => {
  for (const role of ['expert', 'client', 'partner', 'agent'] as const) {
    expect(errorCode(await simulate({ rules: [BLOCK_BIG_INVOICES] }, demo.seed.keys[role]))).toBe('FORBIDDEN');
  }
});

test('bad input is refused with its code and writes nothing', async () => {
  const before = await tableCounts();
  const cases: [Record<string, unknown>, string][] = [
    [{ to: RANGE.from, rules: [] }, 'BAD_USER_INPUT'],
    [{ from: RANGE.to, to: RANGE.from, rules: [] }, 'BAD_USER_INPUT'],
    [{ to: new Date(T0 + 93 * DAY).toISOString(), rules: [] }, 'SIMULATION_RANGE_TOO_LARGE'],
    [{ rules: [{ ...BLOCK_BIG_INVOICES, conditions: [{ path: 'a..b', op: 'gt', value: 1 }] }] }, 'BAD_USER_INPUT'],
    [{ rules: [{ ...BLOCK_BIG_INVOICES, conditions: [{ path: 'amount', op: 'gt', value: 'big' }] }] }, 'BAD_USER_INPUT'],
    [{ rules: [{ ...BLOCK_BIG_INVOICES, specialistId: randomUUID() }] }, 'NOT_FOUND'],
    [{ rules: [], first: 101 }, 'BAD_USER_INPUT'],
  ];
  for (const [variables, code] of cases) expect([variables, errorCode(await simulate(variables))]).toEqual([variables, code]);
  // 92 days exactly is allowed.
  expect(errorCode(await simulate({ to: new Date(T0 + 92 * DAY).toISOString(), rules: [] }))).toBeUndefined();
  expect(await tableCounts()).toEqual(before);
});

describe('rules over history are replayed as of each call', () => {
  /** One seeded call, as the brute force reads it. */
  interface Seeded {
    id: string;
    runId: string;
    at: number;
    tool: string;
    status: string;
    params: Record<string, unknown>;
  }

  const COUNT = { kind: 'count', tool: 'refund', action: 'issue', scope: 'run', limit: 5 } as const;
  const SUM = {
    kind: 'sum',
    tool: 'refund',
    scope: 'customer',
    customerPath: 'customerId',
    paramPath: 'amount',
    windowSeconds: 5,
    limit: 600,
  } as const;
  const AFTER = { kind: 'not_after', tool: 'order_lookup', action: 'lookup', scope: 'run', paramPath: 'orderId' } as const;
  const DRAFT = [
    {
      name: 'at most 3 refunds per run',
      position: 1,
      toolPattern: 'refund',
      actionPattern: 'issue',
      conditions: [],
      roles: [],
      history: [COUNT],
      risk: 'high',
      decision: 'block',
      enabled: true,
    },
    {
      name: 'at most 600 per customer in 5 s',
      position: 2,
      toolPattern: 'refund',
      actionPattern: '*',
      conditions: [],
      roles: [],
      history: [SUM],
      risk: 'high',
      decision: 'require_expert_approval',
      enabled: true,
    },
    {
      name: 'invoice after lookup',
      position: 3,
      toolPattern: 'invoice',
      actionPattern: 'create',
      conditions: [],
      roles: [],
      history: [AFTER],
      risk: 'high',
      decision: 'block',
      enabled: true,
    },
  ] as PolicyRuleInput[];

  /** What the draft decides for `call`, over the calls seeded strictly before it: the rules read by hand. */
  function bruteForce(call: Seeded, all: Seeded[]): string {
    const before = all.filter((c) => c.at < call.at);
    const counted = (c: Seeded) => c.tool === 'refund' && c.status !== 'blocked';
    if (call.tool === 'refund') {
      if (before.filter((c) => counted(c) && c.runId === call.runId).length + 1 > 5) return 'block';
      const window = before.filter((c) => counted(c) && c.params.customerId === call.params.customerId && c.at > call.at - 5000);
      const sum = window.reduce((total, c) => total + (c.params.amount as number), 0) + (call.params.amount as number);
      if (sum > 600) return 'require_expert_approval';
    }
    if (call.tool === 'invoice') {
      const looked = before.some(
        (c) => c.tool === 'order_lookup' && c.status === 'succeeded' && c.runId === call.runId && c.params.orderId === call.params.orderId,
      );
      if (!looked) return 'block';
    }
    return 'allow';
  }

  test('the changed decisions are exactly the brute force over the seeded history', async () => {
    const other = await newOrg(demo.app.em());
    const start = Date.parse('2026-09-01T00:00:00Z');
    const seeded: Seeded[] = [];
    const seed = async (
      spec: { tool: string; action: string; count: number; start: number; status?: string; runId?: string },
      input: (i: number) => Record<string, unknown>,
    ) => {
      const ids = await recordCalls(other, spec.count, {
        start: spec.start,
        toolName: spec.tool,
        action: spec.action,
        input,
        status: spec.status,
        runId: spec.runId,
      });
      const [{ run_id: runId }] = await demo.app.em().execute<{ run_id: string }[]>('select run_id from tool_calls where id = ?', [ids[0]]);
      ids.forEach((id, i) => {
        seeded.push({ id, runId, at: spec.start + i * 1000, tool: spec.tool, status: spec.status ?? 'succeeded', params: input(i) });
      });
      return runId;
    };
    const refunds = (i: number) => ({ customerId: `c-${i % 3}`, amount: ((i * 70) % 300) + 150 });
    // Three runs of refunds interleaved a third of a second apart; the third's were blocked (they never count).
    await seed({ tool: 'refund', action: 'issue', count: 9, start }, refunds);
    await seed({ tool: 'refund', action: 'issue', count: 7, start: start + 333 }, (i) => refunds(i + 1));
    await seed({ tool: 'refund', action: 'issue', count: 4, start: start + 666, status: 'blocked' }, (i) => refunds(i + 2));
    // Lookups (one failed) and invoices in one run; an invoice in another run; lookups before and after.
    const lookups = await seed({ tool: 'order_lookup', action: 'lookup', count: 3, start: start + 100 }, (i) => ({ orderId: `o-${i}` }));
    await seed({ tool: 'order_lookup', action: 'lookup', count: 1, start: start + 5100, status: 'failed', runId: lookups }, () => ({
      orderId: 'o-3',
    }));
    await seed({ tool: 'invoice', action: 'create', count: 6, start: start + 1200, runId: lookups }, (i) => ({ orderId: `o-${(i * 2) % 5}` }));
    await seed({ tool: 'invoice', action: 'create', count: 2, start: start + 250 }, (i) => ({ orderId: `o-${i}` }));

    const result = await simulatePolicy(demo.app.em(), other.org.id, {
      from: new Date(start),
      to: new Date(start + DAY),
      rules: DRAFT,
      first: 100,
      pageSize: 7,
    });
    const expected = seeded
      .map((c) => ({ id: c.id, outcome: bruteForce(c, seeded) }))
      .filter((c) => c.outcome !== 'allow')
      .sort((a, b) => a.id.localeCompare(b.id));
    const changed = result.examples.map((e) => ({ id: e.toolCallId, outcome: e.newOutcome })).sort((a, b) => a.id.localeCompare(b.id));
    expect(result.callsRead).toBe(seeded.length);
    expect(result.undecidableCount).toBe(0);
    expect(changed).toEqual(expected);
    expect(result.changedCount).toBe(expected.length);
    // Each kind of rule changed something, and not everything.
    for (const outcome of ['block', 'require_expert_approval']) expect(expected.some((c) => c.outcome === outcome)).toBe(true);
    expect(expected.length).toBeLessThan(seeded.length - 5);
  });

  test('a history condition over a redacted param of the call is undecidable', async () => {
    const other = await newOrg(demo.app.em());
    const start = Date.parse('2026-09-02T00:00:00Z');
    await recordCalls(other, 2, {
      start,
      toolName: 'refund',
      action: 'issue',
      input: (i) => ({ customerId: i === 0 ? 'c-1' : '[REDACTED]', amount: 700 }),
    });
    const result = await simulatePolicy(demo.app.em(), other.org.id, {
      from: new Date(start),
      to: new Date(start + DAY),
      rules: [DRAFT[1]],
      first: 10,
    });
    expect(result).toMatchObject({ changedCount: 1, undecidableCount: 1 });
  });
});
