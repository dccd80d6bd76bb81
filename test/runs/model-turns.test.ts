import { useScriptedRuns } from './scripted-runs';
import { ERROR_CATALOG } from '../../src/errors/error-codes';
import { ScriptedModel, type ScriptedRequest } from '../support/scripted-model';
import { toolUseId, turn } from '../support/scripted-turn';
import { FINISHED, type RunClient, isInvoiceCreate, until, type Block, type RunView } from './run-helpers';
import { runtimeCaller } from '../../src/auth/caller';

/**
 * Issue 26, item 3: each tool_use of a model turn gets a tool_result of its own. Real runs
 * (GraphQL, the worker, the real SDK) against the scripted model, which plays the hostile
 * turns — an id given twice in one message, an id reused from an earlier turn, a turn cut
 * off at max_tokens inside a tool_use, input that is not an object — and checks that every
 * request it gets afterwards is one the Messages API would take (afterEach: assertClean).
 */
const model = new ScriptedModel();
const ROUNDS = 3;
const ENV = { ANTHROPIC_MODEL: 'claude-scripted-1', ANTHROPIC_MAX_RETRIES: '0', RUN_MAX_TOOL_ROUNDS: String(ROUNDS) };
const scripted = useScriptedRuns(model, ENV);
const demo = scripted.demo;
let runs: RunClient;
beforeAll(() => {
  runs = scripted.runs;
});

const LOOKUP = 'order_lookup__lookup';
const INVOICE = 'invoice__send';
const REUSED = ERROR_CATALOG.IDEMPOTENCY_KEY_REUSED.modelMessage;
const TRUNCATED = ERROR_CATALOG.TOOL_INPUT_TRUNCATED.modelMessage;
const INVALID = ERROR_CATALOG.INVALID_TOOL_INPUT.modelMessage;
const done = (text = 'Done.') => turn().text(text).stop('end_turn');

/** The blocks of a request's last message (the tool results the model was given). */
const lastBlocks = (request: ScriptedRequest) => request.messages.at(-1)!.content;
/** The run's tool calls with their ledger `tool_call.blocked` reason, in the order they were made. */
const blockedReasons = (run: RunView) =>
  run.ledgerEvents.filter((e) => e.type === 'tool_call.blocked').map((e) => [e.resourceId, (e.metadata as { reason: string }).reason]);
const toolUses = (run: RunView, position: number): Block[] => run.messages[position].content.filter((b) => b.type === 'tool_use');

describe('a tool_use id given twice in one message', () => {
  test('two order lookups: the first runs; the second is recorded blocked (IDEMPOTENCY_KEY_REUSED), never run, and answered with an error of its own', async () => {
    const id = toolUseId();
    const shopifyBefore = runs.vendorRequests('shopify');
    model.script(
      turn()
        .text('Looking up both orders.')
        .toolUse({ id, name: LOOKUP, input: { orderId: '12345' } })
        .toolUse({ id, name: LOOKUP, input: { orderId: '12346' } })
        .stop('tool_use'),
      done('Order #12345 shipped.'),
    );
    const run = await runs.complete('Where are orders #12345 and #12346?');

    expect(run.status).toBe('completed');
    expect(runs.vendorRequests('shopify')).toBe(shopifyBefore + 1);
    // They ran concurrently (RUN_TOOL_CONCURRENCY): told apart by content, not by creation order.
    const byOrder = (orderId: string) => run.toolCalls.find((c) => (c.input as { orderId?: string }).orderId === orderId)!;
    const [first, second] = [byOrder('12345'), byOrder('12346')];
    expect(run.toolCalls).toHaveLength(2);
    expect(first).toMatchObject({ toolName: 'order_lookup', status: 'succeeded', input: { orderId: '12345' } });
    expect(second).toMatchObject({
      toolName: 'order_lookup',
      status: 'blocked',
      errorCode: 'IDEMPOTENCY_KEY_REUSED',
      input: { orderId: '12346' },
      output: null,
    });
    expect(blockedReasons(run)).toEqual([[second.id, 'idempotency_key_reused']]);
    const blockedEvent = run.ledgerEvents.find((e) => e.type === 'tool_call.blocked')!;
    expect(blockedEvent.metadata).toMatchObject({ errorCode: 'IDEMPOTENCY_KEY_REUSED', toolUseId: id, duplicatedInMessage: true });

    // The repeat has an id of its own in the conversation, and its own (error) result; readers see each block with its own call.
    const uses = toolUses(run, 1);
    expect(uses.map((u) => u.id)).toEqual([id, `${id}__dup1`]);
    expect(uses.map((u) => u.input)).toEqual([{ orderId: '12345' }, { orderId: '12346' }]);
    const results = run.messages[2].content;
    expect(results.map((r) => r.tool_use_id)).toEqual([id, `${id}__dup1`]);
    expect(results[0].is_error).toBeUndefined();
    expect(results[1]).toEqual({ type: 'tool_result', tool_use_id: `${id}__dup1`, is_error: true, content: REUSED });
    expect(run.messages[1].blocks.slice(1)).toEqual([
      expect.objectContaining({ toolUseId: id, toolCallId: first.id, status: 'succeeded' }),
      expect.objectContaining({ toolUseId: `${id}__dup1`, toolCallId: second.id, status: 'blocked' }),
    ]);

    // What the model was given: the first lookup's order for the first id only.
    const given = lastBlocks(model.requests[1]);
    expect(given).toHaveLength(2);
    expect(JSON.parse(String(given[0].content))).toMatchObject({ orderNumber: '#12345' });
    expect(given[1]).toEqual({ type: 'tool_result', tool_use_id: `${id}__dup1`, is_error: true, content: REUSED });
    expect(model.requests).toHaveLength(2);
  });

  test('two invoices: one approval, one invoice sent once approved; the second is recorded blocked and never reaches approval or the vendor', async () => {
    const id = toolUseId();
    const invoicesBefore = runs.vendorRequests('nango', isInvoiceCreate);
    model.script(
      turn()
        .toolUse({ id, name: INVOICE, input: { customerId: '1', amount: 120.5 } })
        .toolUse({ id, name: INVOICE, input: { customerId: '1', amount: 99 } })
        .stop('tool_use'),
      done('The invoice for $120.50 was sent.'),
    );
    const { id: runId } = await runs.start('Invoice customer 1 for $120.50 and $99');
    const waiting = await runs.waitFor(runId, ['waiting_approval']);
    expect(waiting.pendingApprovalCount).toBe(1);
    // The two run concurrently (RUN_TOOL_CONCURRENCY): told apart by content, not by creation order.
    const byAmount = (calls: typeof waiting.toolCalls, amount: number) => calls.find((c) => (c.input as { amount?: number }).amount === amount)!;
    const [asked, repeat] = [byAmount(waiting.toolCalls, 120.5), byAmount(waiting.toolCalls, 99)];
    expect(asked).toMatchObject({ status: 'waiting_approval', input: { customerId: '1', amount: 120.5 }, approvalRequest: { status: 'pending' } });
    expect(repeat).toMatchObject({
      status: 'blocked',
      errorCode: 'IDEMPOTENCY_KEY_REUSED',
      input: { customerId: '1', amount: 99 },
      approvalRequest: null,
    });
    expect(await runs.count('approval_requests', 'tool_call_id in (select id from tool_calls where run_id = ?)', [runId])).toBe(1);

    expect((await runs.resolve(asked.approvalRequest!.id, 'APPROVE')).body.errors).toBeUndefined();
    const run = await runs.waitFor(runId);
    expect(run.status).toBe('completed');
    expect(runs.vendorRequests('nango', isInvoiceCreate)).toBe(invoicesBefore + 1);
    expect([byAmount(run.toolCalls, 120.5).status, byAmount(run.toolCalls, 99).status]).toEqual(['succeeded', 'blocked']);
    const given = lastBlocks(model.requests[1]);
    expect(given.map((b) => [b.tool_use_id, b.is_error ?? false])).toEqual([
      [id, false],
      [`${id}__dup1`, true],
    ]);
    expect(JSON.parse(String(given[0].content))).toMatchObject({ totalAmount: 120.5 });
    expect(given[1].content).toBe(REUSED);
  });
});

describe('a tool_use id reused from an earlier turn', () => {
  test.each([
    ['with new input', { orderId: '12346' }],
    ['with the same input', { orderId: '12345' }],
  ])('%s: nothing runs for it; it is recorded blocked and answered with an error, never the earlier call’s result', async (_label, input) => {
    const id = toolUseId();
    const shopifyBefore = runs.vendorRequests('shopify');
    model.script(
      turn()
        .toolUse({ id, name: LOOKUP, input: { orderId: '12345' } })
        .stop('tool_use'),
      turn().text('And the other one.').toolUse({ id, name: LOOKUP, input }).stop('tool_use'),
      done(),
    );
    const run = await runs.complete('Where are my orders?');

    expect(run.status).toBe('completed');
    expect(runs.vendorRequests('shopify')).toBe(shopifyBefore + 1);
    expect(run.toolCalls.map((c) => [c.status, c.errorCode, c.input])).toEqual([
      ['succeeded', null, { orderId: '12345' }],
      ['blocked', 'IDEMPOTENCY_KEY_REUSED', input],
    ]);
    expect(blockedReasons(run)).toEqual([[run.toolCalls[1].id, 'idempotency_key_reused']]);
    expect(toolUses(run, 3).map((u) => u.id)).toEqual([`${id}__dup1`]);
    expect(lastBlocks(model.requests[2])).toEqual([{ type: 'tool_result', tool_use_id: `${id}__dup1`, is_error: true, content: REUSED }]);
  });
});

describe('a tool_use id the gateway finds naming another call', () => {
  // Defensive: the runtime never sends such a key itself (repeats get keys of their own), but
  // a call made with the id before the turn was stored (here, straight through the gateway) stands.
  test('the gateway refuses it (recorded, nothing runs); the runtime answers with the catalog sentence and goes on', async () => {
    const id = toolUseId();
    let runId: string | undefined;
    const shopifyBefore = runs.vendorRequests('shopify');
    model.script(async () => {
      // The first model request goes out with the run.started transaction: the call waits for it.
      await until(async () => runId !== undefined && (await runs.get(runId)).status === 'running', 'the run to be running');
      const params = { orderId: '12345' };
      const caller = runtimeCaller(demo.seed.orgId);
      await demo.app.services.gateway.execute({
        runId: runId!,
        toolName: 'order_lookup',
        action: 'lookup',
        params,
        correlationId: 'test',
        toolUseId: id,
        caller,
      });
      return turn()
        .toolUse({ id, name: LOOKUP, input: { orderId: '12346' } })
        .stop('tool_use');
    }, done());
    runId = (await runs.start('Where is order #12346?')).id;
    const run = await runs.waitFor(runId);

    expect(run.status).toBe('completed');
    expect(runs.vendorRequests('shopify')).toBe(shopifyBefore + 1);
    expect(run.toolCalls.map((c) => [c.status, c.errorCode, c.input])).toEqual([
      ['succeeded', null, { orderId: '12345' }],
      ['blocked', 'IDEMPOTENCY_KEY_REUSED', { orderId: '12346' }],
    ]);
    expect(lastBlocks(model.requests[1])).toEqual([{ type: 'tool_result', tool_use_id: id, is_error: true, content: REUSED }]);
  });
});

describe('a tool_use cut off at max_tokens', () => {
  test('inside an invoice: nothing is sent or approved; recorded blocked TOOL_INPUT_TRUNCATED; the model is told and the run goes on to its next turn', async () => {
    const cut = toolUseId();
    const invoicesBefore = runs.vendorRequests('nango');
    model.script(
      // The recipient was being written: the SDK's partial parse drops it.
      turn()
        .text('Sending the invoice.')
        .toolUse({ id: cut, name: INVOICE, json: '{"customerId":"1","amount":120.5,"email":"billing@exam', count: 4 })
        .stop('max_tokens'),
      done('I could not finish the invoice; please ask again.'),
    );
    const { id: runId } = await runs.start('Invoice customer 1 for $120.50 to billing@example.com');
    const run = await runs.waitFor(runId, ['waiting_approval', ...FINISHED]);

    expect(run.status).toBe('completed');
    expect(run.reply).toContain('could not finish');
    expect(runs.vendorRequests('nango')).toBe(invoicesBefore);
    expect(await runs.count('approval_requests', 'tool_call_id in (select id from tool_calls where run_id = ?)', [run.id])).toBe(0);
    expect(run.pendingApprovalCount).toBe(0);
    expect(run.toolCalls).toHaveLength(1);
    expect(run.toolCalls[0]).toMatchObject({ toolName: 'invoice', status: 'blocked', errorCode: 'TOOL_INPUT_TRUNCATED', approvalRequest: null });
    expect(blockedReasons(run)).toEqual([[run.toolCalls[0].id, 'tool_input_truncated']]);
    expect(run.ledgerEvents.map((e) => e.type)).not.toContain('tool_call.approval_requested');

    // The next request holds the cut-off call as an object and its error result, after it.
    const next = model.requests[1];
    expect(next.messages.at(-2)!.content.at(-1)).toEqual({ type: 'tool_use', id: cut, name: INVOICE, input: { customerId: '1', amount: 120.5 } });
    expect(lastBlocks(next)).toEqual([{ type: 'tool_result', tool_use_id: cut, is_error: true, content: TRUNCATED }]);
  });

  test('turn after turn: bounded like tool rounds (TOOL_ROUND_LIMIT), nothing ever sent', async () => {
    const invoicesBefore = runs.vendorRequests('nango');
    for (let i = 0; i <= ROUNDS; i++) model.script(turn().toolUse({ name: INVOICE, json: '{"customerId":"1","amou' }).stop('max_tokens'));
    const run = await runs.complete('Invoice customer 1 for $120.50');

    expect(run).toMatchObject({ status: 'failed', errorCode: 'TOOL_ROUND_LIMIT' });
    expect(model.requests).toHaveLength(ROUNDS + 1);
    expect(runs.vendorRequests('nango')).toBe(invoicesBefore);
    expect(run.toolCalls.map((c) => c.errorCode)).toEqual(Array(ROUNDS).fill('TOOL_INPUT_TRUNCATED'));
  });
});

describe('tool input that is not a JSON object', () => {
  test.each([
    ['a list', '["12345"]'],
    ['a string', '"12345"'],
  ])('%s: recorded blocked INVALID_TOOL_INPUT, never run; sent back as an object input with its error result', async (_label, json) => {
    const id = toolUseId();
    const shopifyBefore = runs.vendorRequests('shopify');
    model.script(turn().toolUse({ id, name: LOOKUP, json }).stop('tool_use'), done('Which order?'));
    const run = await runs.complete('Where is my order?');

    expect(run.status).toBe('completed');
    expect(runs.vendorRequests('shopify')).toBe(shopifyBefore);
    expect(run.toolCalls).toHaveLength(1);
    expect(run.toolCalls[0]).toMatchObject({ status: 'blocked', errorCode: 'INVALID_TOOL_INPUT', input: JSON.parse(json) });
    expect(blockedReasons(run)).toEqual([[run.toolCalls[0].id, 'invalid_tool_input']]);
    const next = model.requests[1];
    expect(next.messages.at(-2)!.content).toEqual([{ type: 'tool_use', id, name: LOOKUP, input: {} }]);
    // The catalog sentence, then what failed (issue 28, item 7).
    expect(lastBlocks(next)).toEqual([{ type: 'tool_result', tool_use_id: id, is_error: true, content: `${INVALID}: / must be a JSON object` }]);
  });
});

describe('the tool-round limit', () => {
  test('the turn past it is answered (not run), so that a posted message continues a conversation the API takes', async () => {
    const ids = Array.from({ length: ROUNDS + 1 }, () => toolUseId());
    for (const id of ids)
      model.script(
        turn()
          .toolUse({ id, name: LOOKUP, input: { orderId: '12345' } })
          .stop('tool_use'),
      );
    const failed = await runs.complete('Where is my order #12345?');

    expect(failed).toMatchObject({ status: 'failed', errorCode: 'TOOL_ROUND_LIMIT' });
    expect(failed.toolCalls).toHaveLength(ROUNDS);
    expect(failed.messages.at(-1)!.content).toEqual([
      { type: 'tool_result', tool_use_id: ids[ROUNDS], is_error: true, content: expect.stringContaining('limit of tool rounds') },
    ]);

    model.script(done('It shipped with UPS.'));
    expect((await runs.postMessage(failed.id, 'So, where is it?')).body.errors).toBeUndefined();
    const run = await runs.waitFor(failed.id);
    expect(run.status).toBe('completed');
    expect(run.toolCalls).toHaveLength(ROUNDS);
    // One user turn: the result of the call past the limit first, then the posted text.
    expect(lastBlocks(model.requests[ROUNDS + 1]).map((b) => [b.type, b.tool_use_id ?? b.text])).toEqual([
      ['tool_result', ids[ROUNDS]],
      ['text', 'So, where is it?'],
    ]);
  });
});
