import { startTestApp, type TestApp } from '../support/app';
import { seedDemo, type SeedResult } from '../../src/seed/demo-seed';
import { RunClient, isInvoiceCreate } from './run-helpers';

/**
 * Bulk resolution of runs the runtime drives: each approved run resumes on its own (its step
 * queued in its item's transaction) and completes; a rejected one continues with the
 * rejection. One request, as many independent resolutions as ids.
 */
const ENV = { ANTHROPIC_MODEL: 'claude-offline-1' };
const INVOICE_REQUEST = 'Please send an invoice for $120.50 to customer 1';

let app: TestApp;
let seed: SeedResult;
let runs: RunClient;

beforeAll(async () => {
  app = await startTestApp(ENV, { sandboxes: true, offlineModel: true, worker: true });
  seed = await seedDemo(app.em(), app.masterKey);
  runs = new RunClient(app, seed);
});
afterAll(async () => app?.close());

async function waitingInvoice(): Promise<{ runId: string; approvalId: string }> {
  const started = await runs.start(INVOICE_REQUEST);
  const run = await runs.waitFor(started.id, ['waiting_approval']);
  await runs.jobsDone(run.id);
  return { runId: run.id, approvalId: run.toolCalls[0].approvalRequest!.id };
}

test('two runs approved and one rejected in one request: each resumes and completes as after a single decision', async () => {
  const approved = [await waitingInvoice(), await waitingInvoice()];
  const rejected = await waitingInvoice();
  const invoicesBefore = runs.vendorRequests('nango', isInvoiceCreate);

  const approve = await app.gql<{ resolveApprovals: { approvalRequest: { status: string } | null; error: unknown }[] }>(
    'mutation($ids: [ID!]!) { resolveApprovals(ids: $ids, decision: APPROVE, reason: "both checked") { approvalRequest { status } error { code } } }',
    { key: seed.keys.expert, variables: { ids: approved.map((a) => a.approvalId) } },
  );
  expect(approve.body.data?.resolveApprovals).toEqual([
    { approvalRequest: { status: 'approved' }, error: null },
    { approvalRequest: { status: 'approved' }, error: null },
  ]);
  const reject = await app.gql('mutation($ids: [ID!]!) { resolveApprovals(ids: $ids, decision: REJECT) { approvalRequest { status } } }', {
    key: seed.keys.expert,
    variables: { ids: [rejected.approvalId] },
  });
  expect(reject.body.data).toEqual({ resolveApprovals: [{ approvalRequest: { status: 'rejected' } }] });

  for (const { runId } of approved) {
    const run = await runs.waitFor(runId);
    expect(run.status).toBe('completed');
    expect(run.toolCalls[0].status).toBe('succeeded');
    expect(run.reply).toMatch(/Invoice \d+ for 120\.50 USD was sent/);
  }
  const done = await runs.waitFor(rejected.runId);
  expect([done.status, done.toolCalls[0].status, done.toolCalls[0].errorCode]).toEqual(['completed', 'blocked', 'EXPERT_REJECTED']);
  // Exactly one invoice per approved run.
  expect(runs.vendorRequests('nango', isInvoiceCreate) - invoicesBefore).toBe(2);
});
