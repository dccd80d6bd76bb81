import { useDemoApp } from '../support/demo-fixture';
import { ERROR_CATALOG } from '../../src/errors/error-codes';
import { ScriptedModel, type ScriptedRequest } from '../support/scripted-model';
import { toolUseId, turn } from '../support/scripted-turn';
import { FINISHED, RunClient, isInvoiceCreate, type Block, type RunView } from './run-helpers';

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
const demo = useDemoApp(ENV, { sandboxes: true, scriptedModel: model, worker: true });
let runs: RunClient;
beforeAll(() => {
  runs = new RunClient(demo.app, demo.seed);
});
afterEach(() => {
  try {
    model.assertClean();
  } finally {
    model.reset();
  }
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
