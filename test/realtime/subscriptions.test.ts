import { useDemoApp } from '../support/demo-fixture';
import { COMPLETE_RUN, EXECUTE_APPROVED_TOOL_CALL, RESOLVE_APPROVAL, UPSERT_POLICY_RULE, jsonAs } from '../support/documents';
import { CLIENT_AMOUNT, CLIENT_APPROVAL_RULE, EXPERT_AMOUNT } from '../approvals/approval-flow';
import { QBO_DEMO_CUSTOMERS } from '../../src/vendors/nango/nango.sandbox-data';
import type { OrderLookupResult } from '../../src/vendors/shopify/order-lookup.action';
import { approvals, closeSockets, connect, increasing, ledgerHead, runEvents, toolCalls, type RunEventItem } from './realtime-helpers';

/**
 * runEvents, toolCallStatusChanged and approvalRequests over the real graphql-ws client,
 * for external runs driven through the gateway (demo org, vendor sandboxes, one node).
 */

const EXPERT_INVOICE = { customerId: QBO_DEMO_CUSTOMERS.amys, amount: EXPERT_AMOUNT };
const CLIENT_INVOICE = { customerId: QBO_DEMO_CUSTOMERS.amys, amount: CLIENT_AMOUNT };

const demo = useDemoApp({}, { sandboxes: true });
beforeAll(async () => {
  await demo.gw.ok(UPSERT_POLICY_RULE, { input: CLIENT_APPROVAL_RULE });
});
afterEach(async () => closeSockets());

const lookup = (runId: string) => demo.gw.execute(runId, 'order_lookup', 'lookup', { orderId: '12345' });

/** The run's ledger as stored: the reference the subscription is compared to. */
async function stored(runId: string): Promise<{ sequence: string; type: string }[]> {
  const rows = await demo.app
    .em()
    .execute<{ sequence: string; type: string }[]>('select sequence, type from ledger_events where run_id = ? order by sequence', [runId]);
  return rows.map((r) => ({ sequence: String(r.sequence), type: r.type }));
}

const shape = (items: RunEventItem[]) => items.map((e) => ({ sequence: e.sequence, type: e.type }));

describe('runEvents', () => {
  test('an external run: created, started, requested, succeeded, completed, in order with increasing sequences and the ledger content', async () => {
    const run = await demo.gw.startRun();
    const { client } = connect(demo.app.wsUrl, demo.seed.keys.expert);
    // From sequence 0: the replay covers whatever happened before the listener was live.
    const feed = runEvents(client, run.id, '0');
    await feed.count(2, 'run.created and run.started');

    const call = await lookup(run.id);
    expect(call.status).toBe('succeeded');
    await feed.count(4, 'the tool call events');
    await demo.gw.ok(COMPLETE_RUN, { id: run.id }, demo.seed.keys.agent);
    await feed.count(5, 'run.completed');

    expect(feed.items.map((e) => e.type)).toEqual(['run.created', 'run.started', 'tool_call.requested', 'tool_call.succeeded', 'run.completed']);
    expect(increasing(feed.items.map((e) => e.sequence))).toBe(true);
    expect(shape(feed.items)).toEqual(await stored(run.id));
    expect(feed.items.every((e) => e.runId === run.id)).toBe(true);
    const [created, , requested, succeeded] = feed.items;
    expect(created.resourceId).toBe(run.id);
    expect(requested).toMatchObject({ resourceId: call.toolCallId, metadata: { tool: 'order_lookup.lookup', decision: 'allow' } });
    expect(succeeded.resourceId).toBe(call.toolCallId);
    expect(Number.isNaN(Date.parse(succeeded.createdAt))).toBe(false);
    expect(feed.nextErrors).toEqual([]);
  });

  test("the ledger metadata is for roles that may read the audit ledger: the run's agent key gets the events with empty metadata", async () => {
    const run = await demo.gw.startRun();
    await lookup(run.id);
    const client = runEvents(connect(demo.app.wsUrl, demo.seed.keys.agent).client, run.id, '0');
    const admin = runEvents(connect(demo.app.wsUrl, demo.seed.keys.admin).client, run.id, '0');
    await client.count(4, "the agent key's events");
    await admin.count(4, "the admin key's events");
    expect(client.items.map((e) => [e.sequence, e.type])).toEqual(admin.items.map((e) => [e.sequence, e.type]));
    expect(client.items.every((e) => Object.keys(e.metadata).length === 0)).toBe(true);
    expect(admin.items[2].metadata).toMatchObject({ tool: 'order_lookup.lookup', decision: 'allow' });
  });

  test('afterSequence = a middle sequence: exactly the later events, then live ones, no duplicates', async () => {
    const run = await demo.gw.startRun();
    const first = await lookup(run.id);
    const second = await lookup(run.id);
    const before = await stored(run.id);
    expect(before.map((e) => e.type)).toEqual([
      'run.created',
      'run.started',
      'tool_call.requested',
      'tool_call.succeeded',
      'tool_call.requested',
      'tool_call.succeeded',
    ]);
    const middle = before[3].sequence; // the first call's tool_call.succeeded

    const { client } = connect(demo.app.wsUrl, demo.seed.keys.admin);
    const feed = runEvents(client, run.id, middle);
    await feed.count(2, 'the replay');
    expect(shape(feed.items)).toEqual(before.slice(4));
    expect(feed.items.map((e) => e.resourceId)).toEqual([second.toolCallId, second.toolCallId]);

    const third = await lookup(run.id);
    await demo.gw.ok(COMPLETE_RUN, { id: run.id }, demo.seed.keys.agent);
    await feed.count(5, 'the live events');
    const after = await stored(run.id);
    expect(shape(feed.items)).toEqual(after.slice(4));
    expect(feed.items.slice(2).map((e) => [e.type, e.resourceId])).toEqual([
      ['tool_call.requested', third.toolCallId],
      ['tool_call.succeeded', third.toolCallId],
      ['run.completed', run.id],
    ]);
    expect(new Set(feed.items.map((e) => e.sequence)).size).toBe(feed.items.length);
    expect(first.toolCallId).not.toBe(second.toolCallId);
  });

  test('a dashboard that reconnects with the last sequence it saw misses nothing and sees nothing twice', async () => {
    const run = await demo.gw.startRun();
    const one = connect(demo.app.wsUrl, demo.seed.keys.agent);
    const feed = runEvents(one.client, run.id, '0');
    await lookup(run.id);
    await feed.count(4, 'the first call');
    const last = feed.items[feed.items.length - 1].sequence;
    await one.client.dispose();
    await one.closed;

    // While nobody listens: two more calls and the completion.
    await lookup(run.id);
    await lookup(run.id);
    const two = connect(demo.app.wsUrl, demo.seed.keys.agent);
    const resumed = runEvents(two.client, run.id, last);
    await resumed.count(4, 'the missed events');
    await demo.gw.ok(COMPLETE_RUN, { id: run.id }, demo.seed.keys.agent);
    await resumed.count(5, 'the live completion');

    expect([...shape(feed.items), ...shape(resumed.items)]).toEqual(await stored(run.id));
  });

  test('afterSequence must be a decimal sequence number', async () => {
    const run = await demo.gw.startRun();
    const { client } = connect(demo.app.wsUrl, demo.seed.keys.agent);
    const feed = runEvents(client, run.id, 'abc');
    await feed.end();
    expect(feed.errorCodes).toEqual(['BAD_USER_INPUT']);
  });
});

describe('toolCallStatusChanged', () => {
  test('of one run: running → succeeded, blocked, waiting_approval → approved → succeeded, with redacted fields only', async () => {
    const run = await demo.gw.startRun();
    const other = await demo.gw.startRun();
    const { client } = connect(demo.app.wsUrl, demo.seed.keys.agent);
    const feed = toolCalls(client, run.id, await ledgerHead(demo.app, demo.seed.orgId));

    const ok = await lookup(run.id);
    await lookup(other.id); // another run of the org: not this subscription's
    const blocked = await demo.gw.execute(run.id, 'order_lookup', 'delete', { orderId: '12345' });
    expect(blocked.status).toBe('blocked');
    const invoice = await demo.gw.execute(run.id, 'invoice', 'send', EXPERT_INVOICE);
    expect(invoice.status).toBe('waiting_approval');
    await feed.count(4, 'the first four transitions');
    await demo.gw.ok(RESOLVE_APPROVAL, { id: invoice.approvalRequestId!, decision: 'APPROVE' }, demo.seed.keys.expert);
    await feed.count(5, 'the approval');
    expect((await demo.gw.ok(EXECUTE_APPROVED_TOOL_CALL, { id: invoice.toolCallId }, demo.seed.keys.agent)).executeApprovedToolCall.status).toBe(
      'succeeded',
    );
    await feed.count(6, 'the approved call succeeding');

    expect(feed.items.map((c) => [c.toolCall.id, c.status])).toEqual([
      [ok.toolCallId, 'running'],
      [ok.toolCallId, 'succeeded'],
      [blocked.toolCallId, 'blocked'],
      [invoice.toolCallId, 'waiting_approval'],
      [invoice.toolCallId, 'approved'],
      [invoice.toolCallId, 'succeeded'],
    ]);
    expect(increasing(feed.items.map((c) => c.sequence))).toBe(true);
    expect(feed.items.every((c) => c.toolCall.runId === run.id)).toBe(true);
    // The call as stored: redacted output (personal data masked), never the vendor's raw answer.
    const succeeded = feed.items[1].toolCall;
    expect(succeeded).toMatchObject({ toolName: 'order_lookup', action: 'lookup', status: 'succeeded', input: { orderId: '12345' } });
    expect(jsonAs<OrderLookupResult>(succeeded.output).customerEmail).toBe('[REDACTED]');
    expect(JSON.stringify(feed.items)).not.toContain('bob.norman@example.com');
    expect(feed.items[2].toolCall.errorCode).toBe('NOT_IN_MANIFEST');
  });

  test("without runId: every run of the caller's org, in ledger order", async () => {
    const { client } = connect(demo.app.wsUrl, demo.seed.keys.partner);
    const feed = toolCalls(client, null, await ledgerHead(demo.app, demo.seed.orgId));
    const a = await demo.gw.startRun();
    const b = await demo.gw.startRun();
    const first = await lookup(a.id);
    const second = await lookup(b.id);
    const third = await demo.gw.execute(a.id, 'order_lookup', 'delete', { orderId: '1' });
    await feed.count(5, 'the transitions of both runs');
    expect(feed.items.map((c) => [c.toolCall.runId, c.toolCall.id, c.status])).toEqual([
      [a.id, first.toolCallId, 'running'],
      [a.id, first.toolCallId, 'succeeded'],
      [b.id, second.toolCallId, 'running'],
      [b.id, second.toolCallId, 'succeeded'],
      [a.id, third.toolCallId, 'blocked'],
    ]);
    expect(increasing(feed.items.map((c) => c.sequence))).toBe(true);
  });
});

describe('approvalRequests', () => {
  test('kind expert sees the request, then its approval; kind client sees nothing of it', async () => {
    const head = await ledgerHead(demo.app, demo.seed.orgId);
    const expertDesk = connect(demo.app.wsUrl, demo.seed.keys.expert);
    const clientDesk = connect(demo.app.wsUrl, demo.seed.keys.client);
    const experts = approvals(expertDesk.client, 'expert', head);
    const clients = approvals(clientDesk.client, 'client', head);
    const everything = approvals(expertDesk.client, null, head);

    const run = await demo.gw.startRun();
    const invoice = await demo.gw.execute(run.id, 'invoice', 'send', EXPERT_INVOICE);
    expect(invoice.status).toBe('waiting_approval');
    await experts.count(1, 'the expert request');
    expect(experts.items[0]).toMatchObject({
      change: 'requested',
      approvalRequest: { id: invoice.approvalRequestId, kind: 'expert', toolCallId: invoice.toolCallId, runId: run.id },
    });

    await demo.gw.ok(RESOLVE_APPROVAL, { id: invoice.approvalRequestId!, decision: 'APPROVE' }, demo.seed.keys.expert);
    await experts.count(2, 'the approval');
    expect(experts.items[1]).toMatchObject({
      change: 'approved',
      approvalRequest: { id: invoice.approvalRequestId, kind: 'expert', status: 'approved', resolvedBy: expect.any(String) },
    });
    expect(BigInt(experts.items[1].sequence)).toBeGreaterThan(BigInt(experts.items[0].sequence));

    // A client approval afterwards: the client desk's first event is that one, so nothing
    // of the expert approval (earlier in the ledger) reached it.
    const large = await demo.gw.execute(run.id, 'invoice', 'send', CLIENT_INVOICE);
    expect(large.status).toBe('waiting_approval');
    await clients.count(1, 'the client request');
    await everything.count(3, 'all three changes');
    expect(clients.items.map((c) => [c.change, c.approvalRequest?.id, c.approvalRequest?.kind])).toEqual([
      ['requested', large.approvalRequestId, 'client'],
    ]);
    expect(everything.items.map((c) => [c.change, c.approvalRequest?.kind])).toEqual([
      ['requested', 'expert'],
      ['approved', 'expert'],
      ['requested', 'client'],
    ]);
    // The expert desk's feed, same socket, was not given the client request either.
    await experts.until(() => everything.items.length === 3, 'the barrier');
    expect(experts.items).toHaveLength(2);
  });
});
