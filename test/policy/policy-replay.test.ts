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
  options: { start: number; toolName?: string; action?: string; input: (i: number) => unknown; perInstant?: number; micros?: number },
): Promise<string[]> {
  const run = await newRun(demo.app.em(), org, { createdAt: new Date(options.start) });
  const ids = Array.from({ length: count }, () => randomUUID());
  const inputs = Array.from({ length: count }, (_, i) => options.input(i));
  const instants = [options.start, options.perInstant ?? 1, options.micros ?? 0];
  await demo.app.em().execute(
    `with c as (select * from unnest(?::uuid[], ?::uuid[]) with ordinality as c(id, decision_id, n)),
       d as (insert into policy_decisions (id, org_id, run_id, tool_name, action, outcome, risk, policy_version, caller_role, reason, created_at)
             select c.decision_id, ?, ?, ?, ?, 'allow', 'low', 1, 'agent', 'no rule matched; catalog default risk low',
                    to_timestamp(?::double precision / 1000) + ((c.n - 1) / ?::int) * interval '1 second' + ?::int * interval '1 microsecond' from c)
     insert into tool_calls (id, org_id, run_id, tool_name, action, correlation_id, status, input_redacted, policy_decision_id, risk_level, created_at, updated_at)
     select c.id, ?, ?, ?, ?, c.id::text, 'succeeded', (?::jsonb) -> (c.n::int - 1), c.decision_id, 'low',
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
  expect(paged).toEqual(whole);
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
