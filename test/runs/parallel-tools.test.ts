import { useScriptedRuns } from './scripted-runs';
import { ScriptedModel } from '../support/scripted-model';
import { toolUseId, turn } from '../support/scripted-turn';
import { type RunClient, isInvoiceCreate, until } from './run-helpers';

/**
 * Issue 28, item 4: the tool_use blocks of one assistant message run concurrently (bounded
 * by RUN_TOOL_CONCURRENCY and NODE_TOOL_CONCURRENCY), each through the gateway as before;
 * a call that needs approval is recorded while the others still run; the results are one
 * user message in the message's order. Real runs against the scripted model, the Shopify
 * sandbox answering each order lookup after 1.5 s (its injected `slow` fault).
 */
const model = new ScriptedModel();
const scripted = useScriptedRuns(model);
let runs: RunClient;
beforeAll(() => {
  runs = scripted.runs;
});
afterEach(() => scripted.demo.app.sandbox!.clearFaults());

const LOOKUP = 'order_lookup__lookup';
const INVOICE = 'invoice__send';
const VENDOR_LATENCY_MS = 1500;
const ORDERS = ['12345', '12346', '12347'];

/** When a run's first tool-result message was stored (the step's tool round ended), or null. */
async function toolRoundStored(runId: string): Promise<boolean> {
  return (await runs.count('run_messages', "run_id = ? and role = 'user' and position = 2", [runId])) === 1;
}

async function dbTimes(runId: string): Promise<{ approvalCreated: Date; lookupsSettled: Date[] }> {
  const em = scripted.demo.app.em();
  const [approval] = await em.execute<{ created_at: Date }[]>('select created_at from approval_requests where run_id = ?', [runId]);
  const settled = await em.execute<{ created_at: Date }[]>(
    `select e.created_at from ledger_events e join tool_calls c on c.id::text = e.resource_id::text
      where e.run_id = ? and e.type = 'tool_call.succeeded' and c.tool_name = 'order_lookup' order by e.created_at`,
    [runId],
  );
  return { approvalCreated: new Date(approval.created_at), lookupsSettled: settled.map((r) => new Date(r.created_at)) };
}

describe('parallel tool use', () => {
  test('three 1.5 s lookups and an invoice in one message: the lookups overlap (< 2.5 s), the approval is raised while they run, results in message order', async () => {
    scripted.demo.app.sandbox!.injectFault('shopify', { kind: 'slow', delayMs: VENDOR_LATENCY_MS }, { times: 3, pathIncludes: 'graphql' });
    scripted.demo.app.sandbox!.resetPeaks();
    const ids = [...ORDERS.map(() => toolUseId()), toolUseId()];
    let served = 0;
    model.script(() => {
      served = Date.now();
      return turn()
        .text('Looking up your three orders and sending the invoice.')
        .toolUse({ id: ids[0], name: LOOKUP, input: { orderId: ORDERS[0] } })
        .toolUse({ id: ids[1], name: LOOKUP, input: { orderId: ORDERS[1] } })
        .toolUse({ id: ids[2], name: LOOKUP, input: { orderId: ORDERS[2] } })
        .toolUse({ id: ids[3], name: INVOICE, input: { customerId: '1', amount: 120.5 } })
        .stop('tool_use');
    }, turn().text('All three orders found; the invoice was sent.').stop('end_turn'));
    const { id } = await runs.start('Where are orders #12345, #12346 and #12347? And invoice customer 1 for $120.50.');
    await until(() => toolRoundStored(id), 'the tool round to be stored', 15_000);
    const elapsed = Date.now() - served;

    // Sequential calls take 3 × 1.5 s = 4.5 s; concurrent ones about 1.5 s. Overlap is
    // shown by the sandbox (all three held at once), not by the clock, which a loaded
    // machine stretches.
    expect(elapsed).toBeGreaterThanOrEqual(VENDOR_LATENCY_MS);
    expect(scripted.demo.app.sandbox!.peakInFlight('shopify')).toBe(3);

    const { approvalCreated, lookupsSettled } = await dbTimes(id);
    expect(lookupsSettled).toHaveLength(3);
    // Raised while the lookups still ran: before the first of them finished.
    expect(approvalCreated.getTime()).toBeLessThan(lookupsSettled[0].getTime());

    const waiting = await runs.waitFor(id, ['waiting_approval']);
    expect(waiting.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    // One user message, each result answering its tool_use in the message's order; the invoice's is pending.
    expect(waiting.messages[2].content.map((b) => b.tool_use_id)).toEqual(ids);
    expect(waiting.messages[2].blocks.map((b) => ('pending' in b ? b.pending : null))).toEqual([false, false, false, true]);
    expect(ORDERS.every((order, i) => String(waiting.messages[2].content[i].content).includes(order))).toBe(true);
    // The calls were created concurrently: their creation order (the list's) is not the message's.
    expect(waiting.toolCalls.map((c) => `${c.toolName} ${c.status}`).sort()).toEqual([
      'invoice waiting_approval',
      'order_lookup succeeded',
      'order_lookup succeeded',
      'order_lookup succeeded',
    ]);

    await runs.jobsDone(id);
    const approval = waiting.toolCalls.find((c) => c.toolName === 'invoice')!.approvalRequest!.id;
    expect((await runs.resolve(approval, 'APPROVE')).body.errors).toBeUndefined();
    const run = await runs.waitFor(id);
    expect(run).toMatchObject({ status: 'completed', reply: 'All three orders found; the invoice was sent.' });
    // The model got all four results, in its tool_use order, the invoice's filled in.
    const results = model.requests[1].messages.at(-1)!.content;
    expect(results.map((b) => b.tool_use_id)).toEqual(ids);
    expect(results.every((b) => b.type === 'tool_result' && !b.is_error)).toBe(true);
  });

  test('two invoices approved in one message run concurrently after the approvals; each runs once, results in message order', async () => {
    // Each invoice creation answers after 1.5 s: one after the other would take 3 s.
    scripted.demo.app.sandbox!.injectFault('nango', { kind: 'slow', delayMs: VENDOR_LATENCY_MS }, { times: 2, pathIncludes: '/invoice' });
    scripted.demo.app.sandbox!.resetPeaks();
    const ids = [toolUseId(), toolUseId()];
    let resumed = 0;
    model.script(
      turn()
        .toolUse({ id: ids[0], name: INVOICE, input: { customerId: '1', amount: 120.5 } })
        .toolUse({ id: ids[1], name: INVOICE, input: { customerId: '2', amount: 80 } })
        .stop('tool_use'),
      () => {
        resumed = Date.now();
        return turn().text('Both invoices were sent.').stop('end_turn');
      },
    );
    const invoicesBefore = runs.vendorRequests('nango', isInvoiceCreate);
    const { id } = await runs.start('Invoice customer 1 for $120.50 and customer 2 for $80.');
    const waiting = await runs.waitFor(id, ['waiting_approval']);
    await runs.jobsDone(id);
    expect(waiting.toolCalls.map((c) => c.status)).toEqual(['waiting_approval', 'waiting_approval']);
    expect((await runs.resolve(waiting.toolCalls[0].approvalRequest!.id, 'APPROVE')).body.errors).toBeUndefined();
    const approved = Date.now();
    expect((await runs.resolve(waiting.toolCalls[1].approvalRequest!.id, 'APPROVE')).body.errors).toBeUndefined();
    const run = await runs.waitFor(id);

    expect(run).toMatchObject({ status: 'completed', reply: 'Both invoices were sent.' });
    expect(runs.vendorRequests('nango', isInvoiceCreate)).toBe(invoicesBefore + 2);
    expect(run.toolCalls.map((c) => c.status)).toEqual(['succeeded', 'succeeded']);
    expect(resumed - approved).toBeGreaterThanOrEqual(VENDOR_LATENCY_MS);
    // Both creations were held by the sandbox at once (one after the other would be 1).
    expect(scripted.demo.app.sandbox!.peakInFlight('nango')).toBe(2);
    const results = model.requests[1].messages.at(-1)!.content;
    expect(results.map((b) => b.tool_use_id)).toEqual(ids);
    expect(results.every((b) => b.type === 'tool_result' && !b.is_error)).toBe(true);
  });
});
