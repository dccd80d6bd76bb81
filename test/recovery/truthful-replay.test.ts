import { useDemoApp } from '../support/demo-fixture';
import { appendMessage, type StoredBlock } from '../../src/runs/run-messages';
import { startRun } from '../../src/runs/run-state';
import { modelToolName } from '../../src/llm/tool-definitions';
import { runtimeCaller } from '../../src/auth/caller';
import { RunClient } from '../runs/run-helpers';

/**
 * The model is told the truth: a call that succeeded at the vendor, whose result never
 * reached the run's messages (the node died in between), is given to the model as
 * succeeded with the stored (redacted) result when the run continues — never as an error.
 * Steps are taken one at a time (no worker).
 */
let runs: RunClient;
const demo = useDemoApp({ ANTHROPIC_MODEL: 'claude-offline-1', ANTHROPIC_MAX_RETRIES: '0' }, { sandboxes: true, offlineModel: true });
beforeAll(async () => {
  runs = new RunClient(demo.app, demo.seed);
});

test('a succeeded call missing from the messages is replayed to the model as succeeded, with its stored result', async () => {
  const { id } = await runs.start("What's the status of my order #12345?");
  const toolUseId = 'toolu_interrupted_1';
  // The first turn, as a node that then died had made it: the model asked for the lookup,
  // the gateway ran it (succeeded at Shopify), and the tool result was never stored.
  await demo.app.em().transactional(async (tx) => {
    await startRun(tx, { id, orgId: demo.seed.orgId });
    appendMessage(tx, { id, orgId: demo.seed.orgId }, 1, 'assistant', [
      { type: 'tool_use', id: toolUseId, name: modelToolName('order_lookup', 'lookup'), input: { orderId: '12345' } },
    ]);
    await tx.flush();
  });
  const first = await demo.app.services.gateway.execute({
    runId: id,
    toolName: 'order_lookup',
    action: 'lookup',
    params: { orderId: '12345' },
    correlationId: 'c-1',
    toolUseId,
    caller: runtimeCaller(demo.seed.orgId),
  });
  expect(first.status).toBe('succeeded');
  const shopifyCalls = runs.vendorRequests('shopify');

  await demo.app.services.runtime.step(id); // on "another node", after the restart

  const run = await runs.get(id);
  expect(run.status).toBe('completed');
  const [stored] = await demo.app
    .em()
    .execute<{ content: StoredBlock[] }[]>('select content from run_messages where run_id = ? and position = 2', [id]);
  const result = stored.content[0];
  expect(result).toMatchObject({ type: 'tool_result', tool_use_id: toolUseId });
  expect(result.is_error).toBeUndefined();
  expect(JSON.parse(String(result.content))).toMatchObject({ trackingNumbers: ['TRACK-001'] });
  expect(run.reply).toMatch(/TRACK-001/);
  // The call ran once: the replay did not go back to Shopify.
  expect(runs.vendorRequests('shopify')).toBe(shopifyCalls);
  expect(run.toolCalls).toHaveLength(1);
});

test('a call approved before the run stored its pending result is executed by the next step, once (no hang)', async () => {
  const { id } = await runs.start('Please send an invoice for $120.50 to customer 1');
  const toolUseId = 'toolu_interrupted_2';
  // A node recorded the call (waiting for an expert) and died before storing the pending result.
  await demo.app.em().transactional(async (tx) => {
    await startRun(tx, { id, orgId: demo.seed.orgId });
    appendMessage(tx, { id, orgId: demo.seed.orgId }, 1, 'assistant', [
      { type: 'tool_use', id: toolUseId, name: modelToolName('invoice', 'send'), input: { customerId: '1', amount: 120.5 } },
    ]);
    await tx.flush();
  });
  const waiting = await demo.app.services.gateway.execute({
    runId: id,
    toolName: 'invoice',
    action: 'send',
    params: { customerId: '1', amount: 120.5 },
    correlationId: 'c-2',
    toolUseId,
    caller: runtimeCaller(demo.seed.orgId),
  });
  expect(waiting.status).toBe('waiting_approval');
  // The expert approves before any step of the run ran again.
  const approved = await demo.app.gql('mutation($id: ID!) { resolveApproval(id: $id, decision: APPROVE) { status } }', {
    key: demo.seed.keys.expert,
    variables: { id: waiting.approvalRequestId },
  });
  expect(approved.body.data?.resolveApproval.status).toBe('approved');
  const invoicesBefore = demo.app.sandbox!.requests.filter((r) => r.method === 'POST' && /\/invoice$/.test(r.path)).length;

  await demo.app.services.runtime.step(id);

  const run = await runs.get(id);
  expect(run.status).toBe('completed');
  expect(run.toolCalls.map((c) => c.status)).toEqual(['succeeded']);
  expect(demo.app.sandbox!.requests.filter((r) => r.method === 'POST' && /\/invoice$/.test(r.path)).length).toBe(invoicesBefore + 1);
  expect(run.reply).toMatch(/Invoice \d+/);
});
