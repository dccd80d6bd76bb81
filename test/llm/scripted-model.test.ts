import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { ModelStreamFailure, streamTurn, type ModelTurn } from '../../src/llm/model-turn';
import { systemClock, type Clock } from '../../src/support/clock';
import { ManualClock } from '../support/clock';
import { ScriptedModel } from '../support/scripted-model';
import { turn } from '../support/scripted-turn';

/**
 * The scripted model server (test/support/scripted-model.ts) consumed by the real SDK and
 * by the runtime's own turn (streamTurn): every frame kind of the Messages API stream, the
 * stop reasons, errors mid-stream and over HTTP, and the conversation checks it makes.
 */
const model = new ScriptedModel();
let client: Anthropic;
beforeAll(async () => {
  client = new Anthropic({ apiKey: 'scripted', baseURL: await model.start(), maxRetries: 0 });
});
afterAll(() => model.stop());
beforeEach(() => model.reset());

const QUESTION = [{ role: 'user' as const, content: [{ type: 'text', text: 'Where is my order #12345?' }] }];

function ask(messages: ModelTurn['messages'] = QUESTION, onText: (delta: string) => void = () => undefined, clock: Clock = systemClock) {
  return streamTurn(client, {
    model: 'claude-scripted-1',
    maxTokens: 256,
    thinkingBudgetTokens: null,
    userId: 'scripted-test-run',
    system: 'test',
    tools: [],
    messages,
    signal: new AbortController().signal,
    onText,
    idleTimeoutMs: 30_000,
    clock,
  });
}

test('text in pieces, thinking with its signature, redacted thinking and pings: the SDK assembles them; the turn keeps them all, thinking whole', async () => {
  model.script(
    turn().thinking('Let me look that up.', 'sig-1').redactedThinking('opaque').ping().text('Your order shipped with UPS.', 4).stop('end_turn', 12),
  );
  const deltas: string[] = [];
  const reply = await ask(QUESTION, (delta) => deltas.push(delta));
  expect(deltas.length).toBe(4);
  expect(deltas.join('')).toBe('Your order shipped with UPS.');
  expect(reply).toMatchObject({
    content: [
      { type: 'thinking', thinking: 'Let me look that up.', signature: 'sig-1' },
      { type: 'redacted_thinking', data: 'opaque' },
      { type: 'text', text: 'Your order shipped with UPS.' },
    ],
    stopReason: 'end_turn',
    usage: { output_tokens: 12 },
  });
  expect(reply.firstTokenMs).not.toBeNull();

  // The SDK's own view of the same stream: the thinking blocks as the API defines them.
  model.script(turn().thinking('Hmm.', 'sig-2').redactedThinking('opaque').text('Done.').stop('end_turn'));
  const message = await client.messages.stream({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'Why?' }] }).finalMessage();
  expect(message.content).toEqual([
    { type: 'thinking', thinking: 'Hmm.', signature: 'sig-2' },
    { type: 'redacted_thinking', data: 'opaque' },
    { type: 'text', text: 'Done.' },
  ]);
  model.assertClean();
});

test('thinking is not a first token: a turn of thinking alone has no time to first token (its text or tool input would be)', async () => {
  model.script(turn().thinking('Only thinking here.', 'sig-only').stop('end_turn'));
  const reply = await ask();
  expect(reply.content).toEqual([{ type: 'thinking', thinking: 'Only thinking here.', signature: 'sig-only' }]);
  expect(reply.firstTokenMs).toBeNull();
  model.assertClean();
});

test('tool input streamed as input_json_delta pieces is parsed whole; complete input is not truncated', async () => {
  model.script(
    turn()
      .text('Checking.')
      .toolUse({ id: 'toolu_a', name: 'order_lookup__lookup', input: { orderId: '12345' }, count: 5 })
      .stop('tool_use'),
  );
  const reply = await ask();
  expect(reply.content).toEqual([
    { type: 'text', text: 'Checking.' },
    { type: 'tool_use', id: 'toolu_a', name: 'order_lookup__lookup', input: { orderId: '12345' }, truncated: false },
  ]);
  expect(reply.stopReason).toBe('tool_use');
});

test.each([
  [
    'max_tokens inside the block (the API closes it)',
    turn().toolUse({ id: 'toolu_t', name: 'invoice__send', json: '{"customerId":"1","amount":120.5,"email":"bi', count: 4 }).stop('max_tokens'),
  ],
  [
    'the stream ends inside the block',
    turn().toolUse({ id: 'toolu_t', name: 'invoice__send', json: '{"customerId":"1","amount":120.5,"email":"bi', open: true }).stop('max_tokens'),
  ],
  [
    'input that is not complete JSON, whatever the stop',
    turn().toolUse({ id: 'toolu_t', name: 'invoice__send', json: '{"customerId":"1","amount":120.5,"email":"bi' }).text('And more.').stop('tool_use'),
  ],
])('a tool_use cut off: %s — the SDK hands back a partial object, the turn marks it truncated', async (_label, frames) => {
  model.script(frames);
  const reply = await ask();
  const use = reply.content.find((b) => b.type === 'tool_use');
  // What the issue saw executed: the partial parse drops the field being written.
  expect(use).toEqual({ type: 'tool_use', id: 'toolu_t', name: 'invoice__send', input: { customerId: '1', amount: 120.5 }, truncated: true });
});

test('max_tokens after a complete tool_use (a text block last) truncates only what was being written', async () => {
  model.script(
    turn()
      .toolUse({ id: 'toolu_ok', name: 'order_lookup__lookup', input: { orderId: '1' } })
      .text('And then')
      .stop('max_tokens'),
  );
  const reply = await ask();
  expect(reply.content[0]).toMatchObject({ id: 'toolu_ok', truncated: false });
  expect(reply.stopReason).toBe('max_tokens');
});

test.each(['refusal', 'pause_turn', 'stop_sequence'] as const)('stop reason %s comes through', async (reason) => {
  model.script(turn().text('I will not.').stop(reason));
  expect((await ask()).stopReason).toBe(reason);
});

test('an error event mid-stream rejects the turn as a stream failure of its type (the SDK error its cause) after the text before it', async () => {
  model.script(turn().text('Partial answer').error('overloaded_error', 'Overloaded'));
  const deltas: string[] = [];
  const error = await ask(QUESTION, (delta) => deltas.push(delta)).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ModelStreamFailure);
  expect(error).toMatchObject({ kind: 'error', errorType: 'overloaded_error', toolUseStarted: false });
  const cause = (error as Error).cause as APIError;
  expect(cause).toBeInstanceOf(APIError);
  expect(cause.status).toBeUndefined();
  expect(String(cause.message)).toContain('Overloaded');
  expect(deltas.join('')).toBe('Partial answer');
});

test('an error event after a tool_use block began: the failure says so', async () => {
  model.script(turn().text('Let me look.').toolUse({ name: 'shopify__get_order', json: '{"orderId":', open: true }).error('api_error', 'Internal'));
  const error = await ask().catch((e: unknown) => e);
  expect(error).toMatchObject({ kind: 'error', errorType: 'api_error', toolUseStarted: true });
});

test('a stream gone silent is aborted as stalled once the idle timeout passes on the clock, not before', async () => {
  model.script(turn().text('Half a sent', 2, true).stall());
  const clock = new ManualClock();
  const deltas: string[] = [];
  const asked = ask(QUESTION, (delta) => deltas.push(delta), clock).catch((e: unknown) => e);
  const deadline = Date.now() + 10_000;
  // Its last event is the last delta: once that is here, the idle timer runs from it.
  while (deltas.join('') !== 'Half a sent') {
    if (Date.now() > deadline) throw new Error('the text before the stall never came');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  clock.advance(29_999);
  expect(clock.pendingTimers()).toBe(1);
  clock.advance(1);
  const error = await asked;
  expect(error).toBeInstanceOf(ModelStreamFailure);
  expect(error).toMatchObject({ kind: 'stalled', toolUseStarted: false });
  expect(clock.pendingTimers()).toBe(0);
});

test('an HTTP error answer is the SDK error with its status', async () => {
  model.script({ status: 529, type: 'overloaded_error', message: 'Overloaded' });
  const error = await ask().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(APIError);
  expect((error as APIError).status).toBe(529);
});

describe('the conversation check', () => {
  const ask1 = { role: 'assistant' as const, content: [{ type: 'tool_use', id: 'toolu_1', name: 'order_lookup__lookup', input: { orderId: '1' } }] };
  const answer1 = { role: 'user' as const, content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '{}' }] };

  test('a valid tool round passes and is recorded', async () => {
    model.script(turn().text('Shipped.').stop('end_turn'));
    await ask([...QUESTION, ask1, answer1]);
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0].problems).toEqual([]);
    expect(model.requests[0].messages).toHaveLength(3);
    model.assertClean();
  });

  test.each([
    [
      'a tool_use without its tool_result',
      [...QUESTION, ask1, { role: 'user' as const, content: [{ type: 'text', text: 'hi' }] }],
      /toolu_1 has 0 tool_result/,
    ],
    [
      'two tool_results for one tool_use',
      [...QUESTION, ask1, { role: 'user' as const, content: [answer1.content[0], answer1.content[0]] }],
      /toolu_1 has 2 tool_result/,
    ],
    [
      'a duplicated tool_use id',
      [...QUESTION, { role: 'assistant' as const, content: [ask1.content[0], ask1.content[0]] }, answer1],
      /tool_use ids must be unique/,
    ],
    [
      'a string input',
      [...QUESTION, { role: 'assistant' as const, content: [{ ...ask1.content[0], input: 'orderId=1' }] }, answer1],
      /input: Input should be a valid dictionary/,
    ],
    [
      'an empty assistant message before the last',
      [...QUESTION, { role: 'assistant' as const, content: [] }, { role: 'user' as const, content: [{ type: 'text', text: 'hi' }] }],
      /messages\.1\.content: not a non-empty list/,
    ],
    [
      'a text block of whitespace only',
      [...QUESTION, { role: 'assistant' as const, content: [{ type: 'text', text: '\n\n' }, ask1.content[0]] }, answer1],
      /text content blocks must contain non-whitespace text/,
    ],
    [
      'a final assistant message ending in whitespace',
      [...QUESTION, { role: 'assistant' as const, content: [{ type: 'text', text: 'Your order ' }] }],
      /final assistant content cannot end with trailing whitespace/,
    ],
    [
      'a thinking block the model never sent',
      [
        ...QUESTION,
        { role: 'assistant' as const, content: [{ type: 'thinking', thinking: 'made up', signature: 'c2ln' }, ask1.content[0]] },
        answer1,
      ],
      /thinking block was changed/,
    ],
  ])('refuses %s (400, and assertClean throws)', async (_label, messages, problem) => {
    // Sent as raw params: streamTurn would send its own (valid) shape for some of these.
    const error = await client.messages
      .stream({ model: 'm', max_tokens: 10, messages: messages as Anthropic.MessageParam[] })
      .finalMessage()
      .catch((e: unknown) => e);
    expect((error as APIError).status).toBe(400);
    expect(model.problems.join('\n')).toMatch(problem);
    expect(() => model.assertClean()).toThrow(problem);
  });

  const marked = (text: string) => ({ type: 'text', text, cache_control: { type: 'ephemeral' } });
  test.each([
    [
      'more than 4 cache breakpoints',
      {
        system: [marked('a'), marked('b')],
        messages: [{ role: 'user', content: [marked('c'), marked('d'), marked('e')] }],
      },
      /A maximum of 4 blocks with cache_control may be provided\. Found 5/,
    ],
    [
      'cache_control on a thinking block',
      {
        messages: [
          ...QUESTION,
          {
            role: 'assistant',
            content: [{ type: 'thinking', thinking: 't', signature: 's', cache_control: { type: 'ephemeral' } }, ask1.content[0]],
          },
          answer1,
        ],
      },
      /cache_control: not a field of a thinking block/,
    ],
    [
      'cache_control of another type',
      { system: [{ type: 'text', text: 'a', cache_control: { type: 'persistent' } }] },
      /not \{ type: 'ephemeral' \}/,
    ],
    ['a thinking budget under 1024', { max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 1000 } }, /greater than or equal to 1024/],
    [
      'a thinking budget not below max_tokens',
      { max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 2048 } },
      /max_tokens: must be greater than thinking\.budget_tokens/,
    ],
    ['metadata other than user_id', { metadata: { user_id: 'x', email: 'a@b.c' } }, /metadata\.email: Extra inputs/],
    ['a field the API does not have', { cache: true }, /cache: Extra inputs are not permitted/],
    [
      'thinking on, and the tool-using assistant turn sent back without its thinking',
      { max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [...QUESTION, ask1, answer1] },
      /messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`/,
    ],
  ])('refuses a request with %s (400)', async (_label, params, problem) => {
    const error = await client.messages
      .stream({ model: 'm', max_tokens: 10, messages: QUESTION, ...params } as unknown as Anthropic.MessageCreateParamsStreaming)
      .finalMessage()
      .catch((e: unknown) => e);
    expect((error as APIError).status).toBe(400);
    expect(model.problems.join('\n')).toMatch(problem);
    model.reset();
  });

  test('streamTurn marks 3 cache breakpoints (last tool, system, last message block), sends an opaque user_id, and thinking only with a budget', async () => {
    const tools = [
      { name: 'a__one', description: 'one', input_schema: { type: 'object' as const } },
      { name: 'b__two', description: 'two', input_schema: { type: 'object' as const } },
    ];
    const send = (thinkingBudgetTokens: number | null) =>
      streamTurn(client, {
        model: 'claude-scripted-1',
        maxTokens: 256,
        thinkingBudgetTokens,
        userId: 'opaque-1',
        system: 'Be brief.',
        tools,
        messages: QUESTION,
        signal: new AbortController().signal,
        onText: () => undefined,
        idleTimeoutMs: 30_000,
        clock: systemClock,
      });
    model.script(turn().text('Ok.').stop('end_turn'), turn().thinking('Hm.', 'sig-t').text('Ok.').stop('end_turn'));
    await send(null);
    const off = model.requests[0].body;
    expect(off.thinking).toBeUndefined();
    expect(off.max_tokens).toBe(256);
    expect(off.metadata).toEqual({ user_id: 'opaque-1' });
    expect(off.system).toEqual([{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }]);
    expect((off.tools as Record<string, unknown>[]).map((t) => t.cache_control)).toEqual([undefined, { type: 'ephemeral' }]);
    const [question] = off.messages as { content: unknown[] }[];
    expect(question.content).toEqual([{ type: 'text', text: 'Where is my order #12345?', cache_control: { type: 'ephemeral' } }]);
    // The conversation view of the request leaves the marks out.
    expect(model.requests[0].messages[0].content).toEqual([{ type: 'text', text: 'Where is my order #12345?' }]);

    const reply = await send(2048);
    const on = model.requests[1].body;
    // The answer keeps its 256 tokens; the budget comes on top (budget_tokens < max_tokens).
    expect(on.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(on.max_tokens).toBe(256 + 2048);
    expect(reply.content[0]).toEqual({ type: 'thinking', thinking: 'Hm.', signature: 'sig-t' });
    model.assertClean();
  });

  test('a blank system prompt (a specialist may have one) is left out, not sent as an empty marked block the API refuses', async () => {
    model.script(turn().text('Ok.').stop('end_turn'));
    await streamTurn(client, {
      model: 'claude-scripted-1',
      maxTokens: 256,
      thinkingBudgetTokens: null,
      userId: 'opaque-2',
      system: '  ',
      tools: [],
      messages: QUESTION,
      signal: new AbortController().signal,
      onText: () => undefined,
      idleTimeoutMs: 30_000,
      clock: systemClock,
    });
    expect(model.requests[0].body.system).toBeUndefined();
    model.assertClean();
  });

  test('thinking blocks sent back byte for byte pass; changed in any field, they are refused; a final assistant message may be empty', async () => {
    model.script(
      turn()
        .thinking('Look it up.', 'sig-a')
        .redactedThinking('opaque-a')
        .toolUse({ id: 'toolu_1', name: 'order_lookup__lookup', input: { orderId: '1' } })
        .stop('tool_use'),
    );
    const first = await client.messages.stream({ model: 'm', max_tokens: 10, messages: QUESTION as Anthropic.MessageParam[] }).finalMessage();
    const [thinking, redacted] = first.content;
    const send = (content: unknown[], extra: unknown[] = [answer1]) =>
      client.messages
        .stream({ model: 'm', max_tokens: 10, messages: [...QUESTION, { role: 'assistant', content }, ...extra] as Anthropic.MessageParam[] })
        .finalMessage()
        .then(
          () => 200,
          (e: APIError) => e.status,
        );
    model.script(turn().text('Shipped.').stop('end_turn'), turn().text('Ok.').stop('end_turn'));
    expect(await send([thinking, redacted, ask1.content[0]])).toBe(200);
    expect(await send([], [])).toBe(200);
    expect(model.problems).toEqual([]);
    expect(await send([{ ...thinking, signature: 'sig-b' }, redacted, ask1.content[0]])).toBe(400);
    expect(await send([thinking, { ...redacted, data: 'opaque-b' }, ask1.content[0]])).toBe(400);
    expect(await send([{ ...thinking, thinking: 'Look it up!' }, ask1.content[0]])).toBe(400);
    expect(model.problems).toHaveLength(3);
    model.reset();
  });

  test("Toolgate's notes never reach the model: streamTurn sends stored blocks in the API's shape", async () => {
    model.script(turn().text('Ok.').stop('end_turn'));
    const noted = { role: 'user' as const, content: [{ ...answer1.content[0], toolgate: { pending: true, toolCallId: 'x' } }] };
    await ask([...QUESTION, { role: 'assistant', content: [{ ...ask1.content[0], input: 'not an object' }] }, noted]);
    expect(model.requests[0].messages[1].content[0]).toEqual({ ...ask1.content[0], input: {} });
    model.assertClean();
  });

  test('an unscripted request is refused and reported; so is a turn nobody asked for', async () => {
    expect(((await ask().catch((e: unknown) => e)) as APIError).status).toBe(400);
    expect(() => model.assertClean()).toThrow(/no turn was scripted/);
    model.reset();
    model.script(turn().text('never asked').stop('end_turn'));
    expect(() => model.assertClean()).toThrow(/1 scripted turn\(s\) were never requested/);
    model.reset();
  });
});
