import { errorCode, startTestApp, type GraphQLResponse, type TestApp } from '../support/app';
import { newOrg, newRun, newToolCall, type TestOrg } from '../support/factories';
import { AgentRun } from '../../src/runs/agent-run.entity';
import { ToolCall } from '../../src/gateway/tool-call.entity';
import { ApprovalRequest } from '../../src/approvals/approval-request.entity';
import { PolicyDecision } from '../../src/policy/policy-decision.entity';
import { LedgerEvent } from '../../src/ledger/ledger-event.entity';
import { ToolSpecialistBinding } from '../../src/catalog/tool-specialist-binding.entity';
import { Specialist } from '../../src/orgs/specialist.entity';
import type { EntityClass } from '@mikro-orm/core';
import { graphql } from '../gql';
import { LedgerEventsDocument } from '../../gql/graphql';

/**
 * Tenant isolation: with org A's keys, any id of org B answers NOT_FOUND, exactly like an
 * id that does not exist, and no list ever shows B's rows.
 */
let app: TestApp;
let a: TestOrg;
let b: TestOrg;
/** Every id of org B's data. */
const bIds: Record<string, string> = {};
const aIds = { runs: [] as string[], calls: [] as string[], decisions: [] as string[], approvals: [] as string[] };

async function seed(owner: TestOrg, runs: number, minute: number) {
  const made = { runs: [] as string[], calls: [] as string[], decisions: [] as string[], approvals: [] as string[] };
  for (let i = 0; i < runs; i += 1) {
    const run = await newRun(app.em(), owner, { createdAt: new Date(Date.UTC(2024, 4, 1, 0, minute + i)) });
    const { call, decision, approval } = await newToolCall(app.em(), owner, run, {
      status: 'waiting_approval',
      outcome: 'require_expert_approval',
      approval: { kind: 'expert' },
    });
    made.runs.push(run.id);
    made.calls.push(call.id);
    made.decisions.push(decision.id);
    made.approvals.push(approval!.id);
  }
  return made;
}

beforeAll(async () => {
  app = await startTestApp();
  a = await newOrg(app.em(), 'Org A');
  b = await newOrg(app.em(), 'Org B');
  Object.assign(aIds, await seed(a, 2, 0));
  const made = await seed(b, 3, 30);
  Object.assign(bIds, {
    run: made.runs[0],
    call: made.calls[0],
    decision: made.decisions[0],
    approval: made.approvals[0],
    specialist: b.specialist.id,
    org: b.org.id,
  });
});
afterAll(async () => app?.close());

/** A's response carries none of B's ids anywhere. */
function expectNoTraceOfB(res: GraphQLResponse<unknown>) {
  const text = JSON.stringify(res.body);
  for (const id of Object.values(bIds)) expect(text).not.toContain(id);
}

const RUN = graphql(`
  query CrossOrgRun($id: ID!) {
    run(id: $id) { id status }
  }
`);
const TOOL_CALL = graphql(`
  query CrossOrgToolCall($id: ID!) {
    toolCall(id: $id) { id status }
  }
`);
const RUNS = graphql(`
  query CrossOrgRuns($filter: RunFilter, $first: Int) {
    runs(filter: $filter, first: $first) { totalCount edges { node { id } } }
  }
`);
const TOOL_CALLS = graphql(`
  query CrossOrgToolCalls($filter: ToolCallFilter, $first: Int) {
    toolCalls(filter: $filter, first: $first) { totalCount edges { node { id } } }
  }
`);
const APPROVALS = graphql(`
  query CrossOrgApprovals($filter: ApprovalRequestFilter, $first: Int) {
    approvalRequests(filter: $filter, first: $first) { totalCount edges { node { id } } }
  }
`);
const DECISIONS = graphql(`
  query CrossOrgDecisions($filter: PolicyDecisionFilter, $first: Int) {
    policyDecisions(filter: $filter, first: $first) { totalCount edges { node { id } } }
  }
`);
const LEDGER = graphql(`
  query CrossOrgLedger($filter: LedgerEventFilter, $first: Int, $after: String) {
    ledgerEvents(filter: $filter, first: $first, after: $after) { totalCount edges { node { id runId resourceId } } }
  }
`);

const RUN_RELATIONS = graphql(`
  query CrossOrgRunRelations($id: ID!) {
    run(id: $id) {
      id
      specialist { id }
      toolCalls {
        id
        run { id }
        policyDecision { id }
        approvalRequest { id toolCall { id } }
        ledgerEvents { id resourceId }
      }
      ledgerEvents { resourceId }
    }
  }
`);

type Answer = GraphQLResponse<Record<string, unknown>>;

/** Each id-taking field, as a request that puts an id into it. */
const ID_FIELDS: [string, (key: string, id: string) => Promise<Answer>][] = [
  ['run(id)', (key, id) => app.gql(RUN, { key, variables: { id } })],
  ['toolCall(id)', (key, id) => app.gql(TOOL_CALL, { key, variables: { id } })],
  ['runs(filter: specialistId)', (key, id) => app.gql(RUNS, { key, variables: { filter: { specialistId: id } } })],
  ['toolCalls(filter: runId)', (key, id) => app.gql(TOOL_CALLS, { key, variables: { filter: { runId: id } } })],
  ['approvalRequests(filter: runId)', (key, id) => app.gql(APPROVALS, { key, variables: { filter: { runId: id } } })],
  ['ledgerEvents(filter: runId)', (key, id) => app.gql(LEDGER, { key, variables: { filter: { runId: id } } })],
  ['ledgerEvents(filter: resourceId)', (key, id) => app.gql(LEDGER, { key, variables: { filter: { resourceId: id } } })],
  ['policyDecisions(filter: runId)', (key, id) => app.gql(DECISIONS, { key, variables: { filter: { runId: id } } })],
];

/** Which of B's ids each field is asked about. */
const B_ID_FOR: Record<string, string[]> = {
  'run(id)': ['run'],
  'toolCall(id)': ['call'],
  'runs(filter: specialistId)': ['specialist'],
  'toolCalls(filter: runId)': ['run'],
  'approvalRequests(filter: runId)': ['run'],
  'ledgerEvents(filter: runId)': ['run'],
  'ledgerEvents(filter: resourceId)': ['run', 'call', 'specialist', 'org', 'approval'],
  'policyDecisions(filter: runId)': ['run'],
};

describe.each(ID_FIELDS)('%s', (name, send) => {
  test("given one of B's ids, with A's admin key: NOT_FOUND and none of B's data", async () => {
    for (const which of B_ID_FOR[name]) {
      const res = await send(a.keys.admin, bIds[which]);
      expect([which, errorCode(res)]).toEqual([which, 'NOT_FOUND']);
      expect(res.body.data).toBeNull();
      expectNoTraceOfB(res);
    }
  });

  test("B's id answers exactly like an unknown uuid and like a malformed id", async () => {
    const foreign = await send(a.keys.admin, bIds[B_ID_FOR[name][0]]);
    const unknown = await send(a.keys.admin, '00000000-0000-4000-8000-000000000000');
    const malformed = await send(a.keys.admin, 'not-a-uuid');
    expect(errorCode(unknown)).toBe('NOT_FOUND');
    expect(errorCode(malformed)).toBe('NOT_FOUND');
    expect(foreign.body).toEqual(unknown.body);
    expect(foreign.status).toBe(unknown.status);
  });

  test("B's own key still reads it (the id is real)", async () => {
    const res = await send(b.keys.admin, bIds[B_ID_FOR[name][0]]);
    expect(res.body.errors).toBeUndefined();
  });
});

test("run(id) and toolCall(id) with B's ids are NOT_FOUND for each of A's roles", async () => {
  for (const role of ['admin', 'expert', 'client', 'partner', 'agent'] as const) {
    const run = await app.gql(RUN, { key: a.keys[role], variables: { id: bIds.run } });
    const call = await app.gql(TOOL_CALL, { key: a.keys[role], variables: { id: bIds.call } });
    expect([role, errorCode(run), errorCode(call)]).toEqual([role, 'NOT_FOUND', 'NOT_FOUND']);
  }
});

test("ledgerEvents(filter: resourceId) of B's ids stays NOT_FOUND combined with a type filter or a page size", async () => {
  for (const variables of [
    { filter: { resourceId: bIds.call, type: 'tool_call.requested' } },
    { filter: { resourceId: bIds.run }, first: 1 },
    { filter: { resourceId: bIds.run, runId: aIds.runs[0] } },
  ]) {
    const res = await app.gql(LEDGER, { key: a.keys.admin, variables });
    expect(errorCode(res)).toBe('NOT_FOUND');
    expectNoTraceOfB(res);
  }
});

test("ledgerEvents(filter: resourceId) of B's ids with first: 0 or an after cursor reveals nothing either", async () => {
  // These two shapes skip the NOT_FOUND check (see the report); they must still show no row and count 0.
  const own = await app.gql(LedgerEventsDocument, { key: a.keys.admin, variables: { first: 1 } });
  const after = own.body.data!.ledgerEvents.pageInfo.endCursor;
  for (const variables of [{ first: 0 }, { after }]) {
    const res = await app.gql(LEDGER, { key: a.keys.admin, variables: { ...variables, filter: { resourceId: bIds.run } } });
    if (res.body.errors) expect(errorCode(res)).toBe('NOT_FOUND');
    else expect(res.body.data!.ledgerEvents).toEqual({ totalCount: 0, edges: [] });
    expectNoTraceOfB(res);
  }
});

describe("lists without a filter show only A's rows", () => {
  const count = async (entity: EntityClass<{ orgId: string }>, orgId: string) => app.em().count(entity, { orgId });
  type Ids = { totalCount: number; edges: { node: { id: string } }[] };
  const firstHundred: Record<
    'runs' | 'toolCalls' | 'approvalRequests' | 'policyDecisions',
    (key: string) => Promise<GraphQLResponse<Record<string, Ids>>>
  > = {
    runs: (key) => app.gql(RUNS, { key, variables: { first: 100 } }),
    toolCalls: (key) => app.gql(TOOL_CALLS, { key, variables: { first: 100 } }),
    approvalRequests: (key) => app.gql(APPROVALS, { key, variables: { first: 100 } }),
    policyDecisions: (key) => app.gql(DECISIONS, { key, variables: { first: 100 } }),
  };

  test.each([
    ['runs', AgentRun, 'runs'],
    ['toolCalls', ToolCall, 'calls'],
    ['approvalRequests', ApprovalRequest, 'approvals'],
    ['policyDecisions', PolicyDecision, 'decisions'],
  ] as const)('%s', async (field, entity, kind) => {
    const res = await firstHundred[field](a.keys.admin);
    expect(res.body.errors).toBeUndefined();
    const connection = res.body.data![field];
    expect(connection.totalCount).toBe(await count(entity, a.org.id));
    expect(connection.totalCount).toBe(aIds[kind].length);
    expect(connection.edges.map((e) => e.node.id).sort()).toEqual([...aIds[kind]].sort());
    expectNoTraceOfB(res);
  });

  test('ledgerEvents', async () => {
    const res = await app.gql(LEDGER, { key: a.keys.admin, variables: { first: 100 } });
    expect(res.body.errors).toBeUndefined();
    const ledger = res.body.data!.ledgerEvents;
    const expected = await app.em().find(LedgerEvent, { orgId: a.org.id });
    expect(ledger.totalCount).toBe(expected.length);
    expect(ledger.edges.map((e) => e.node.id).sort()).toEqual(expected.map((e) => String(e.id)).sort());
    expectNoTraceOfB(res);
  });

  test("A's run(id) relations only reach A's rows", async () => {
    const res = await app.gql(RUN_RELATIONS, { key: a.keys.admin, variables: { id: aIds.runs[0] } });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.run).toMatchObject({
      id: aIds.runs[0],
      specialist: { id: a.specialist.id },
      toolCalls: [
        { id: aIds.calls[0], run: { id: aIds.runs[0] }, policyDecision: { id: aIds.decisions[0] }, approvalRequest: { id: aIds.approvals[0] } },
      ],
    });
    expectNoTraceOfB(res);
  });
});

describe("mutation bindToolToSpecialist with B's specialist", () => {
  const BIND = graphql(`
    mutation CrossOrgBind($specialistId: ID!) {
      bindToolToSpecialist(
  input: {specialistId: $specialistId, toolName: "order_lookup", action: "lookup"}
) {
        specialistId bound
      }
    }
  `);

  async function snapshot(orgId: string) {
    const em = app.em();
    const ledger = await em.find(LedgerEvent, { orgId }, { orderBy: { id: 'asc' } });
    return {
      bindings: await em.count(ToolSpecialistBinding, { orgId }),
      specialists: (await em.find(Specialist, { orgId }, { orderBy: { id: 'asc' } })).map((s) => [s.id, s.name]),
      ledger: ledger.map((e) => [String(e.id), e.type, e.hash]),
    };
  }

  test('answers NOT_FOUND and changes nothing in B (nor in A)', async () => {
    const beforeB = await snapshot(b.org.id);
    const beforeA = await snapshot(a.org.id);
    const res = await app.gql(BIND, { key: a.keys.admin, variables: { specialistId: bIds.specialist } });
    expect(errorCode(res)).toBe('NOT_FOUND');
    expect(res.body.data).toBeNull();
    expectNoTraceOfB(res);
    expect(await snapshot(b.org.id)).toEqual(beforeB);
    expect(await snapshot(a.org.id)).toEqual(beforeA);
  });

  test('a malformed specialist id is NOT_FOUND too', async () => {
    const res = await app.gql(BIND, { key: a.keys.admin, variables: { specialistId: 'not-a-uuid' } });
    expect(errorCode(res)).toBe('NOT_FOUND');
  });

  test("A's own specialist binds (the mutation itself works)", async () => {
    const res = await app.gql(BIND, { key: a.keys.admin, variables: { specialistId: a.specialist.id } });
    expect(res.body).toEqual({ data: { bindToolToSpecialist: { specialistId: a.specialist.id, bound: true } } });
    expect(await app.em().count(ToolSpecialistBinding, { orgId: b.org.id })).toBe(0);
  });
});
