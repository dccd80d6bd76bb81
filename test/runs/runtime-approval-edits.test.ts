import { graphql } from '../gql';
import { startTestApp, type TestApp } from '../support/app';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { seedDemo, type SeedResult } from '../../src/seed/demo-seed';
import { EDITED_NOTICE } from '../../src/gateway/edited-notice';
import { RunClient, isInvoiceCreate, types } from './run-helpers';

/**
 * Approve with edits in a run of Toolgate's own runtime. The resolution and the edit commit
 * together, with the run's next step queued; a node that dies right after that commit (the
 * chaos harness's `after_approval` point) leaves exactly this in PostgreSQL. Here the node
 * that resolves has no worker, so the step waits in the queue as it would after the crash;
 * a new server takes it and runs the call with the edited params, and the model is told they
 * were changed.
 */
const ENV = { ANTHROPIC_MODEL: 'claude-offline-1' };

const APPROVE_EDITED = graphql(`
  mutation RuntimeApproveEdited($id: ID!, $editedParams: JSONObject) {
    resolveApproval(id: $id, decision: APPROVE, editedParams: $editedParams) { id status edited editedParams }
  }
`);

let db: TestDatabase;
let app: TestApp;
let seed: SeedResult;
const serve = (worker: boolean) => startTestApp(ENV, { sandboxes: true, offlineModel: true, worker, database: db });

beforeAll(async () => {
  db = await createTestDatabase();
  app = await serve(true);
  seed = await seedDemo(app.em(), app.masterKey);
}, 120_000);
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

test('edited while no worker runs (as after a crash right after the commit): the next server runs the edited call and the model is told', async () => {
  let runs = new RunClient(app, seed);
  const started = await runs.start('Please send an invoice for $120.50 to customer 1');
  const waiting = await runs.waitFor(started.id, ['waiting_approval']);
  await runs.jobsDone(waiting.id);
  const approvalId = waiting.toolCalls[0].approvalRequest!.id;

  // A node without a worker resolves: the step it queues is not taken here.
  await app.close();
  app = await serve(false);
  runs = new RunClient(app, seed);
  const edited = { customerId: '1', amount: 99 };
  const res = await app.gql(APPROVE_EDITED, { key: seed.keys.expert, variables: { id: approvalId, editedParams: edited } });
  expect(res.body.data?.resolveApproval).toEqual({ id: approvalId, status: 'approved', edited: true, editedParams: edited });
  const pending = await runs.get(waiting.id);
  expect(pending.toolCalls[0]).toMatchObject({ status: 'approved', input: { customerId: '1', amount: 120.5 } });
  expect(await runs.jobsOf(waiting.id)).toBe(1);
  expect(runs.vendorRequests('nango', isInvoiceCreate)).toBe(0);

  // The next server (with a worker) takes the queued step.
  await app.close();
  app = await serve(true);
  runs = new RunClient(app, seed);
  const run = await runs.waitFor(waiting.id);
  expect(run.status).toBe('completed');
  expect(run.toolCalls[0]).toMatchObject({ status: 'succeeded', input: { customerId: '1', amount: 120.5 } });
  const invoices = app.sandbox!.requests.filter((r) => r.vendor === 'nango' && isInvoiceCreate(r));
  expect(invoices).toHaveLength(1);
  expect((invoices[0].body as { Line: { Amount: number }[] }).Line[0].Amount).toBe(99);
  expect(types(run).filter((t) => t === 'tool_call.succeeded')).toHaveLength(1);

  // What the model saw (the stored conversation): the notice, the params it ran with, the result.
  const [stored] = await app
    .em()
    .execute<{ content: { type: string; content: string }[] }[]>('select content from run_messages where run_id = ? and position = 2', [run.id]);
  const told = JSON.parse(stored.content[0].content);
  expect(told).toMatchObject({ notice: EDITED_NOTICE, editedParams: edited, result: { totalAmount: 99, customerId: '1' } });
  // The model's answer names the amount that was sent, not the one it asked for.
  expect(run.reply).toMatch(/Invoice \S+ for 99\.00( USD)? was sent to Birds@Intuit\.com\./);
  expect(run.reply).not.toContain('120.50');
}, 120_000);
