import { errorCode } from '../support/app';
import { useDemoApp } from '../support/demo-fixture';
import { newRun, newToolCall, type TestOrg } from '../support/factories';
import { EXECUTE_APPROVED_TOOL_CALL, RESOLVE_APPROVAL, START_AGENT_RUN } from '../support/documents';
import { createKey } from '../../src/orgs/org.service';
import { INITIALIZE, connectMcp, rawPost } from '../mcp/mcp-helpers';
import { approvals, closeSockets, connect, ledgerHead, runEvents, tokens, toolCalls } from '../realtime/realtime-helpers';

/**
 * Least privilege inside an org (issue 29, item 4): a run belongs to the key that opened
 * it. Only that key drives it — GraphQL and MCP — and an agent key reads only its own runs,
 * over every path that returns run data: lists, single reads, tool calls, subscriptions.
 * An admin hands a run over, in the ledger.
 */
const demo = useDemoApp({}, { sandboxes: true });
let other: { id: string; secret: string };
beforeAll(async () => {
  other = await createKey(demo.app.em(), demo.seed.orgId, 'agent');
});
afterEach(async () => closeSockets());

const LOOKUP = { orderId: '12345' };
const count = (table: string) => demo.gw.count(table);
const HAND_OVER = 'mutation($r: ID!, $k: ID!) { handOverRun(runId: $r, apiKeyId: $k) { id ownerKeyId } }';
const RUN_IDS = '{ runs(first: 100) { edges { node { id } } } }';
const CALL_RUN_IDS = '{ toolCalls(first: 100) { edges { node { id runId } } } }';

async function runIdsAs(key: string): Promise<string[]> {
  const data = await demo.gw.ok(RUN_IDS, {}, key);
  return data.runs.edges.map((e: { node: { id: string } }) => e.node.id);
}

describe('driving a run: only the key that opened it', () => {
  test('executeToolCall by another agent key of the org is RUN_NOT_YOURS, and nothing is recorded', async () => {
    const run = await demo.gw.startRun();
    const [calls, events] = [await count('tool_calls'), await count('ledger_events')];
    const res = await demo.gw.executeRaw(run.id, 'order_lookup', 'lookup', LOOKUP, { key: other.secret, toolUseId: 'toolu_not_mine' });
    expect(errorCode(res)).toBe('RUN_NOT_YOURS');
    expect(res.body.data).toBeNull();
    expect([await count('tool_calls'), await count('ledger_events')]).toEqual([calls, events]);
    // The owner drives it as before, and the refused key did not take its toolUseId.
    const mine = await demo.gw.executeRaw(run.id, 'order_lookup', 'lookup', LOOKUP, { toolUseId: 'toolu_not_mine' });
    expect(mine.body.data?.executeToolCall).toMatchObject({ status: 'succeeded', replayed: false });
  });

  test("executeApprovedToolCall of another key's run is RUN_NOT_YOURS, before it ran and as a replay after", async () => {
    const run = await demo.gw.startRun();
    const waiting = await demo.gw.execute(run.id, 'invoice', 'send', { customerId: '1', amount: 50 });
    await demo.gw.ok(RESOLVE_APPROVAL, { id: waiting.approvalRequestId!, decision: 'APPROVE' }, demo.seed.keys.expert);
    const approvedAs = (key: string) => demo.app.gql(EXECUTE_APPROVED_TOOL_CALL, { key, variables: { id: waiting.toolCallId } });
    expect(errorCode(await approvedAs(other.secret))).toBe('RUN_NOT_YOURS');
    expect((await demo.gw.call(waiting.toolCallId)).status).toBe('approved');
    expect((await approvedAs(demo.seed.keys.agent)).body.data?.executeApprovedToolCall.status).toBe('succeeded');
    // The stored (redacted) result is the run's too: not replayed to another key.
    const replay = await approvedAs(other.secret);
    expect(errorCode(replay)).toBe('RUN_NOT_YOURS');
    expect(replay.body.data).toBeNull();
  });

  test('/mcp/runs/<id> with another agent key is 403 RUN_NOT_YOURS in both eras; the owner connects', async () => {
    const run = await demo.gw.startRun();
    expect(await rawPost(demo.app, `runs/${run.id}`, INITIALIZE, other.secret)).toMatchObject({
      status: 403,
      body: { error: { data: { code: 'RUN_NOT_YOURS' } } },
    });
    await expect(connectMcp(demo.app, `runs/${run.id}`, other.secret, { era: 'modern' })).rejects.toThrow(/RUN_NOT_YOURS|403/);
    const owner = await connectMcp(demo.app, `runs/${run.id}`, demo.seed.keys.agent);
    try {
      expect((await owner.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await owner.close();
    }
  });

  test("postMessage, cancelRun and completeAgentRun of another key's run are RUN_NOT_YOURS; an admin may cancel it", async () => {
    const run = await demo.gw.startRun();
    const complete = 'mutation($id: ID!) { completeAgentRun(runId: $id) { status } }';
    const cancel = 'mutation($id: ID!) { cancelRun(runId: $id) { status } }';
    const post = 'mutation($id: ID!) { postMessage(runId: $id, text: "hi") { status } }';
    for (const query of [complete, cancel, post]) {
      expect(errorCode(await demo.app.gql(query, { key: other.secret, variables: { id: run.id } }))).toBe('RUN_NOT_YOURS');
    }
    expect((await demo.gw.run(run.id)).status).toBe('running');
    expect((await demo.gw.ok(cancel, { id: run.id })).cancelRun.status).toBe('cancelled');
  });
});

describe('reading runs: an agent key reads only its own', () => {
  test('lists, single reads and tool calls leave out the runs of other keys (NOT_FOUND, like a missing run)', async () => {
    const mine = await demo.gw.startRun({ key: other.secret });
    const theirs = await demo.gw.startRun();
    await demo.gw.executeRaw(mine.id, 'order_lookup', 'lookup', LOOKUP, { key: other.secret });
    const theirCall = await demo.gw.execute(theirs.id, 'order_lookup', 'lookup', LOOKUP);

    const visible = await runIdsAs(other.secret);
    expect(visible).toContain(mine.id);
    expect(visible).not.toContain(theirs.id);
    expect(await runIdsAs(demo.seed.keys.admin)).toEqual(expect.arrayContaining([mine.id, theirs.id]));

    const read = (query: string, variables: Record<string, unknown>) => demo.app.gql(query, { key: other.secret, variables });
    expect(errorCode(await read('query($id: ID!) { run(id: $id) { id } }', { id: theirs.id }))).toBe('NOT_FOUND');
    expect((await read('query($id: ID!) { run(id: $id) { id } }', { id: mine.id })).body.data?.run.id).toBe(mine.id);
    expect(errorCode(await read('query($id: ID!) { toolCall(id: $id) { id } }', { id: theirCall.toolCallId }))).toBe('NOT_FOUND');
    expect(errorCode(await read('query($r: ID!) { toolCalls(filter: { runId: $r }) { totalCount } }', { r: theirs.id }))).toBe('NOT_FOUND');
    const calls = (await demo.gw.ok(CALL_RUN_IDS, {}, other.secret)).toolCalls.edges.map((e: { node: { runId: string } }) => e.node.runId);
    expect(calls.length).toBeGreaterThan(0);
    expect(new Set(calls)).toEqual(new Set([mine.id]));
    const total = await demo.gw.ok('{ runs { totalCount } toolCalls { totalCount } }', {}, other.secret);
    expect(total).toEqual({ runs: { totalCount: visible.length }, toolCalls: { totalCount: calls.length } });
  });

  test("subscriptions: another key's runEvents and runTokens are NOT_FOUND; the org-wide tool-call feed carries only its own runs", async () => {
    const mine = await demo.gw.startRun({ key: other.secret });
    const theirs = await demo.gw.startRun();
    const socket = connect(demo.app.wsUrl, other.secret);
    for (const feed of [runEvents(socket.client, theirs.id, '0'), tokens(socket.client, theirs.id)]) {
      await feed.end('the subscription to be refused');
      expect(feed.errorCodes).toEqual(['NOT_FOUND']);
    }
    // The demo agent key subscribes the same operation first: the two keys must not share a group's filter.
    const from = await ledgerHead(demo.app, demo.seed.orgId);
    const ownerFeed = toolCalls(connect(demo.app.wsUrl, demo.seed.keys.agent).client, null, from);
    const feed = toolCalls(socket.client, null, from);
    await demo.gw.execute(theirs.id, 'order_lookup', 'lookup', LOOKUP);
    await demo.gw.executeRaw(mine.id, 'order_lookup', 'lookup', LOOKUP, { key: other.secret });
    await feed.until((f) => f.items.some((i) => i.status === 'succeeded'), 'its own call to succeed');
    await ownerFeed.until((f) => f.items.some((i) => i.status === 'succeeded'), "the owner's call to succeed");
    expect(new Set(feed.items.map((i) => i.toolCall.runId))).toEqual(new Set([mine.id]));
    expect(new Set(ownerFeed.items.map((i) => i.toolCall.runId))).toEqual(new Set([theirs.id]));
  });
});

describe('handOverRun', () => {
  test('an admin hands a run to another agent key: it drives and reads the run, the previous owner no longer; the ledger records it', async () => {
    const run = await demo.gw.startRun();
    const handed = await demo.gw.ok(HAND_OVER, { r: run.id, k: other.id });
    expect(handed.handOverRun).toEqual({ id: run.id, ownerKeyId: other.id });
    expect((await demo.gw.execute(run.id, 'order_lookup', 'lookup', LOOKUP).catch((e: Error) => e.message)).toString()).toMatch(/RUN_NOT_YOURS/);
    const res = await demo.gw.executeRaw(run.id, 'order_lookup', 'lookup', LOOKUP, { key: other.secret });
    expect(res.body.data?.executeToolCall.status).toBe('succeeded');
    expect(await runIdsAs(other.secret)).toContain(run.id);
    expect(await runIdsAs(demo.seed.keys.agent)).not.toContain(run.id);

    const events = await demo.app
      .em()
      .execute<{ type: string; actor_key_id: string; metadata: Record<string, unknown> }[]>(
        "select type, actor_key_id, metadata from ledger_events where run_id = ? and type = 'run.handed_over'",
        [run.id],
      );
    const admin = (await demo.gw.ok('{ viewer { apiKeyId } }')).viewer.apiKeyId;
    const opener = (await demo.gw.ok('{ viewer { apiKeyId } }', {}, demo.seed.keys.agent)).viewer.apiKeyId;
    expect(events).toEqual([{ type: 'run.handed_over', actor_key_id: admin, metadata: { fromKeyId: opener, toKeyId: other.id, toRole: 'agent' } }]);
    // Handing it to its owner again changes nothing.
    const before = await count('ledger_events');
    await demo.gw.ok(HAND_OVER, { r: run.id, k: other.id });
    expect(await count('ledger_events')).toBe(before);
  });

  test("a handover leaves the previous owner's open MCP session useless: its next tools/call is RUN_NOT_YOURS", async () => {
    const run = await demo.gw.startRun();
    const session = await connectMcp(demo.app, `runs/${run.id}`, demo.seed.keys.agent);
    try {
      const lookup = { name: 'order_lookup.lookup', arguments: LOOKUP };
      expect((await session.callTool(lookup)).isError).toBeFalsy();
      const third = await createKey(demo.app.em(), demo.seed.orgId, 'agent');
      await demo.gw.ok(HAND_OVER, { r: run.id, k: third.id });
      const calls = await count('tool_calls');
      await expect(session.callTool(lookup)).rejects.toThrow(/RUN_NOT_YOURS|another API key owns/i);
      expect(await count('tool_calls')).toBe(calls);
    } finally {
      await session.close();
    }
  });

  test('refusals change nothing: an unknown key, a revoked key, a role that does not drive the run; non-admins FORBIDDEN', async () => {
    const run = await demo.gw.startRun();
    const revoked = await createKey(demo.app.em(), demo.seed.orgId, 'agent');
    await demo.app.em().execute('update api_keys set revoked_at = now() where id = ?', [revoked.id]);
    const expert = await createKey(demo.app.em(), demo.seed.orgId, 'expert');
    const before = await count('ledger_events');
    const handTo = (k: string, key = demo.seed.keys.admin) => demo.app.gql(HAND_OVER, { key, variables: { r: run.id, k } });
    expect(errorCode(await handTo('00000000-0000-0000-0000-000000000000'))).toBe('NOT_FOUND');
    expect(errorCode(await handTo(revoked.id))).toBe('BAD_USER_INPUT');
    expect(errorCode(await handTo(expert.id))).toBe('BAD_USER_INPUT');
    expect(errorCode(await handTo(other.id, demo.seed.keys.agent))).toBe('FORBIDDEN');
    expect(await count('ledger_events')).toBe(before);
    expect((await demo.gw.ok('query($id: ID!) { run(id: $id) { ownerKeyId } }', { id: run.id })).run.ownerKeyId).not.toBe(other.id);
  });
});

describe('client and partner keys', () => {
  let owner: TestOrg;
  beforeAll(() => {
    owner = { org: { id: demo.seed.orgId }, specialist: { id: demo.seed.specialistId }, keys: demo.seed.keys } as unknown as TestOrg;
  });

  test('a client reads the runs it started and those holding a client approval; no other run', async () => {
    const started = await demo.gw.ok(START_AGENT_RUN, { input: { specialistId: demo.seed.specialistId, driver: 'EXTERNAL' } }, demo.seed.keys.client);
    const withClientApproval = await newRun(demo.app.em(), owner);
    await newToolCall(demo.app.em(), owner, withClientApproval, { status: 'waiting_approval', approval: { kind: 'client' } });
    const withExpertApproval = await newRun(demo.app.em(), owner);
    await newToolCall(demo.app.em(), owner, withExpertApproval, { status: 'waiting_approval', approval: { kind: 'expert' } });
    const agents = await demo.gw.startRun();

    const visible = await runIdsAs(demo.seed.keys.client);
    expect(visible).toEqual(expect.arrayContaining([started.startAgentRun.id, withClientApproval.id]));
    expect(visible).not.toContain(withExpertApproval.id);
    expect(visible).not.toContain(agents.id);
    const approvals = await demo.gw.ok('{ approvalRequests(first: 100) { edges { node { runId kind } } } }', {}, demo.seed.keys.client);
    const kinds = approvals.approvalRequests.edges.map((e: { node: { kind: string; runId: string } }) => e.node);
    expect(kinds).toContainEqual({ runId: withClientApproval.id, kind: 'client' });
    expect(kinds.map((k: { runId: string }) => k.runId)).not.toContain(withExpertApproval.id);
  });

  test("a client's approval queue, live, carries the approvals of the runs it reads: a client approval in an agent's run, not an expert one", async () => {
    const rule = await demo.gw.ok('mutation($i: PolicyRuleInput!) { upsertPolicyRule(input: $i) { id } }', {
      i: {
        name: 'big invoices need the client',
        position: 1,
        toolPattern: 'invoice',
        actionPattern: 'send',
        conditions: [{ path: 'amount', op: 'gt', value: 1000 }],
        risk: 'high',
        decision: 'require_client_approval',
      },
    });
    try {
      const from = await ledgerHead(demo.app, demo.seed.orgId);
      const clientFeed = approvals(connect(demo.app.wsUrl, demo.seed.keys.client).client, null, from);
      const adminFeed = approvals(connect(demo.app.wsUrl, demo.seed.keys.admin).client, null, from);
      const run = await demo.gw.startRun();
      const expertOne = await demo.gw.execute(run.id, 'invoice', 'send', { customerId: '1', amount: 50 });
      const clientOne = await demo.gw.execute(run.id, 'invoice', 'send', { customerId: '1', amount: 5000 });
      const ids = (feed: typeof clientFeed) => feed.items.map((i) => i.approvalRequest?.id);
      await adminFeed.until((f) => ids(f).includes(clientOne.approvalRequestId!), 'the admin to see both requests');
      expect(ids(adminFeed)).toEqual([expertOne.approvalRequestId, clientOne.approvalRequestId]);
      // Events arrive in ledger order: once the later one is there, the earlier one was skipped, not late.
      await clientFeed.until((f) => ids(f).includes(clientOne.approvalRequestId!), 'the client to see its request');
      expect(ids(clientFeed)).toEqual([clientOne.approvalRequestId]);
    } finally {
      await demo.gw.ok('mutation($id: ID!) { deletePolicyRule(id: $id) }', { id: rule.upsertPolicyRule.id });
    }
  });

  test('a partner reads every run and its tool calls, never the conversation: messages, reply and runTokens are FORBIDDEN', async () => {
    const run = await demo.gw.startRun();
    await demo.gw.execute(run.id, 'order_lookup', 'lookup', LOOKUP);
    const key = demo.seed.keys.partner;
    // Partners send persisted operations only (the test app lifts that): here the fields are refused by role.
    expect(await runIdsAs(key)).toContain(run.id);
    const calls = await demo.gw.ok(
      'query($r: ID!) { toolCalls(filter: { runId: $r }) { edges { node { status input output } } } }',
      { r: run.id },
      key,
    );
    expect(calls.toolCalls.edges.map((e: { node: { status: string } }) => e.node.status)).toEqual(['succeeded']);
    for (const field of ['messages { role }', 'reply']) {
      const res = await demo.app.gql(`query($id: ID!) { run(id: $id) { id ${field} } }`, { key, variables: { id: run.id } });
      expect(errorCode(res)).toBe('FORBIDDEN');
      expect(res.body.errors![0].path).toEqual(['run', field.split(' ')[0]]);
    }
    const socket = connect(demo.app.wsUrl, key);
    const feed = tokens(socket.client, run.id);
    await feed.end('the subscription to be refused');
    expect(feed.errorCodes).toEqual(['FORBIDDEN']);
  });

  test("a specialist's system prompt is read by admin and expert keys only", async () => {
    const query = '{ viewer { org { specialists { id systemPrompt } } } }';
    for (const role of ['admin', 'expert'] as const) {
      const res = await demo.app.gql(query, { key: demo.seed.keys[role] });
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data?.viewer.org.specialists[0].systemPrompt).toEqual(expect.any(String));
    }
    for (const role of ['client', 'agent'] as const) {
      const res = await demo.app.gql(query, { key: demo.seed.keys[role] });
      expect(errorCode(res)).toBe('FORBIDDEN');
      expect(res.body.errors![0].path).toEqual(['viewer', 'org', 'specialists', 0, 'systemPrompt']);
      expect(res.body.data?.viewer.org.specialists[0].systemPrompt).toBeNull();
    }
  });
});
