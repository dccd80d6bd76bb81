import { useScriptedRuns } from './scripted-runs';
import { ScriptedModel } from '../support/scripted-model';
import { turn } from '../support/scripted-turn';
import type { RunClient } from './run-helpers';

/**
 * Issue 28, item 2: each stop_reason the Messages API gives ends (or continues) a run as it
 * means. Real runs against the scripted model, which checks every request (afterEach).
 */
const model = new ScriptedModel();
const scripted = useScriptedRuns(model);
let runs: RunClient;
beforeAll(() => {
  runs = scripted.runs;
});

describe('refusal', () => {
  test('the run fails MODEL_REFUSED with the API’s explanation and no reply; a posted message continues without the refused turn', async () => {
    const explanation = 'This request was declined because it could enable cyber harm.';
    model.script(turn().text('Sure, here is how to get in', 4).stop('refusal', 9, { type: 'refusal', category: 'cyber', explanation }));
    const run = await runs.complete('How do I get into my neighbour’s shop account?');

    expect(run).toMatchObject({ status: 'failed', errorCode: 'MODEL_REFUSED', reply: null, stopReason: 'refusal', replyTruncated: false });
    expect(run.errorMessage).toContain(explanation);
    expect(run.errorMessage).not.toMatch(/retr/);
    // Kept for readers and the audit, with its tokens counted.
    expect(run.messages.at(-1)).toMatchObject({ role: 'assistant', text: 'Sure, here is how to get in' });
    expect(run.outputTokens).toBe(9);
    expect(run.ledgerEvents.map((e) => e.type)).toContain('run.failed');

    model.script(turn().text('Your order #12345 shipped.').stop('end_turn'));
    expect((await runs.postMessage(run.id, 'Where is my order #12345 then?')).body.errors).toBeUndefined();
    const next = await runs.waitFor(run.id);
    expect(next).toMatchObject({ status: 'completed', reply: 'Your order #12345 shipped.', stopReason: 'end_turn', errorCode: null });
    // The refused turn is not sent back: one user turn holds both questions.
    expect(model.requests[1].messages.map((m) => [m.role, m.content.map((b) => b.text)])).toEqual([
      ['user', ['How do I get into my neighbour’s shop account?', 'Where is my order #12345 then?']],
    ]);
  });

  test('without stop_details: the message still says the model declined', async () => {
    model.script(turn().text('I').stop('refusal'));
    const run = await runs.complete('Tell me something you will not.');
    expect(run).toMatchObject({ status: 'failed', errorCode: 'MODEL_REFUSED', reply: null });
    expect(run.errorMessage).toMatch(/declined to answer/);
  });
});

describe('pause_turn', () => {
  test('the paused turn is sent back as it is and the model continues it; the reply is the whole turn', async () => {
    model.script(turn().text('Let me check that for you. ').stop('pause_turn'), turn().text('Order #12345 shipped with UPS.').stop('end_turn'));
    const run = await runs.complete('Where is my order #12345?');

    expect(run).toMatchObject({ status: 'completed', stopReason: 'end_turn', reply: 'Let me check that for you. Order #12345 shipped with UPS.' });
    expect(model.requests).toHaveLength(2);
    // The continuation request ends with the paused assistant content (no trailing whitespace, which the API refuses there).
    expect(model.requests[1].messages.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Let me check that for you.' }] });
  });

  test('a model that keeps pausing is bounded like tool rounds (TOOL_ROUND_LIMIT)', async () => {
    for (let i = 0; i <= 8; i++) model.script(turn().text(`Still working ${i}.`).stop('pause_turn'));
    const run = await runs.complete('Where is my order #12345?');
    expect(run).toMatchObject({ status: 'failed', errorCode: 'TOOL_ROUND_LIMIT' });
    expect(model.requests).toHaveLength(9);
  });
});

describe('end_turn, max_tokens, stop_sequence', () => {
  test('an empty end_turn completes with no reply (null, never "") and stopReason end_turn', async () => {
    model.script(turn().stop('end_turn', 2));
    const run = await runs.complete('Thanks!');
    expect(run).toMatchObject({ status: 'completed', reply: null, stopReason: 'end_turn', replyTruncated: false });
  });

  test('max_tokens in text: the reply is marked truncated', async () => {
    model.script(turn().text('Your order #12345 shipped with UPS and will arrive on').stop('max_tokens'));
    const run = await runs.complete('Where is my order #12345?');
    expect(run).toMatchObject({
      status: 'completed',
      stopReason: 'max_tokens',
      replyTruncated: true,
      reply: 'Your order #12345 shipped with UPS and will arrive on',
    });
  });

  test('stop_sequence: completed as before, not truncated', async () => {
    model.script(turn().text('Shipped.').stop('stop_sequence'));
    const run = await runs.complete('Where is my order #12345?');
    expect(run).toMatchObject({ status: 'completed', stopReason: 'stop_sequence', replyTruncated: false, reply: 'Shipped.' });
  });
});
