import { startTestApp, type TestApp } from '../support/app';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { seedDemo, type SeedResult } from '../../src/seed/demo-seed';
import { enqueueRunStep } from '../../src/runs/run-jobs';
import { REPLIES } from '../../src/llm/dev-double/offline-model.replies';
import { RunClient, errorCode, isInvoiceCreate, types, type RunView } from './run-helpers';

/**
 * Runs that wait for a human: invoice.send is high risk, so the gateway pauses the run for
 * an expert. The pause lives in PostgreSQL only, so a new server on the same database
 * resumes it; the approved call runs exactly once however often a step is repeated; a
 * cancel stops the run and its approval for good.
 */
const ENV = { ANTHROPIC_MODEL: 'claude-offline-1' };
const INVOICE_REQUEST = 'Please send an invoice for $120.50 to customer 1';

let db: TestDatabase;
let app: TestApp;
let seed: SeedResult;
let runs: RunClient;
const serve = () => startTestApp(ENV, { sandboxes: true, offlineModel: true, worker: true, database: db });

beforeAll(async () => {
  db = await createTestDatabase();
  app = await serve();
  seed = await seedDemo(app.em(), app.masterKey);
  runs = new RunClient(app, seed);
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

/** A run paused for the expert on its invoice, and its approval request id. */
async function waitingInvoice(): Promise<{ run: RunView; approvalId: string }> {
  const started = await runs.start(INVOICE_REQUEST);
  expect(started.status).toBe('queued');
  const run = await runs.waitFor(started.id, ['waiting_approval']);
  // The step that paused the run is over (its job is gone) before anything else happens.
  await runs.jobsDone(run.id);
  const approvalId = run.toolCalls[0]?.approvalRequest?.id;
  if (!approvalId) throw new Error(`run ${run.id} has no approval request`);
  return { run: await runs.get(run.id), approvalId };
}

/** `expected` appears in `actual` in this order (other items may come between). */
function expectInOrder(actual: string[], expected: string[]): void {
  let from = 0;
  for (const item of expected) {
    const at = actual.indexOf(item, from);
    if (at < 0) throw new Error(`${item} missing after position ${from} in ${actual.join(', ')}`);
    from = at + 1;
  }
}

describe('approval pause and resume', () => {
  test('the invoice waits for an expert; approved on a restarted server, the run completes and one invoice is sent', async () => {
    const { run: waiting, approvalId } = await waitingInvoice();
    expect(waiting).toMatchObject({ status: 'waiting_approval', pendingApprovalCount: 1, reply: REPLIES.prefaceAction });
    expect(waiting.toolCalls).toHaveLength(1);
    expect(waiting.toolCalls[0]).toMatchObject({
      toolName: 'invoice',
      action: 'send',
      status: 'waiting_approval',
      riskLevel: 'high',
      input: { customerId: '1', amount: 120.5 },
      policyDecision: { outcome: 'require_expert_approval', risk: 'high' },
      approvalRequest: { id: approvalId, status: 'pending', kind: 'expert' },
    });
    expect(waiting.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(waiting.messages[1].content[1]).toMatchObject({ type: 'tool_use', name: 'invoice__send', input: { customerId: '1', amount: 120.5 } });
    // The pending result is not shown as a result, and its internal note is not exposed.
    expect(waiting.messages[2].content).toEqual([{ type: 'tool_result', tool_use_id: waiting.messages[1].content[1].id, content: '' }]);
    expect(waiting.messages[2].blocks).toEqual([
      {
        __typename: 'ToolResultBlock',
        toolUseId: waiting.messages[1].content[1].id,
        isError: false,
        pending: true,
        content: null,
        toolCallId: waiting.toolCalls[0].id,
        status: 'waiting_approval',
      },
    ]);
    expectInOrder(types(waiting), ['run.created', 'run.started', 'tool_call.requested', 'tool_call.approval_requested', 'run.waiting_approval']);
    expect(types(waiting)).not.toContain('run.completed');
    expect(runs.vendorRequests('nango', isInvoiceCreate)).toBe(0);

    // Server and worker gone; a new server on the same database takes over.
    const first = app;
    await first.close();
    app = await serve();
    runs = new RunClient(app, seed);

    const resolved = await runs.resolve(approvalId, 'APPROVE');
    expect(resolved.body.data).toEqual({ resolveApproval: { id: approvalId, status: 'approved' } });
    const run = await runs.waitFor(waiting.id);
    expect(run.status).toBe('completed');
    expect(run.pendingApprovalCount).toBe(0);
    expect(run.reply).toMatch(/^Invoice \S+ for 120\.50( USD)? was sent to Birds@Intuit\.com\.$/);
    expect(run.toolCalls).toHaveLength(1);
    expect(run.toolCalls[0]).toMatchObject({ status: 'succeeded', approvalRequest: { id: approvalId, status: 'approved' } });
    // The pending result was filled in place with the invoice; then the final answer.
    expect(run.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    // Readers see the invoice as the tool call stores it (the address redacted).
    expect(JSON.parse(run.messages[2].content[0].content!)).toMatchObject({ customerId: '1', totalAmount: 120.5, sentTo: '[REDACTED]' });
    expect(run.messages[2].blocks).toEqual([
      expect.objectContaining({ __typename: 'ToolResultBlock', pending: false, status: 'succeeded', content: run.toolCalls[0].output }),
    ]);
    expect(runs.vendorRequests('nango', isInvoiceCreate)).toBe(1);
    expect(first.sandbox!.requests.filter((r) => r.vendor === 'nango' && isInvoiceCreate(r))).toEqual([]);
    expectInOrder(types(run), [
      'tool_call.approval_requested',
      'run.waiting_approval',
      'tool_call.approved',
      'run.resumed',
      'tool_call.succeeded',
      'run.completed',
    ]);
    expect(types(run).filter((t) => t === 'tool_call.succeeded')).toHaveLength(1);

    // Steps repeated on the completed run: a duplicate job, and two direct steps at once.
    await app.em().transactional((tx) => enqueueRunStep(tx, run.id));
    await runs.jobsDone(run.id);
    await Promise.all([app.services.runtime.step(run.id), app.services.runtime.step(run.id)]);
    const after = await runs.get(run.id);
    expect(after.messages).toEqual(run.messages);
    expect(after.toolCalls).toEqual(run.toolCalls);
    expect(types(after)).toEqual(types(run));
    expect(runs.vendorRequests('nango', isInvoiceCreate)).toBe(1);
  });

  test('rejected: the model is told, the call is blocked EXPERT_REJECTED, no invoice', async () => {
    const invoicesBefore = runs.vendorRequests('nango', isInvoiceCreate);
    const { run: waiting, approvalId } = await waitingInvoice();
    expect((await runs.resolve(approvalId, 'REJECT')).body.data).toEqual({ resolveApproval: { id: approvalId, status: 'rejected' } });
    const run = await runs.waitFor(waiting.id);
    expect(run.status).toBe('completed');
    expect(run.reply).toContain('rejected');
    expect(run.reply).toBe(REPLIES.unable('Tool execution was rejected by an expert'));
    expect(run.toolCalls[0]).toMatchObject({ status: 'blocked', errorCode: 'EXPERT_REJECTED', approvalRequest: { status: 'rejected' } });
    expect(run.messages[2].content[0]).toMatchObject({ type: 'tool_result', is_error: true, content: 'Tool execution was rejected by an expert' });
    expectInOrder(types(run), ['tool_call.rejected', 'run.resumed', 'run.completed']);
    expect(run.ledgerEvents.find((e) => e.type === 'tool_call.rejected')?.metadata).toMatchObject({ reason: 'expert_rejected' });
    expect(runs.vendorRequests('nango', isInvoiceCreate)).toBe(invoicesBefore);
  });
});

describe('no double execution', () => {
  test('a duplicate step while waiting does nothing; approved with the worker and two direct steps racing, the invoice is sent once', async () => {
    const invoicesBefore = runs.vendorRequests('nango', isInvoiceCreate);
    const { run: waiting, approvalId } = await waitingInvoice();
    await app.em().transactional((tx) => enqueueRunStep(tx, waiting.id));
    await runs.jobsDone(waiting.id);
    expect(await runs.get(waiting.id)).toEqual(waiting);
    expect(runs.vendorRequests('nango', isInvoiceCreate)).toBe(invoicesBefore);

    await runs.resolve(approvalId, 'APPROVE');
    // The worker's job and two more steps of this node, all at once. A step that loses a
    // race may throw (the job queue would retry it); what matters is what ran.
    await Promise.allSettled([app.services.runtime.step(waiting.id), app.services.runtime.step(waiting.id)]);
    await runs.waitFor(waiting.id);
    await runs.jobsDone(waiting.id);
    const run = await runs.get(waiting.id);
    expect(run.toolCalls).toHaveLength(1);
    expect(run.toolCalls[0]).toMatchObject({ status: 'succeeded', approvalRequest: { status: 'approved' } });
    expect(runs.vendorRequests('nango', isInvoiceCreate)).toBe(invoicesBefore + 1);
    expect(types(run).filter((t) => t === 'tool_call.succeeded')).toHaveLength(1);
    expect(run.messages.flatMap((m) => m.content.filter((b) => b.type === 'tool_use'))).toHaveLength(1);
    // Which answer the model gave under this race is not asserted: steps of one run are
    // meant to be serial (one job queue per run); runtime-steps.test.ts shows what goes wrong.
  });
});

describe('cancelRun', () => {
  test('a run waiting for approval: cancelled, approval cancelled, call blocked RUN_CANCELLED; later resolve and cancel are refused', async () => {
    const invoicesBefore = runs.vendorRequests('nango', isInvoiceCreate);
    const { run: waiting, approvalId } = await waitingInvoice();
    const pending = await runs.postMessage(waiting.id, 'Hello?');
    expect(errorCode(pending)).toBe('APPROVALS_PENDING');
    expect(pending.body.errors![0].extensions).toMatchObject({ runStatus: 'waiting_approval' });
    const res = await runs.cancel(waiting.id);
    expect(res.body.data?.cancelRun).toEqual({ id: waiting.id, status: 'cancelled', pendingApprovalCount: 0 });

    const run = await runs.get(waiting.id);
    expect(run.status).toBe('cancelled');
    expect(run.toolCalls[0]).toMatchObject({
      status: 'blocked',
      errorCode: 'RUN_CANCELLED',
      approvalRequest: { id: approvalId, status: 'cancelled' },
    });
    const blocked = run.ledgerEvents.filter((e) => e.type === 'tool_call.blocked');
    expect(blocked).toHaveLength(1);
    expect(blocked[0]).toMatchObject({ resourceId: run.toolCalls[0].id, metadata: { reason: 'run_cancelled' } });
    expect(types(run).slice(-2)).toEqual(['tool_call.blocked', 'run.cancelled']);
    expect(await runs.jobsOf(run.id)).toBe(0);

    const late = await runs.resolve(approvalId, 'APPROVE');
    expect(errorCode(late)).toBe('APPROVAL_ALREADY_RESOLVED');
    expect(late.body.errors![0].extensions).toMatchObject({ approvalStatus: 'cancelled' });
    const again = await runs.cancel(run.id);
    expect(errorCode(again)).toBe('RUN_NOT_ACTIVE');
    expect(again.body.errors![0].extensions).toMatchObject({ runStatus: 'cancelled' });
    expect(errorCode(await runs.postMessage(run.id, 'Hello?'))).toBe('RUN_NOT_ACTIVE');

    const final = await runs.get(run.id);
    expect(final.status).toBe('cancelled');
    expect(final.messages).toEqual(run.messages);
    expect(types(final)).toEqual(types(run));
    expect(runs.vendorRequests('nango', isInvoiceCreate)).toBe(invoicesBefore);
  });

  test('a running run (its model call waiting on Retry-After): cancelled at once, the model is not asked again', async () => {
    app.model!.injectFault({ kind: 'rate_limited', retryAfterSeconds: 3 }, 1);
    const modelBefore = app.model!.requests.length;
    const { id } = await runs.start("What's the status of my order #12345?");
    await runs.waitFor(id, ['running']);
    expect((await runs.cancel(id)).body.data?.cancelRun.status).toBe('cancelled');
    // The step ends without the SDK trying again after the Retry-After (checked below).
    await runs.jobsDone(id);
    const run = await runs.get(id);
    expect(run.status).toBe('cancelled');
    expect(run.messages.map((m) => m.role)).toEqual(['user']);
    expect(run.toolCalls).toEqual([]);
    expect(run.errorCode).toBeNull();
    expect(types(run)).toEqual(['run.created', 'run.started', 'run.cancelled']);
    expect(app.model!.requests.slice(modelBefore).map((r) => r.status)).toEqual([429]);
  });
});
