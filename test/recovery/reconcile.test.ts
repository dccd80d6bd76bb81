import { randomUUID } from 'node:crypto';
import { startTestApp } from '../support/app';
import { useDemoApp } from '../support/demo-fixture';
import { ToolGateway } from '../../src/gateway/gateway.service';
import { OrgConfigCache } from '../../src/gateway/org-config-cache';
import { ToolRegistry } from '../../src/gateway/tool-registry';
import { InFlightCalls } from '../../src/recovery/in-flight';
import { NO_FAILPOINTS } from '../../src/recovery/failpoints';
import type { ExecutionOutcome, ToolExecutor } from '../../src/executor/executor.types';
import type { Caller } from '../../src/auth/caller';
import type { NangoSandbox } from '../../src/vendors/nango/nango.sandbox';
import { QBO_DEMO_CUSTOMERS } from '../../src/vendors/nango/nango.sandbox';
import { Feed, closeSockets, connect, ledgerHead } from '../realtime/realtime-helpers';
import { systemClock } from '../../src/support/clock';

/**
 * Reconciliation of calls left `running`: another node of the same code (a second
 * ToolGateway with its own node id on the same database) starts calls and "dies" with
 * them in flight — its executor never returns, after having reached the real vendor
 * sandbox or not. The test app is the live node: its sweep reaps the dead node and
 * settles each call once, from the sandbox's own answers.
 */
let nango: NangoSandbox;

// One executor serves the dying node and the live one here: a breaker of its own would open on the dying node's failures.
const demo = useDemoApp(
  { VENDOR_RETRY_BASE_MS: '1', VENDOR_BREAKER_THRESHOLD: '1000' },
  { sandboxes: true, liveness: true, beforeClose: closeSockets },
);
beforeAll(async () => {
  nango = demo.app.sandbox!.sandbox<NangoSandbox>('nango')!;
});
afterEach(() => demo.app.sandbox?.clearFaults());

const never = <T>() => new Promise<T>(() => undefined);

/** A node that runs calls and dies while they are in flight: before or after the vendor acted. */
async function dyingNode(options: { reachVendor: boolean; nodeId?: string }) {
  const nodeId = options.nodeId ?? randomUUID();
  if (!options.nodeId) {
    await demo.app.em().execute(
      `insert into toolgate_nodes (id, name, hostname, pid, worker_ids, started_at, heartbeat_at)
       values (?, ?, 'elsewhere', 1, '{}', now(), now())`,
      [nodeId, `dying-${nodeId}`],
    );
  }
  const real = demo.app.services.executor;
  const executor: ToolExecutor = {
    execute: async (request) => {
      if (options.reachVendor) await real.execute(request);
      return never<ExecutionOutcome>();
    },
  };
  const gateway = new ToolGateway({
    orm: demo.app.orm,
    executor,
    keyring: demo.app.masterKey,
    settings: { toolCallingKillSwitch: false, approvalTtlMs: 3_600_000 },
    orgConfig: new OrgConfigCache(),
    tools: new ToolRegistry(),
    logger: demo.app.services.logger,
    nodeId,
    inFlight: new InFlightCalls(),
    failpoints: NO_FAILPOINTS,
    clock: systemClock,
  });
  return {
    nodeId,
    gateway,
    /** The node stops heartbeating: dead once NODE_DEAD_AFTER_MS has passed. */
    die: () => demo.app.em().execute(`update toolgate_nodes set heartbeat_at = now() - interval '3 hours' where id = ?`, [nodeId]),
    /** Time passes: its calls' attempts are older than any vendor timeout (they can no longer land). */
    attemptsOver: () =>
      demo.app.em().execute(`update tool_calls set updated_at = now() - interval '3 hours' where node_id = ? and status = 'running'`, [nodeId]),
  };
}

const agent = (): Caller => ({ orgId: demo.seed.orgId, role: 'agent', keyId: null });

/** Starts a call on the node and waits until it is `running` there (the promise never settles). */
async function startCall(node: Awaited<ReturnType<typeof dyingNode>>, runId: string, toolName: string, action: string, params: unknown) {
  const toolUseId = `tu-${randomUUID()}`;
  void node.gateway.execute({ runId, toolName, action, params, correlationId: 'c', toolUseId, caller: agent() });
  return { id: await waitForCall(runId, toolUseId, ['running']), toolUseId };
}

async function waitForCall(runId: string, toolUseId: string, statuses: string[]): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const [row] = await demo.app
      .em()
      .execute<{ id: string; status: string }[]>('select id, status from tool_calls where run_id = ? and tool_use_id = ?', [runId, toolUseId]);
    if (row && statuses.includes(row.status)) return row.id;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`call ${toolUseId} never reached ${statuses.join('/')}`);
}

/** An approved invoice.send running on the dying node (approval by the expert through the API). */
async function approvedInvoice(node: Awaited<ReturnType<typeof dyingNode>>, runId: string, customerId: string) {
  const toolUseId = `tu-${randomUUID()}`;
  const outcome = await node.gateway.execute({
    runId,
    toolName: 'invoice',
    action: 'send',
    params: { customerId, amount: 42.5 },
    correlationId: 'c',
    toolUseId,
    caller: agent(),
  });
  expect(outcome.status).toBe('waiting_approval');
  await demo.gw.ok(
    'mutation($id: ID!) { resolveApproval(id: $id, decision: APPROVE, reason: "ok") { status } }',
    { id: outcome.approvalRequestId },
    demo.seed.keys.expert,
  );
  void node.gateway.executeApproved(outcome.toolCallId, agent());
  await waitForCall(runId, toolUseId, ['running']);
  return outcome.toolCallId;
}

/** The call's invoices: its marker is the first word of their PrivateNote (the request's marker follows). */
const invoicesFor = (toolCallId: string) => nango.effects().filter((e) => e.privateNote?.split(' ')[0] === `toolgate:toolgate-${toolCallId}`);

async function ledgerOf(toolCallId: string) {
  return (await demo.gw.call(toolCallId)).ledgerEvents.map((e) => ({ type: e.type, ...e.metadata }));
}

describe('a node dies with calls in flight; a live node settles each once', () => {
  test('an idempotent lookup is executed again with the same idempotency key and succeeds with its result', async () => {
    const run = await demo.gw.startRun();
    const node = await dyingNode({ reachVendor: true });
    const { id: callId, toolUseId } = await startCall(node, run.id, 'order_lookup', 'lookup', { orderId: '12345' });

    // Alive: nothing to do.
    expect(await demo.app.liveness!.sweep()).toEqual({ reaped: [], reconciled: 0, ownLocksReleased: 0 });
    expect((await demo.gw.call(callId)).status).toBe('running');

    await node.die();
    const sweep = await demo.app.liveness!.sweep();
    expect(sweep.reaped).toEqual([node.nodeId]);
    expect(sweep.reconciled).toBe(1);

    const call = await demo.gw.call(callId);
    expect(call).toMatchObject({ status: 'succeeded', errorCode: null });
    expect(call.output).toMatchObject({ trackingNumbers: ['TRACK-001'] });
    const trail = await ledgerOf(callId);
    expect(trail.map((e) => e.type)).toEqual(['tool_call.requested', 'tool_call.interrupted', 'tool_call.succeeded']);
    expect(trail[1]).toMatchObject({ reason: 'node_dead', previousNodeId: node.nodeId, nodeId: demo.app.services.nodeId });
    expect(trail[2]).toMatchObject({ reconciled: 're_executed' });

    // Settled once: another sweep, here or on any node, finds nothing.
    expect(await demo.app.liveness!.sweep()).toEqual({ reaped: [], reconciled: 0, ownLocksReleased: 0 });
    // A retry of the same tool_use replays the stored (redacted) result, not an error.
    const replay = await demo.gw.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' }, { toolUseId });
    expect(replay).toMatchObject({ status: 'succeeded', replayed: true, error: null, toolCallId: callId });
    expect(replay.result).toEqual(call.output);
  });

  test("invoice.send that reached QuickBooks: the vendor confirms it by its requestid; succeeded with the vendor's result, one invoice, one email", async () => {
    const run = await demo.gw.startRun();
    const node = await dyingNode({ reachVendor: true });
    const callId = await approvedInvoice(node, run.id, QBO_DEMO_CUSTOMERS.amys);
    for (let i = 0; i < 100 && invoicesFor(callId).length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(invoicesFor(callId)).toHaveLength(1);

    await node.die();
    // Not before the interrupted attempt's timeout: the request could still land at the vendor.
    expect(await demo.app.liveness!.sweep()).toEqual({ reaped: [node.nodeId], reconciled: 0, ownLocksReleased: 0 });
    await node.attemptsOver();
    expect((await demo.app.liveness!.sweep()).reconciled).toBe(1);

    const call = await demo.gw.call(callId);
    const [invoice] = invoicesFor(callId);
    expect(call).toMatchObject({ status: 'succeeded', reviewRequired: false });
    expect(call.output).toMatchObject({ invoiceId: invoice.invoiceId, totalAmount: 42.5 });
    expect(invoice.emailsSent).toBe(1);
    expect(invoicesFor(callId)).toHaveLength(1);
    expect((await ledgerOf(callId)).at(-1)).toMatchObject({ type: 'tool_call.succeeded', reconciled: 'vendor_confirmed' });
    // The approved params have served their one use.
    const [approval] = await demo.app
      .em()
      .execute<{ sealed_params: unknown }[]>('select sealed_params from approval_requests where tool_call_id = ?', [callId]);
    expect(approval.sealed_params).toBeNull();
    const [row] = await demo.app
      .em()
      .execute<{ sealed_input: unknown; node_id: string }[]>('select sealed_input, node_id from tool_calls where id = ?', [callId]);
    expect(row).toEqual({ sealed_input: null, node_id: demo.app.services.nodeId });
  });

  test('invoice.send that never reached QuickBooks: failed VENDOR_NOT_PERFORMED, nothing created', async () => {
    const run = await demo.gw.startRun();
    const node = await dyingNode({ reachVendor: false });
    const callId = await approvedInvoice(node, run.id, QBO_DEMO_CUSTOMERS.billsWindsurf);
    await node.die();
    await node.attemptsOver();
    expect((await demo.app.liveness!.sweep()).reconciled).toBe(1);

    const call = await demo.gw.call(callId);
    expect(call).toMatchObject({
      status: 'failed',
      errorCode: 'VENDOR_NOT_PERFORMED',
      errorText: expect.stringContaining('not performed'),
      reviewRequired: false,
    });
    expect(invoicesFor(callId)).toHaveLength(0);
    expect((await ledgerOf(callId)).at(-1)).toMatchObject({
      type: 'tool_call.failed',
      reconciled: 'vendor_not_performed',
      errorCode: 'VENDOR_NOT_PERFORMED',
    });
  });

  test('QuickBooks cannot answer the lookup: failed VENDOR_OUTCOME_UNKNOWN, marked for review, the model told not to repeat it', async () => {
    const run = await demo.gw.startRun();
    const node = await dyingNode({ reachVendor: true });
    const callId = await approvedInvoice(node, run.id, QBO_DEMO_CUSTOMERS.amys);
    for (let i = 0; i < 100 && invoicesFor(callId).length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    demo.app.sandbox!.injectFault('nango', { kind: 'status', status: 503 }, { times: 50, pathIncludes: 'select * from Invoice' });
    // The approval dashboard's feed: experts are told to review it; a client desk is not.
    const head = await ledgerHead(demo.app, demo.seed.orgId);
    const feed = (key: string) =>
      new Feed<{ change: string; approvalRequest: { kind: string } | null; toolCall: { id: string; errorCode: string; reviewRequired: boolean } }>(
        connect(demo.app.wsUrl, key).client,
        `subscription($after: String) { approvalRequests(afterSequence: $after) {
           change approvalRequest { kind } toolCall { id errorCode reviewRequired } } }`,
        { after: head },
        'approvalRequests',
      );
    const experts = feed(demo.seed.keys.expert);
    const clients = feed(demo.seed.keys.client);

    await node.die();
    await node.attemptsOver();
    expect((await demo.app.liveness!.sweep()).reconciled).toBe(1);

    const call = await demo.gw.call(callId);
    expect(call).toMatchObject({ status: 'failed', errorCode: 'VENDOR_OUTCOME_UNKNOWN', reviewRequired: true });
    expect(call.errorText).toMatch(/may have happened.*Do not repeat/s);
    expect((await ledgerOf(callId)).at(-1)).toMatchObject({ type: 'tool_call.failed', reconciled: 'vendor_outcome_unknown' });
    await experts.count(1, 'the review item');
    expect(experts.items).toEqual([
      {
        change: 'review_required',
        approvalRequest: { kind: 'expert' },
        toolCall: { id: callId, errorCode: 'VENDOR_OUTCOME_UNKNOWN', reviewRequired: true },
      },
    ]);
    expect(clients.items).toEqual([]);
    // Experts find it among the calls to review.
    const review = await demo.gw.ok(
      'query { toolCalls(filter: { reviewRequired: true, status: failed }) { edges { node { id errorCode } } } }',
      {},
      demo.seed.keys.expert,
    );
    expect(review.toolCalls.edges.map((e: { node: { id: string } }) => e.node.id)).toContain(callId);
    // Exactly one invoice exists; nothing was repeated.
    expect(invoicesFor(callId)).toHaveLength(1);
  });

  test('created but the email cannot be sent: succeeded with the invoice that exists, marked partial and for review', async () => {
    const run = await demo.gw.startRun();
    // Every email attempt is refused, the dying node's and the live node's lookup alike.
    demo.app.sandbox!.injectFault('nango', { kind: 'status', status: 503 }, { times: 100, pathIncludes: '/send' });
    const node = await dyingNode({ reachVendor: true });
    const callId = await approvedInvoice(node, run.id, QBO_DEMO_CUSTOMERS.amys);
    for (let i = 0; i < 100 && invoicesFor(callId).length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    await node.die();
    await node.attemptsOver();
    expect((await demo.app.liveness!.sweep()).reconciled).toBe(1);

    const call = await demo.gw.call(callId);
    const [invoice] = invoicesFor(callId);
    expect(call).toMatchObject({ status: 'succeeded', reviewRequired: true });
    expect(call.output).toMatchObject({ invoiceId: invoice.invoiceId, sentTo: null, partial: 'created_not_emailed' });
    expect((await ledgerOf(callId)).at(-1)).toMatchObject({
      type: 'tool_call.succeeded',
      reconciled: 'vendor_confirmed',
      partial: 'created_not_emailed',
      resumed: false,
    });
    expect(invoicesFor(callId)).toEqual([expect.objectContaining({ emailsSent: 0 })]);
  });

  test("this node's own call whose outcome could not be written is settled by its next sweep", async () => {
    const run = await demo.gw.startRun();
    // Same node id as the app, but not in its in-flight set: the outcome write was lost.
    const node = await dyingNode({ reachVendor: true, nodeId: demo.app.services.nodeId });
    const { id: callId } = await startCall(node, run.id, 'order_lookup', 'lookup', { orderId: '12345' });

    expect((await demo.app.liveness!.sweep()).reconciled).toBe(1);
    expect((await demo.gw.call(callId)).status).toBe('succeeded');
    expect((await ledgerOf(callId))[1]).toMatchObject({ type: 'tool_call.interrupted', reason: 'outcome_not_written' });
  });

  test('two live nodes sweep at once: each dead call is taken over and settled exactly once', async () => {
    const other = await startTestApp({}, { sandboxes: true, liveness: true, database: demo.app.db });
    try {
      const run = await demo.gw.startRun();
      const node = await dyingNode({ reachVendor: true });
      const ids = (await Promise.all([0, 1, 2].map(() => startCall(node, run.id, 'order_lookup', 'lookup', { orderId: '12345' })))).map((c) => c.id);
      await node.die();
      const [a, b] = await Promise.all([demo.app.liveness!.sweep(), other.liveness!.sweep()]);
      expect(a.reconciled + b.reconciled).toBe(3);
      expect([...a.reaped, ...b.reaped]).toEqual([node.nodeId]);
      for (const id of ids) {
        const trail = await ledgerOf(id);
        expect(trail.filter((e) => e.type === 'tool_call.interrupted')).toHaveLength(1);
        expect(trail.filter((e) => e.type === 'tool_call.succeeded')).toHaveLength(1);
      }
    } finally {
      await other.close();
    }
  });

  test('job locks of dead nodes are released (so their run steps continue on a live node); a live lock is not', async () => {
    const nodeId = randomUUID();
    const owner = `pool-${nodeId.slice(0, 8)}`; // graphile-worker locks with its pool's id
    await demo.app.em().execute(
      `insert into toolgate_nodes (id, name, hostname, pid, worker_ids, started_at, heartbeat_at)
       values (?, ?, 'elsewhere', 1, ?, now(), now() - interval '3 hours')`,
      [nodeId, `dead-${nodeId}`, `{${owner}}`],
    );
    /** A run step job (and its queue) held by `lockedBy` since `lockedAt`. */
    const heldJob = async (lockedBy: string, lockedAt: string) => {
      const queue = `run:${randomUUID()}`;
      const [job] = await demo.app
        .em()
        .execute<{ id: string }[]>(`select id from graphile_worker.add_job('run_agent', json_build_object('runId', 'none'), queue_name := ?)`, [
          queue,
        ]);
      await demo.app.em().execute(`update graphile_worker._private_jobs set locked_by = ?, locked_at = ${lockedAt} where id = ?`, [lockedBy, job.id]);
      await demo.app
        .em()
        .execute(`update graphile_worker._private_job_queues set locked_by = ?, locked_at = ${lockedAt} where queue_name = ?`, [lockedBy, queue]);
      return { id: job.id, queue };
    };
    const lockOf = async (job: { id: string; queue: string }) => {
      const [row] = await demo.app
        .em()
        .execute<{ locked_by: string | null }[]>('select locked_by from graphile_worker._private_jobs where id = ?', [job.id]);
      const [queue] = await demo.app
        .em()
        .execute<{ locked_by: string | null }[]>('select locked_by from graphile_worker._private_job_queues where queue_name = ?', [job.queue]);
      return [row.locked_by, queue.locked_by];
    };
    const ofDeadNode = await heldJob(owner, 'now()');
    // A node that died before it could record its lock owner: its lock is older than NODE_DEAD_AFTER_MS.
    const unclaimedOld = await heldJob('pool-unrecorded', "now() - interval '3 hours'");
    // A live worker's lock (a node recording its owner right now) is left alone.
    const fresh = await heldJob('pool-just-started', 'now()');

    expect((await demo.app.liveness!.sweep()).reaped).toContain(nodeId);
    expect(await lockOf(ofDeadNode)).toEqual([null, null]);
    expect(await lockOf(unclaimedOld)).toEqual([null, null]);
    expect(await lockOf(fresh)).toEqual(['pool-just-started', 'pool-just-started']);
    await demo.app.em().execute('delete from graphile_worker._private_jobs where id in (?, ?, ?)', [ofDeadNode.id, unclaimedOld.id, fresh.id]);
  });

  test('a node declared dead while alive learns it at its next heartbeat and is fenced', async () => {
    const other = await startTestApp({}, { sandboxes: true, liveness: true, database: demo.app.db });
    try {
      await demo.app.em().execute(`update toolgate_nodes set heartbeat_at = now() - interval '3 hours' where id = ?`, [other.services.nodeId]);
      expect((await demo.app.liveness!.sweep()).reaped).toEqual([other.services.nodeId]);
      await other.liveness!.sweep();
      expect(other.fenced).toEqual([other.services.nodeId]);
    } finally {
      await other.close();
    }
  });
});
