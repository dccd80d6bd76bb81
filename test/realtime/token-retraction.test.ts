import { useScriptedRuns } from '../runs/scripted-runs';
import { ScriptedModel } from '../support/scripted-model';
import { ManualClock } from '../support/clock';
import { turn } from '../support/scripted-turn';
import { type RunClient, until } from '../runs/run-helpers';
import { appliedText as textOf, closeSockets, connect, retractingTokens } from './realtime-helpers';

/**
 * Issue 28, item 6c: a model turn whose stream failed is discarded and asked again; its
 * partial text must not stay in what runTokens subscribers see. The runtime retracts it (an
 * item whose `retractFrom` says "everything from this offset on is discarded"), the relay
 * cuts its buffer, so a live subscriber that applies the retractions and a late one served
 * from the relay's buffer or the stored messages see the same text: the stored reply. Real
 * runs against the scripted model; the stream's idle timeout runs on a manual clock, so a
 * stalled attempt fails exactly when the test moves it.
 */
const IDLE_MS = 60_000;
const model = new ScriptedModel();
const clock = new ManualClock();
const scripted = useScriptedRuns(model, { MODEL_STREAM_RETRIES: '3' }, { modelClock: clock });
let runs: RunClient;
beforeAll(() => {
  runs = scripted.runs;
});
/** Runs of the test, cancelled after it (a run left stalled on the manual clock would hold the app's shutdown). */
const started: string[] = [];
afterEach(async () => {
  await closeSockets();
  for (const id of started.splice(0)) await runs.cancel(id);
});

async function start(message: string): Promise<string> {
  const { id } = await runs.start(message);
  started.push(id);
  return id;
}

function feed(runId: string) {
  return retractingTokens(connect(scripted.demo.app.wsUrl, scripted.demo.seed.keys.client).client, runId);
}

/** Moves the clock onto the idle timeout of a stream that went silent (once its timer is armed). */
async function stallOut(): Promise<void> {
  await until(() => clock.pendingTimers() === 1, 'the silent stream’s idle timer');
  clock.advance(IDLE_MS);
}

test('a turn that fails mid-text three times (stalls, an error) then succeeds: live and late subscribers hold exactly the stored text', async () => {
  model.script(
    turn().text('Your order #12345 was', 3, true).stall(),
    turn().text('Let me check #12345', 2, true).stall(),
    turn().text('Order #12345 shi', 2).error('overloaded_error', 'Overloaded'),
    turn()
      .text('Order #12345 shipped with UPS.')
      .toolUse({ name: 'invoice__send', input: { customerId: '1', amount: 120.5 } })
      .stop('tool_use'),
  );
  const id = await start('Where is my order #12345? And invoice customer 1 for $120.50.');
  const live = feed(id);
  await live.until((f) => textOf(f.items) === 'Your order #12345 was', 'the first attempt’s partial text');
  await stallOut();

  // The second attempt streams from the same offset: the live subscriber's copy is replaced, not spliced.
  await live.until((f) => textOf(f.items) === 'Let me check #12345', 'the second attempt’s text, live');
  expect(live.items.some((i) => i.retractFrom === '0')).toBe(true);
  // A subscriber joining now is served from the relay's buffer: the same text.
  const joiner = feed(id);
  await joiner.until((f) => textOf(f.items) === 'Let me check #12345', 'the second attempt’s text, from the buffer');
  await stallOut();

  const waiting = await runs.waitFor(id, ['waiting_approval']);
  const stored = waiting.messages[1].text;
  expect(stored).toBe('Order #12345 shipped with UPS.');
  // After the retry finished, the run still going: a late subscriber.
  const late = feed(id);
  await late.until((f) => textOf(f.items) === stored, 'the stored text, late');
  await live.until((f) => textOf(f.items) === stored, 'the stored text, live');
  await joiner.until((f) => textOf(f.items) === stored, 'the stored text, at the joiner');
  expect(late.items).toEqual([{ runId: id, offset: '0', text: stored, retractFrom: null }]);
  expect(model.requests).toHaveLength(4);
});

test('a refused turn’s streamed text is retracted; the answer to the next message streams at its offset, the same for live and late subscribers', async () => {
  model.script(turn().text('Sure, here is how to get in', 4, true).stall(), turn().text('Sure, here is how', 3).stop('refusal'));
  const id = await start('How do I get into my neighbour’s shop account?');
  const live = feed(id);
  await live.until((f) => textOf(f.items) === 'Sure, here is how to get in', 'the partial text');
  await stallOut();
  const refused = await runs.waitFor(id);
  expect(refused).toMatchObject({ status: 'failed', errorCode: 'MODEL_REFUSED', reply: null });
  await live.until((f) => textOf(f.items) === '' && f.items.at(-1)!.retractFrom === '0', 'the refused text retracted');

  model.script(turn().text('Your order #12345 shipped.').stop('end_turn'));
  expect((await runs.postMessage(id, 'Where is my order #12345 then?')).body.errors).toBeUndefined();
  const run = await runs.waitFor(id);
  expect(run).toMatchObject({ status: 'completed', reply: 'Your order #12345 shipped.' });
  const late = feed(id);
  await late.until((f) => textOf(f.items) === run.reply, 'the answer, late');
  await live.until((f) => textOf(f.items) === run.reply, 'the answer, live');
  expect(late.items).toEqual([{ runId: id, offset: '0', text: run.reply, retractFrom: null }]);
});
