import { errorCode, startTestApp, type TestApp } from '../support/app';
import { newOrg, newRun, newToolCall, type TestOrg } from '../support/factories';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { graphql } from '../gql';
import type { PageFragment } from '../gql/graphql';
import { CREATE_SPECIALIST, SET_TOOL_PERMISSION } from '../support/documents';
import { ToolCatalogDocument } from '../../gql/graphql';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.close());

const T0 = Date.parse('2024-03-01T00:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const NIL = '00000000-0000-4000-8000-000000000000';
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

graphql(`
  fragment Page on PageInfo {
    hasNextPage hasPreviousPage startCursor endCursor
  }
`);
const RUNS = graphql(`
  query ReadRuns($first: Int, $after: String, $filter: RunFilter) {
    runs(first: $first, after: $after, filter: $filter) {
      totalCount
      pageInfo { ...Page }
      edges { cursor node { id status specialistId createdAt } }
    }
  }
`);
const TOOL_CALLS = graphql(`
  query ReadToolCalls($first: Int, $after: String, $filter: ToolCallFilter) {
    toolCalls(first: $first, after: $after, filter: $filter) {
      totalCount
      pageInfo { ...Page }
      edges { cursor node { id runId toolName status } }
    }
  }
`);
const APPROVALS = graphql(`
  query ReadApprovals($first: Int, $after: String, $filter: ApprovalRequestFilter) {
    approvalRequests(first: $first, after: $after, filter: $filter) {
      totalCount
      pageInfo { ...Page }
      edges { cursor node { id kind status runId toolCall { id } } }
    }
  }
`);
const LEDGER = graphql(`
  query ReadLedger($first: Int, $after: String, $filter: LedgerEventFilter) {
    ledgerEvents(first: $first, after: $after, filter: $filter) {
      totalCount
      pageInfo { ...Page }
      edges { cursor node { id sequence type runId resourceId prevHash hash } }
    }
  }
`);
const DECISIONS = graphql(`
  query ReadDecisions($first: Int, $after: String, $filter: PolicyDecisionFilter) {
    policyDecisions(first: $first, after: $after, filter: $filter) {
      totalCount
      pageInfo { ...Page }
      edges { cursor node { id runId outcome } }
    }
  }
`);

const RUN_RELATIONS = graphql(`
  query ReadRunRelations($id: ID!) {
    run(id: $id) {
      id status
      specialist { id name }
      toolCalls { id toolName action status }
      ledgerEvents { type runId resourceId }
    }
  }
`);
const TOOL_CALL_RELATIONS = graphql(`
  query ReadToolCallRelations($id: ID!) {
    toolCall(id: $id) {
      id
      policyDecision { id outcome }
      approvalRequest { id kind status toolCallId }
      ledgerEvents { type resourceId }
      run { id }
    }
  }
`);

/** The one connection a list query answers (each selects a single field). */
type PageOf<R> = R[keyof R];

async function list<R, V>(document: TypedDocumentNode<R, V>, key: string, variables?: V): Promise<PageOf<R>> {
  const res = await app.gql(document, { key, variables });
  expect(res.body.errors).toBeUndefined();
  const [page] = Object.values(res.body.data!) as PageOf<R>[];
  return page;
}

const ids = (page: { edges: { node: { id: string } }[] }) => page.edges.map((e) => e.node.id);

/** Follows endCursor until hasNextPage is false; every page, in order. */
async function walk<R extends Record<string, { pageInfo: PageFragment }>, V extends { first?: number | null; after?: string | null }>(
  document: TypedDocumentNode<R, V>,
  key: string,
  first: number,
  variables?: Omit<V, 'first' | 'after'>,
): Promise<PageOf<R>[]> {
  const pages: PageOf<R>[] = [];
  let after: string | null = null;
  do {
    pages.push(await list(document, key, { ...variables, first, after } as V));
    after = pages[pages.length - 1].pageInfo.endCursor;
    if (pages.length > 50) throw new Error('pagination does not end');
  } while (pages[pages.length - 1].pageInfo.hasNextPage);
  return pages;
}

/** Newest first, ties broken by id descending (the API's order). */
function newestFirst(rows: { id: string; createdAt: Date }[]): string[] {
  return [...rows].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).map((r) => r.id);
}

describe('runs: cursor pagination', () => {
  let owner: TestOrg;
  let expected: string[];
  beforeAll(async () => {
    owner = await newOrg(app.em());
    // Three runs share one createdAt, so the order among them rests on the id.
    const times = [0, 1, 2, 2, 2, 3, 4];
    const runs = [];
    for (const m of times) runs.push(await newRun(app.em(), owner, { createdAt: at(m) }));
    expected = newestFirst(runs);
  });

  test('pages of 3 cover all 7 runs, newest first, without duplicates or gaps', async () => {
    const pages = await walk(RUNS, owner.keys.admin, 3);
    expect(pages.map((p) => p.edges.length)).toEqual([3, 3, 1]);
    expect(pages.map((p) => p.pageInfo.hasNextPage)).toEqual([true, true, false]);
    expect(pages.map((p) => p.pageInfo.hasPreviousPage)).toEqual([false, true, true]);
    expect(pages.map((p) => p.totalCount)).toEqual([7, 7, 7]);
    expect(pages.flatMap(ids)).toEqual(expected);
    for (const page of pages) {
      expect(page.pageInfo.startCursor).toBe(page.edges[0].cursor);
      expect(page.pageInfo.endCursor).toBe(page.edges[page.edges.length - 1].cursor);
    }
    const createdAt = pages.flatMap((p) => p.edges.map((e) => Date.parse(e.node.createdAt)));
    expect(createdAt).toEqual([...createdAt].sort((a, b) => b - a));
  });

  test('a page boundary inside the tie still neither skips nor repeats', async () => {
    for (const first of [1, 2, 4]) expect((await walk(RUNS, owner.keys.admin, first)).flatMap(ids)).toEqual(expected);
  });

  test('default page size, first: 100, and first: 0 (no edges, totalCount still right)', async () => {
    expect(ids(await list(RUNS, owner.keys.admin))).toEqual(expected);
    const all = await list(RUNS, owner.keys.admin, { first: 100 });
    expect([ids(all), all.pageInfo.hasNextPage, all.pageInfo.hasPreviousPage]).toEqual([expected, false, false]);
    const none = await list(RUNS, owner.keys.admin, { first: 0 });
    expect([none.edges, none.totalCount]).toEqual([[], 7]);
    expect(none.pageInfo).toMatchObject({ startCursor: null, endCursor: null, hasPreviousPage: false });
  });

  test.each([101, -1, 1000])('first: %d is BAD_USER_INPUT', async (first) => {
    const res = await app.gql(RUNS, { key: owner.keys.admin, variables: { first } });
    expect(errorCode(res)).toBe('BAD_USER_INPUT');
    expect(res.body.data).toBeNull();
  });

  test.each<[string, string, TypedDocumentNode<unknown, { first?: number | null; after?: string | null }>, string]>([
    ['runs', 'garbage', RUNS, 'garbage'],
    ['runs', 'not base64 JSON', RUNS, '!!!***'],
    ['runs', 'a JSON object', RUNS, b64({ id: 'x' })],
    ['runs', 'a ledger cursor', RUNS, b64(['42'])],
    ['runs', 'a bad date', RUNS, b64(['yesterday', NIL])],
    ['runs', 'an id that is not a uuid', RUNS, b64(['2024-03-01T00:00:00.000Z', 'abc'])],
    // Shaped like a cursor ([0-9a-f-]{36}) but PostgreSQL refuses it as a uuid: must not be an internal error.
    ['runs', '36 dashes as the id', RUNS, b64(['2024-03-01T00:00:00.000Z', '-'.repeat(36)])],
    ['runs', '36 hex digits as the id', RUNS, b64(['2024-03-01T00:00:00.000Z', 'a'.repeat(36)])],
    // Dates JavaScript accepts but PostgreSQL refuses as ISO strings: any year outside 0001–9999.
    ['runs', 'a date out of timestamptz range', RUNS, b64(['-271821-04-20T00:00:00.000Z', NIL])],
    ['runs', 'year 0000', RUNS, b64(['0000-12-31T00:00:00.000Z', NIL])],
    ['runs', 'year -1000', RUNS, b64(['-001000-01-01T00:00:00.000Z', NIL])],
    ['runs', 'year 10000', RUNS, b64(['+010000-01-01T00:00:00.000Z', NIL])],
    ['ledgerEvents', 'garbage', LEDGER, 'garbage'],
    ['ledgerEvents', 'a runs cursor', LEDGER, b64(['2024-03-01T00:00:00.000Z', NIL])],
    ['ledgerEvents', 'a negative sequence', LEDGER, b64(['-1'])],
    // 19 digits pass the cursor check but exceed bigint: must not be an internal error.
    ['ledgerEvents', 'a sequence beyond bigint', LEDGER, b64(['9999999999999999999'])],
  ])('%s after: %s is BAD_USER_INPUT', async (_field, _name, query, after) => {
    const res = await app.gql(query, { key: owner.keys.admin, variables: { first: 3, after } });
    expect(errorCode(res)).toBe('BAD_USER_INPUT');
  });

  test('hasPreviousPage is true whenever after is given, and totalCount ignores the cursor', async () => {
    const first = await list(RUNS, owner.keys.admin, { first: 6 });
    const last = await list(RUNS, owner.keys.admin, { first: 6, after: first.pageInfo.endCursor });
    expect(ids(last)).toEqual(expected.slice(6));
    expect(last.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
    expect(last.totalCount).toBe(7);
    const beyond = await list(RUNS, owner.keys.admin, { first: 6, after: last.pageInfo.endCursor });
    expect(beyond.edges).toEqual([]);
    expect(beyond.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false, endCursor: null });
  });
});

describe('runs: filters', () => {
  let owner: TestOrg;
  let spec2: string;
  const r: Record<string, string> = {};
  beforeAll(async () => {
    owner = await newOrg(app.em());
    const res = await app.gql(CREATE_SPECIALIST, { key: owner.keys.admin, variables: { input: { name: 'Billing' } } });
    spec2 = res.body.data!.createSpecialist.id;
    const spec1 = owner.specialist.id;
    r.a = (await newRun(app.em(), owner, { status: 'completed', createdAt: at(0) })).id;
    r.b = (await newRun(app.em(), owner, { status: 'failed', createdAt: at(60) })).id;
    r.c = (await newRun(app.em(), owner, { status: 'completed', createdAt: at(120), specialistId: spec2 })).id;
    r.d = (await newRun(app.em(), owner, { status: 'running', createdAt: at(180), specialistId: spec2 })).id;
    expect(spec1).not.toBe(spec2);
  });

  const runs = (filter: Record<string, unknown>) => list(RUNS, owner.keys.admin, { filter });

  test('by status', async () => {
    const page = await runs({ status: 'completed' });
    expect(ids(page)).toEqual([r.c, r.a]);
    expect(page.totalCount).toBe(2);
    expect(ids(await runs({ status: 'queued' }))).toEqual([]);
  });

  test('by specialistId', async () => {
    const page = await runs({ specialistId: spec2 });
    expect(ids(page)).toEqual([r.d, r.c]);
    expect(page.edges.every((e) => e.node.specialistId === spec2)).toBe(true);
    expect(ids(await runs({ specialistId: owner.specialist.id }))).toEqual([r.b, r.a]);
  });

  test('by created range: from inclusive, to exclusive', async () => {
    const page = await runs({ created: { from: at(60).toISOString(), to: at(180).toISOString() } });
    expect(ids(page)).toEqual([r.c, r.b]);
    expect(page.totalCount).toBe(2);
    expect(ids(await runs({ created: { from: at(120).toISOString() } }))).toEqual([r.d, r.c]);
    expect(ids(await runs({ created: { to: at(60).toISOString() } }))).toEqual([r.a]);
    expect(ids(await runs({ created: {} }))).toEqual([r.d, r.c, r.b, r.a]);
  });

  test('a created bound PostgreSQL cannot hold (year 0000) is BAD_USER_INPUT, not an internal error', async () => {
    for (const created of [{ from: '0000-01-01T00:00:00Z' }, { to: '0000-06-01T00:00:00Z' }]) {
      const res = await app.gql(RUNS, { key: owner.keys.admin, variables: { filter: { created } } });
      expect([created, errorCode(res)]).toEqual([created, 'BAD_USER_INPUT']);
    }
  });

  test('filters combine, and paginate with the same totalCount', async () => {
    expect(ids(await runs({ status: 'completed', specialistId: spec2 }))).toEqual([r.c]);
    const first = await list(RUNS, owner.keys.admin, { first: 1, filter: { specialistId: spec2 } });
    const second = await list(RUNS, owner.keys.admin, { first: 1, after: first.pageInfo.endCursor, filter: { specialistId: spec2 } });
    expect([...ids(first), ...ids(second)]).toEqual([r.d, r.c]);
    expect([first.totalCount, second.totalCount]).toEqual([2, 2]);
    expect(second.pageInfo.hasNextPage).toBe(false);
  });
});

describe('one run and its relations', () => {
  let owner: TestOrg;
  let runId: string;
  let otherRunId: string;
  let calls: Awaited<ReturnType<typeof newToolCall>>[];
  beforeAll(async () => {
    owner = await newOrg(app.em());
    const run = await newRun(app.em(), owner, { status: 'waiting_approval', createdAt: at(0) });
    runId = run.id;
    calls = [
      await newToolCall(app.em(), owner, run, { createdAt: at(1) }),
      await newToolCall(app.em(), owner, run, {
        createdAt: at(2),
        toolName: 'invoice',
        action: 'send',
        status: 'waiting_approval',
        outcome: 'require_expert_approval',
        approval: { kind: 'expert' },
      }),
      await newToolCall(app.em(), owner, run, {
        createdAt: at(3),
        toolName: 'kyc_check',
        action: 'get_status',
        status: 'blocked',
        outcome: 'require_client_approval',
        approval: { kind: 'client', status: 'rejected' },
      }),
    ];
    const other = await newRun(app.em(), owner, { createdAt: at(10) });
    otherRunId = other.id;
    await newToolCall(app.em(), owner, other, { createdAt: at(11), outcome: 'observe' });
  });

  test('run(id) with toolCalls in order, specialist and ledgerEvents', async () => {
    const res = await app.gql(RUN_RELATIONS, { key: owner.keys.admin, variables: { id: runId } });
    expect(res.body.errors).toBeUndefined();
    const run = res.body.data!.run;
    expect(run).toMatchObject({ id: runId, status: 'waiting_approval', specialist: { id: owner.specialist.id, name: 'Support' } });
    expect(run.toolCalls.map((c) => c.id)).toEqual(calls.map((c) => c.call.id));
    expect(run.toolCalls[1]).toEqual({ id: calls[1].call.id, toolName: 'invoice', action: 'send', status: 'waiting_approval' });
    expect(run.ledgerEvents).toEqual([
      { type: 'run.created', runId, resourceId: runId },
      ...calls.map((c) => ({ type: 'tool_call.requested', runId, resourceId: c.call.id })),
    ]);
  });

  test('toolCall(id) with policyDecision, approvalRequest, ledgerEvents and run', async () => {
    const withApproval = await app.gql(TOOL_CALL_RELATIONS, { key: owner.keys.admin, variables: { id: calls[1].call.id } });
    expect(withApproval.body).toEqual({
      data: {
        toolCall: {
          id: calls[1].call.id,
          policyDecision: { id: calls[1].decision.id, outcome: 'require_expert_approval' },
          approvalRequest: { id: calls[1].approval!.id, kind: 'expert', status: 'pending', toolCallId: calls[1].call.id },
          ledgerEvents: [{ type: 'tool_call.requested', resourceId: calls[1].call.id }],
          run: { id: runId },
        },
      },
    });
    const plain = await app.gql(TOOL_CALL_RELATIONS, { key: owner.keys.admin, variables: { id: calls[0].call.id } });
    expect(plain.body.data!.toolCall).toMatchObject({ approvalRequest: null, policyDecision: { outcome: 'allow' } });
  });

  test('toolCalls(filter: runId, status, toolName)', async () => {
    const key = owner.keys.admin;
    const byRun = await list(TOOL_CALLS, key, { filter: { runId } });
    expect(ids(byRun)).toEqual(calls.map((c) => c.call.id).reverse());
    expect(byRun.totalCount).toBe(3);
    expect((await list(TOOL_CALLS, key)).totalCount).toBe(4);
    expect(ids(await list(TOOL_CALLS, key, { filter: { status: 'blocked' } }))).toEqual([calls[2].call.id]);
    expect(ids(await list(TOOL_CALLS, key, { filter: { toolName: 'order_lookup' } })).length).toBe(2);
    expect(ids(await list(TOOL_CALLS, key, { filter: { toolName: 'order_lookup', runId } }))).toEqual([calls[0].call.id]);
    expect((await list(TOOL_CALLS, key, { filter: { toolName: 'nope' } })).totalCount).toBe(0);
  });

  test('approvalRequests(filter: status, kind, runId) and approval.toolCall', async () => {
    const key = owner.keys.admin;
    const all = await list(APPROVALS, key);
    expect(all.totalCount).toBe(2);
    expect(all.edges.map((e) => e.node.toolCall.id).sort()).toEqual([calls[1].call.id, calls[2].call.id].sort());
    const pending = await list(APPROVALS, key, { filter: { status: 'pending' } });
    expect(pending.edges.map((e) => e.node)).toEqual([
      { id: calls[1].approval!.id, kind: 'expert', status: 'pending', runId, toolCall: { id: calls[1].call.id } },
    ]);
    expect(ids(await list(APPROVALS, key, { filter: { kind: 'client' } }))).toEqual([calls[2].approval!.id]);
    expect(ids(await list(APPROVALS, key, { filter: { kind: 'client', status: 'pending' } }))).toEqual([]);
    expect((await list(APPROVALS, key, { filter: { runId } })).totalCount).toBe(2);
    expect((await list(APPROVALS, key, { filter: { runId: otherRunId } })).totalCount).toBe(0);
  });

  test('policyDecisions(filter: runId, outcome)', async () => {
    const key = owner.keys.admin;
    expect((await list(DECISIONS, key)).totalCount).toBe(4);
    expect(ids(await list(DECISIONS, key, { filter: { runId } })).sort()).toEqual(calls.map((c) => c.decision.id).sort());
    expect(ids(await list(DECISIONS, key, { filter: { outcome: 'observe' } })).length).toBe(1);
    expect((await list(DECISIONS, key, { filter: { outcome: 'observe', runId } })).totalCount).toBe(0);
    expect(ids(await list(DECISIONS, key, { filter: { outcome: 'require_client_approval', runId } }))).toEqual([calls[2].decision.id]);
  });

  test('ledgerEvents(filter: runId, type, resourceId) in ascending sequence order', async () => {
    const key = owner.keys.admin;
    const byRun = await list(LEDGER, key, { filter: { runId } });
    expect(byRun.edges.map((e) => [e.node.type, e.node.resourceId])).toEqual([
      ['run.created', runId],
      ...calls.map((c) => ['tool_call.requested', c.call.id]),
    ]);
    const sequences = byRun.edges.map((e) => BigInt(e.node.sequence));
    expect(sequences).toEqual([...sequences].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(new Set(sequences).size).toBe(sequences.length);
    const created = await list(LEDGER, key, { filter: { type: 'run.created' } });
    expect(created.edges.map((e) => e.node.runId)).toEqual([runId, otherRunId]);
    const byResource = await list(LEDGER, key, { filter: { resourceId: calls[2].call.id } });
    expect(byResource.edges.map((e) => e.node.type)).toEqual(['tool_call.requested']);
    expect((await list(LEDGER, key, { filter: { type: 'tool_call.requested', runId: otherRunId } })).totalCount).toBe(1);
  });

  test('ledgerEvents(filter: created): from inclusive, to exclusive; combines with the others; a bound PostgreSQL cannot hold is BAD_USER_INPUT', async () => {
    const key = owner.keys.admin;
    // Every event of this org was appended in beforeAll, before this instant.
    const now = new Date().toISOString();
    const all = await list(LEDGER, key, {});
    expect((await list(LEDGER, key, { filter: { created: { to: now } } })).totalCount).toBe(all.totalCount);
    expect((await list(LEDGER, key, { filter: { created: { from: now } } })).totalCount).toBe(0);
    const byRun = await list(LEDGER, key, { filter: { runId, created: { from: '2000-01-01T00:00:00Z', to: now } } });
    expect(byRun.edges.map((e) => e.node.type)).toEqual(['run.created', ...calls.map(() => 'tool_call.requested')]);
    const res = await app.gql(LEDGER, { key, variables: { filter: { created: { from: '0000-01-01T00:00:00Z' } } } });
    expect(errorCode(res)).toBe('BAD_USER_INPUT');
  });

  test('the whole ledger pages with after, and each prevHash is the previous hash (the chain)', async () => {
    const pages = await walk(LEDGER, owner.keys.expert, 4);
    expect(pages.map((p) => p.pageInfo.hasPreviousPage)).toEqual(pages.map((_, i) => i > 0));
    const events = pages.flatMap((p) => p.edges.map((e) => e.node));
    // newOrg: org.created, 5 api_key.created, specialist.created; then 2 runs and 4 tool calls.
    expect(events.length).toBe(7 + 2 + 4);
    expect(pages.map((p) => p.totalCount)).toEqual(pages.map(() => events.length));
    expect(pages.length).toBe(Math.ceil(events.length / 4));
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    expect(events[0]).toMatchObject({ type: 'org.created', prevHash: null });
    // The org's own numbering: 1, 2, 3, … without gaps.
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => String(i + 1)));
    for (let i = 1; i < events.length; i += 1) expect(events[i].prevHash).toBe(events[i - 1].hash);
  });
});

describe('toolCatalog', () => {
  const catalog = async (key: string) => {
    const res = await app.gql(ToolCatalogDocument, { key });
    expect(res.body.errors).toBeUndefined();
    return res.body.data!.toolCatalog;
  };

  test('lists the catalog entries, disabled for a new org, enabled after setToolPermission', async () => {
    const owner = await newOrg(app.em());
    const bystander = await newOrg(app.em());
    const names = [
      'order_lookup.lookup',
      'shopify_query.get_product',
      'amazon_query.get_order',
      'amazon_query.get_catalog_item',
      'kyc_check.get_status',
      'account_balance.lookup',
      'invoice.send',
    ];
    const before = await catalog(owner.keys.agent);
    expect(before.map((e) => e.name).sort()).toEqual([...names].sort());
    expect(before.every((e) => !e.enabled)).toBe(true);

    const set = await app.gql(SET_TOOL_PERMISSION, { key: owner.keys.admin, variables: { tool: 'invoice', action: 'send', enabled: true } });
    expect(set.body).toEqual({ data: { setToolPermission: { toolName: 'invoice', action: 'send', enabled: true } } });
    const after = await catalog(owner.keys.client);
    expect(after.filter((e) => e.enabled).map((e) => e.name)).toEqual(['invoice.send']);
    expect((await catalog(bystander.keys.admin)).every((e) => !e.enabled)).toBe(true);
  });
});
