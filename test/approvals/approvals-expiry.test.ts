import { Logger as WorkerLogger, quickAddJob, runOnce } from 'graphile-worker';
import { expireDueApprovals } from '../../src/approvals/approval.service';
import { EXPIRE_APPROVALS_TASK, jobTasks } from '../../src/jobs/worker';
import { createLogger } from '../../src/support/logger';
import { QBO_DEMO_CUSTOMERS } from '../../src/vendors/nango/nango.sandbox-data';
import {
  errorCode,
  executeApproved,
  ledgerOf,
  ledgerTypes,
  nangoRequests,
  requestInvoice,
  resolve,
  rowsOf,
  sql,
  startFlow,
  useFlow,
  WAITING_TRAIL,
  waitingCall,
} from './approval-flow';

/**
 * Expiry (the scheduled job, and a resolution that comes too late) and the binding of an
 * approval to its exact call. Time is moved by editing expires_at, never by waiting.
 */
const flow = useFlow();

async function makeDue(approvalId: string): Promise<void> {
  await sql(flow.app, `update approval_requests set expires_at = now() - interval '1 minute' where id = ?`, [approvalId]);
}

/** The rows and ledger of an approval that expired, whoever expired it. */
async function expectExpired(ids: { runId: string; toolCallId: string; approvalId: string }): Promise<void> {
  const { call, approval, run } = await rowsOf(flow.app, ids.toolCallId);
  expect(approval!.status).toBe('expired');
  expect(approval!.resolvedAt).toBeInstanceOf(Date);
  expect(approval!.resolvedBy).toBeNull();
  expect(approval!.sealedParams).toBeNull();
  expect(call.status).toBe('blocked');
  expect(call.errorCode).toBe('APPROVAL_EXPIRED');
  expect(call.errorText).toBe('Tool execution approval expired before a decision');
  expect(run.status).toBe('running');
  expect(run.pendingApprovalCount).toBe(0);

  const events = await ledgerOf(flow.app, ids.runId);
  expect(events.map((e) => e.type)).toEqual([...WAITING_TRAIL, 'tool_call.expired', 'run.resumed']);
  const expired = events[5];
  expect(expired.resourceId).toBe(ids.toolCallId);
  expect(expired.actorRole).toBeNull();
  expect(expired.metadata).toMatchObject({
    tool: 'invoice.send',
    approvalRequestId: ids.approvalId,
    kind: 'expert',
    reason: 'approval_expired',
    errorCode: 'APPROVAL_EXPIRED',
    // Resolved by time: the channel says so, and no person is named.
    channel: 'expiry',
    principal: null,
  });
}

describe('expiry', () => {
  test('expireDueApprovals expires due approvals only: call blocked APPROVAL_EXPIRED, run released', async () => {
    const due = await waitingCall(flow, 'expert');
    const notDue = await waitingCall(flow, 'expert');
    await makeDue(due.approvalId);

    const expired = await expireDueApprovals(flow.app.em());
    expect(expired.map((a) => a.id)).toContain(due.approvalId);
    expect(expired.map((a) => a.id)).not.toContain(notDue.approvalId);
    await expectExpired(due);

    expect((await rowsOf(flow.app, notDue.toolCallId)).approval!.status).toBe('pending');
    expect((await expireDueApprovals(flow.app.em())).map((a) => a.id)).not.toContain(due.approvalId);

    // Too late for a human, and nothing runs.
    const late = await resolve(flow, flow.keys.expert, due.approvalId, 'APPROVE');
    expect(errorCode(late)).toBe('APPROVAL_ALREADY_RESOLVED');
    expect(late.body.errors![0].extensions).toMatchObject({ approvalStatus: 'expired' });
    const requestsBefore = nangoRequests(flow.app);
    const exec = await executeApproved(flow, due.toolCallId);
    expect(exec.body.data!.executeApprovedToolCall).toMatchObject({ status: 'blocked', error: { code: 'APPROVAL_EXPIRED' } });
    expect(nangoRequests(flow.app)).toBe(requestsBefore);
  });

  test('resolving an approval whose time is up before the job ran: APPROVAL_EXPIRED, and it is then expired', async () => {
    const ids = await waitingCall(flow, 'expert');
    await makeDue(ids.approvalId);

    const res = await resolve(flow, flow.keys.expert, ids.approvalId, 'APPROVE', 'too late');
    expect(errorCode(res)).toBe('APPROVAL_EXPIRED');
    await expectExpired(ids);
    expect((await rowsOf(flow.app, ids.toolCallId)).approval!.reason).toBeNull();
    // A second try now finds it resolved (expired).
    const again = await resolve(flow, flow.keys.expert, ids.approvalId, 'REJECT');
    expect(errorCode(again)).toBe('APPROVAL_ALREADY_RESOLVED');
  });

  test("the scheduled job's task expires every due approval", async () => {
    const a = await waitingCall(flow, 'expert');
    const b = await waitingCall(flow, 'expert');
    await makeDue(a.approvalId);
    await makeDue(b.approvalId);
    const tasks = jobTasks(flow.app.orm, createLogger(flow.app.config));
    await tasks[EXPIRE_APPROVALS_TASK]!(undefined, undefined as never);
    await expectExpired(a);
    await expectExpired(b);
  });

  test('graphile-worker runs an expire_approvals job with the task list against the database', async () => {
    const ids = await waitingCall(flow, 'expert');
    await makeDue(ids.approvalId);
    const connectionString = flow.app.db.url;
    const logger = new WorkerLogger(() => () => undefined);
    await quickAddJob({ connectionString, logger }, EXPIRE_APPROVALS_TASK, {});
    await runOnce({
      connectionString,
      logger,
      taskList: jobTasks(flow.app.orm, createLogger(flow.app.config)),
    });
    await expectExpired(ids);
  });

  test('two job runs at once expire each approval once (locked rows are skipped)', async () => {
    const calls = [await waitingCall(flow, 'expert'), await waitingCall(flow, 'expert'), await waitingCall(flow, 'expert')];
    for (const c of calls) await makeDue(c.approvalId);
    const [x, y] = await Promise.all([expireDueApprovals(flow.app.em()), expireDueApprovals(flow.app.em())]);
    const ids = [...x, ...y].map((a) => a.id).filter((id) => calls.some((c) => c.approvalId === id));
    expect(ids.sort()).toEqual(calls.map((c) => c.approvalId).sort());
    for (const c of calls) {
      await expectExpired(c);
      expect((await ledgerTypes(flow.app, c.runId)).filter((t) => t === 'tool_call.expired')).toHaveLength(1);
    }
  });

  test('APPROVAL_TTL_SECONDS sets the expiry of new approvals', async () => {
    const short = await startFlow({ APPROVAL_TTL_SECONDS: '1' });
    try {
      const { toolCallId } = await waitingCall(short, 'expert');
      const { approval } = await rowsOf(short.app, toolCallId);
      const ttl = approval!.expiresAt.getTime() - approval!.createdAt.getTime();
      expect(ttl).toBeGreaterThanOrEqual(900);
      expect(ttl).toBeLessThanOrEqual(1100);
    } finally {
      await short.app.close();
    }
  });
});

describe('binding: the approval runs only the exact call that was approved', () => {
  async function approvedCall() {
    const ids = await waitingCall(flow, 'expert');
    expect((await resolve(flow, flow.keys.expert, ids.approvalId, 'APPROVE')).body.errors).toBeUndefined();
    return ids;
  }

  test("another approval's sealed params in place of this one's: refused (CREDENTIALS_UNREADABLE), vendor not called", async () => {
    const victim = await approvedCall();
    const { runId } = await waitingCall(flow, 'expert');
    const donor = await requestInvoice(flow, runId, { customerId: QBO_DEMO_CUSTOMERS.coolCars, amount: 9999 });
    await sql(flow.app, `update approval_requests set sealed_params = (select sealed_params from approval_requests where id = ?) where id = ?`, [
      donor.approvalRequestId,
      victim.approvalId,
    ]);
    const requestsBefore = nangoRequests(flow.app);
    const res = await executeApproved(flow, victim.toolCallId);
    expect(errorCode(res)).toBe('CREDENTIALS_UNREADABLE');
    expect(nangoRequests(flow.app)).toBe(requestsBefore);
    // Asking again does not run it either.
    await executeApproved(flow, victim.toolCallId);
    expect(nangoRequests(flow.app)).toBe(requestsBefore);
    expect((await ledgerTypes(flow.app, victim.runId)).filter((t) => t === 'tool_call.succeeded')).toHaveLength(0);
  });

  test('a changed binding hash: refused with CONFLICT, vendor not called', async () => {
    const ids = await approvedCall();
    await sql(flow.app, `update approval_requests set binding_hash = ? where id = ?`, ['0'.repeat(64), ids.approvalId]);
    const requestsBefore = nangoRequests(flow.app);
    const res = await executeApproved(flow, ids.toolCallId);
    expect(errorCode(res)).toBe('CONFLICT');
    expect(nangoRequests(flow.app)).toBe(requestsBefore);
    await executeApproved(flow, ids.toolCallId);
    expect(nangoRequests(flow.app)).toBe(requestsBefore);
  });

  test('a changed policy version on the decision: refused with CONFLICT, vendor not called', async () => {
    const ids = await approvedCall();
    await sql(
      flow.app,
      `update policy_decisions set policy_version = policy_version + 1 where id = (select policy_decision_id from tool_calls where id = ?)`,
      [ids.toolCallId],
    );
    const requestsBefore = nangoRequests(flow.app);
    expect(errorCode(await executeApproved(flow, ids.toolCallId))).toBe('CONFLICT');
    expect(nangoRequests(flow.app)).toBe(requestsBefore);
  });

  test('sealed params are cleared once the approved call ran, on rejection and on expiry', async () => {
    const ran = await approvedCall();
    expect((await rowsOf(flow.app, ran.toolCallId)).approval!.sealedParams).not.toBeNull();
    expect((await executeApproved(flow, ran.toolCallId)).body.data!.executeApprovedToolCall.status).toBe('succeeded');
    expect((await rowsOf(flow.app, ran.toolCallId)).approval!.sealedParams).toBeNull();

    const rejected = await waitingCall(flow, 'expert');
    await resolve(flow, flow.keys.expert, rejected.approvalId, 'REJECT');
    expect((await rowsOf(flow.app, rejected.toolCallId)).approval!.sealedParams).toBeNull();

    const expired = await waitingCall(flow, 'expert');
    await makeDue(expired.approvalId);
    await expireDueApprovals(flow.app.em());
    expect((await rowsOf(flow.app, expired.toolCallId)).approval!.sealedParams).toBeNull();
  });
});
