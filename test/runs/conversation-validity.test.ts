import { useScriptedRuns } from './scripted-runs';
import { ScriptedModel } from '../support/scripted-model';
import { toolUseId, turn } from '../support/scripted-turn';
import { type RunClient, until, type RunView } from './run-helpers';
import { resumeOrg, suspendOrg } from '../../src/orgs/org-suspension.service';

/**
 * Issue 28, item 1: whatever a run went through, the conversation a posted message continues
 * is one the Messages API takes. The scripted model checks every request (roles, non-empty
 * content, each tool_use answered in order, object inputs, visible text, thinking unchanged)
 * and answers a bad one 400; afterEach fails the test on any such request.
 */
const model = new ScriptedModel();
const ENV = {
  ANTHROPIC_MODEL: 'claude-scripted-1',
  ANTHROPIC_MAX_RETRIES: '0',
  RUN_MAX_TOOL_ROUNDS: '3',
  RUN_MAX_TOOL_ROUNDS_TOTAL: '4',
};
const scripted = useScriptedRuns(model, ENV);
const demo = scripted.demo;
let runs: RunClient;
beforeAll(() => {
  runs = scripted.runs;
});

const LOOKUP = 'order_lookup__lookup';
const lookup = (id = toolUseId()) =>
  turn()
    .toolUse({ id, name: LOOKUP, input: { orderId: '12345' } })
    .stop('tool_use');
const done = (text = 'Done.') => turn().text(text).stop('end_turn');

/** Posts a message to a finished run and waits for the run to finish again. */
async function continueWith(run: RunView, text: string): Promise<RunView> {
  const posted = await runs.postMessage(run.id, text);
  expect(posted.body.errors).toBeUndefined();
  return runs.waitFor(run.id);
}

describe('a posted message continues a conversation the API takes', () => {
  test.each([
    ['a blocked call (not in the manifest)', () => [turn().toolUse({ name: 'payroll__run', input: {} }).stop('tool_use'), done('I cannot do that.')]],
    ['input cut off at max_tokens', () => [turn().toolUse({ name: LOOKUP, json: '{"orderId":"123' }).stop('max_tokens'), done('Please ask again.')]],
    ['input that is not an object', () => [turn().toolUse({ name: LOOKUP, json: '["12345"]' }).stop('tool_use'), done('Which order?')]],
    // The API refuses a text block of whitespace only; a model may stream one before a tool_use.
    [
      'a whitespace-only text block before a tool_use',
      () => [
        turn()
          .text('\n\n', 1)
          .toolUse({ name: LOOKUP, input: { orderId: '12345' } })
          .stop('tool_use'),
        done('Shipped.'),
      ],
    ],
    // An empty end_turn stores an assistant message without content: never sent as such.
    ['an empty answer', () => [turn().stop('end_turn')]],
  ])('after %s', async (_label, script) => {
    model.script(...script());
    const first = await runs.complete('Where is my order #12345?');
    expect(first.status).toBe('completed');

    model.script(done('It shipped with UPS.'));
    const run = await continueWith(first, 'And now?');
    expect(run.status).toBe('completed');
    expect(run.reply).toBe('It shipped with UPS.');
    const last = model.requests.at(-1)!;
    expect(last.problems).toEqual([]);
    expect(last.messages.at(-1)!.content.at(-1)).toEqual({ type: 'text', text: 'And now?' });
  });

  test('after the run failed before it ran the tools of its last turn (the org was suspended): they are answered, not run', async () => {
    const id = toolUseId();
    const shopifyBefore = runs.vendorRequests('shopify');
    model.script(async () => {
      await suspendOrg(demo.app.em(), demo.seed.orgId, 'test');
      return lookup(id);
    });
    const { id: runId } = await runs.start('Where is my order #12345?');
    // The org's keys are refused while it is suspended: its run is read from the database.
    try {
      await until(async () => (await runs.count('agent_runs', "id = ? and status = 'failed'", [runId])) === 1, 'the run to fail');
    } finally {
      await resumeOrg(demo.app.em(), demo.seed.orgId);
    }
    const failed = await runs.get(runId);
    expect(failed).toMatchObject({ status: 'failed', errorCode: 'ORG_SUSPENDED' });
    expect(failed.messages.at(-1)!.content.map((b) => b.type)).toEqual(['tool_use']);

    model.script(done('It shipped with UPS.'));
    const run = await continueWith(failed, 'Try again please.');
    expect(run.status).toBe('completed');
    expect(runs.vendorRequests('shopify')).toBe(shopifyBefore);
    expect(run.messages.at(-2)!.content).toEqual([
      { type: 'tool_result', tool_use_id: id, is_error: true, content: expect.stringContaining('Not run') },
      { type: 'text', text: 'Try again please.' },
    ]);
    expect(model.requests.at(-1)!.problems).toEqual([]);
  });
});

describe('RUN_MAX_TOOL_ROUNDS_TOTAL: tool rounds per run, beside those per message', () => {
  test('messages posted one after another cannot take the run past it; its last turn is answered, not run', async () => {
    model.script(lookup(), lookup(), done('Shipped.'));
    const first = await runs.complete('Where is my order #12345?');
    expect(first.status).toBe('completed');

    const past = toolUseId();
    const shopifyBefore = runs.vendorRequests('shopify');
    model.script(lookup(), lookup(), lookup(past));
    const failed = await continueWith(first, 'And again?');
    expect(failed).toMatchObject({
      status: 'failed',
      errorCode: 'TOOL_ROUND_LIMIT',
      errorMessage: expect.stringContaining('4 tool rounds in this run'),
    });
    // Two rounds of this message ran (4 in the run); the fifth was answered, never run.
    expect(runs.vendorRequests('shopify')).toBe(shopifyBefore + 2);
    expect(failed.messages.at(-1)!.content).toEqual([
      { type: 'tool_result', tool_use_id: past, is_error: true, content: expect.stringContaining('limit of tool rounds') },
    ]);
  });
});

describe('input that fails the tool’s schema (issue 28, item 7)', () => {
  test('the model is told which field failed and why, never the value it sent', async () => {
    const id = toolUseId();
    const secret = 'card 4111 1111 1111 1111';
    model.script(
      turn()
        .toolUse({ id, name: LOOKUP, input: { orderId: 12345, note: secret } })
        .stop('tool_use'),
      done('Let me fix that.'),
    );
    const run = await runs.complete('Where is my order #12345?');

    expect(run.toolCalls[0]).toMatchObject({ status: 'blocked', errorCode: 'INVALID_TOOL_INPUT' });
    const told = String(model.requests[1].messages.at(-1)!.content[0].content);
    expect(told).toMatch(/^The tool input was invalid: /);
    expect(told).toContain('/orderId must be string');
    expect(told).toContain('must NOT have additional properties');
    expect(told).not.toContain('12345');
    expect(told).not.toContain(secret);
  });

  test('input that is not an object: the model is told the input must be a JSON object', async () => {
    model.script(turn().toolUse({ name: LOOKUP, json: '"12345"' }).stop('tool_use'), done('Which order?'));
    await runs.complete('Where is my order?');
    expect(model.requests[1].messages.at(-1)!.content[0].content).toBe('The tool input was invalid: / must be a JSON object');
  });
});
