import { useScriptedRuns } from './scripted-runs';
import { ScriptedModel } from '../support/scripted-model';
import { ManualClock } from '../support/clock';
import { turn } from '../support/scripted-turn';
import type { RunClient } from './run-helpers';

/**
 * Issue 28, item 6: a turn whose stream fails once it began — an `error` event mid-stream,
 * or silence past MODEL_STREAM_IDLE_TIMEOUT_MS — before any tool_use began is retried
 * (MODEL_STREAM_RETRIES, backoff 1 s, 2 s on the runtime's clock), and the run's message
 * says what happened. Real runs against the scripted model; the clock is moved, never waited on.
 */
const IDLE_MS = 60_000;
const model = new ScriptedModel();
const clock = new ManualClock();
const scripted = useScriptedRuns(model, {}, { modelClock: clock });
let runs: RunClient;
beforeAll(() => {
  runs = scripted.runs;
});

const QUESTION = 'Where is my order #12345?';

describe('an error event mid-stream', () => {
  test('before any tool_use: the turn is retried after 1 s, and the reply is only the successful turn’s text', async () => {
    const before = clock.now();
    model.script(
      turn().text('Your order #12345 was', 2).error('overloaded_error', 'Overloaded'),
      turn().text('Order #12345 shipped with UPS.').stop('end_turn'),
    );
    const run = await runs.complete(QUESTION);

    expect(run).toMatchObject({ status: 'completed', errorCode: null, reply: 'Order #12345 shipped with UPS.', stopReason: 'end_turn' });
    expect(run.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(model.requests).toHaveLength(2);
    // The retry sends the same conversation: the discarded partial turn is nowhere in it.
    expect(model.requests[1].messages).toEqual(model.requests[0].messages);
    expect(clock.now() - before).toBe(1000);
  });

  test('failing every time: two retries (1 s, then 2 s), then MODEL_UNAVAILABLE saying the stream failed 3 times and how', async () => {
    const before = clock.now();
    for (let i = 0; i < 3; i++) model.script(turn().text('Let me', 2).error('overloaded_error', 'Overloaded'));
    const run = await runs.complete(QUESTION);

    expect(run).toMatchObject({ status: 'failed', errorCode: 'MODEL_UNAVAILABLE', reply: null });
    expect(run.errorMessage).toBe('The model stream failed 3 times: overloaded_error, overloaded_error, overloaded_error');
    expect(run.messages.map((m) => m.role)).toEqual(['user']);
    expect(model.requests).toHaveLength(3);
    expect(clock.now() - before).toBe(3000);
  });

  test('after a tool_use block began: not retried, and the message says so (never "retries were exhausted")', async () => {
    model.script(
      turn()
        .text('Let me look.')
        .toolUse({ name: 'shopify__get_order', json: '{"orderId":', open: true })
        .error('api_error', 'Internal server error'),
    );
    const run = await runs.complete(QUESTION);

    expect(run).toMatchObject({ status: 'failed', errorCode: 'MODEL_UNAVAILABLE', reply: null });
    expect(run.errorMessage).toBe(
      'The model stream failed once: api_error; the last failure came after a tool_use had begun, so that turn was not retried',
    );
    expect(model.requests).toHaveLength(1);
    expect(run.toolCalls).toEqual([]);
  });
});

describe('a stream gone silent', () => {
  /** Waits for `attempt`'s text (its last event), then moves the clock onto its idle timeout, which must abort it there and not before. */
  async function stallOut(runId: string, attempt: number, text: string, tokens: () => string[]): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (model.requests.length < attempt || tokens().join('') !== text.repeat(attempt) || clock.pendingTimers() !== 1) {
      if (Date.now() > deadline) {
        const streamed = model.requests.length >= attempt && tokens().join('') === text.repeat(attempt);
        throw new Error(`attempt ${attempt} of run ${runId}: ${streamed ? 'silent, with no idle timer on the clock' : 'never streamed its text'}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    clock.advance(IDLE_MS - 1);
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(1);
    expect(clock.pendingTimers()).toBe(0);
  }

  function tokensOf(runId: () => string | undefined): { texts: string[]; stop(): void } {
    const texts: string[] = [];
    const listener = (event: { runId: string; text: string }) => {
      if (event.runId === runId()) texts.push(event.text);
    };
    scripted.demo.app.services.runEvents.on('token', listener);
    return { texts, stop: () => scripted.demo.app.services.runEvents.off('token', listener) };
  }

  test(`no event for ${IDLE_MS} ms aborts the stream; the retry's answer completes the run`, async () => {
    model.script(turn().text('Your order', 2, true).stall(), turn().text('Order #12345 shipped with UPS.').stop('end_turn'));
    let id: string | undefined;
    const tokens = tokensOf(() => id);
    try {
      id = (await runs.start(QUESTION)).id;
      await stallOut(id, 1, 'Your order', () => tokens.texts);
      const run = await runs.waitFor(id);
      expect(run).toMatchObject({ status: 'completed', errorCode: null, reply: 'Order #12345 shipped with UPS.' });
      expect(model.requests).toHaveLength(2);
    } finally {
      tokens.stop();
    }
  });

  test('stalling on every attempt: the run fails MODEL_STREAM_STALLED, saying it stalled 3 times', async () => {
    for (let i = 0; i < 3; i++) model.script(turn().text('Checking', 2, true).stall());
    let id: string | undefined;
    const tokens = tokensOf(() => id);
    try {
      id = (await runs.start(QUESTION)).id;
      for (let attempt = 1; attempt <= 3; attempt++) await stallOut(id, attempt, 'Checking', () => tokens.texts);
      const run = await runs.waitFor(id);
      expect(run).toMatchObject({ status: 'failed', errorCode: 'MODEL_STREAM_STALLED', reply: null });
      expect(run.errorMessage).toBe(`The model stream failed 3 times: ${Array(3).fill(`stalled (no event for ${IDLE_MS} ms)`).join(', ')}`);
      expect(model.requests).toHaveLength(3);
    } finally {
      tokens.stop();
    }
  });
});
