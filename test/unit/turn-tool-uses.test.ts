import type { ReplyBlock } from '../../src/llm/model-turn';
import type { StoredBlock } from '../../src/runs/run-messages';
import { storedTurn } from '../../src/runtime/turn-tool-uses';

/**
 * How a model turn is stored (src/runtime/turn-tool-uses.ts): the keys repeats get, decided
 * from the conversation alone, and which tool_uses are refused. The runs that go through it
 * end to end are in test/runs/model-turns.test.ts.
 */
const use = (id: string, input: unknown = { orderId: '1' }, truncated = false): ReplyBlock => ({
  type: 'tool_use',
  id,
  name: 'order_lookup__lookup',
  input,
  truncated,
});
const ids = (blocks: StoredBlock[]) => blocks.map((b) => b.id);

test('a fresh turn is stored as the model gave it, with no notes', () => {
  const stored = storedTurn([{ type: 'text', text: 'Looking.' }, use('a'), use('b')], 'tool_use', []);
  expect(stored).toEqual([
    { type: 'text', text: 'Looking.' },
    { type: 'tool_use', id: 'a', name: 'order_lookup__lookup', input: { orderId: '1' } },
    { type: 'tool_use', id: 'b', name: 'order_lookup__lookup', input: { orderId: '1' } },
  ]);
});

test('an id given three times in one message: the repeats are a__dup1 and a__dup2, each refused with the id it repeats', () => {
  const stored = storedTurn([use('a'), use('a', { orderId: '2' }), use('a', { orderId: '3' })], 'tool_use', []);
  expect(ids(stored)).toEqual(['a', 'a__dup1', 'a__dup2']);
  expect(stored[0].toolgate).toBeUndefined();
  expect(stored[2]).toEqual({
    type: 'tool_use',
    id: 'a__dup2',
    name: 'order_lookup__lookup',
    input: { orderId: '3' },
    toolgate: { refusal: { code: 'IDEMPOTENCY_KEY_REUSED', details: { toolUseId: 'a', duplicatedInMessage: true } }, modelId: 'a' },
  });
});

test('an id of an earlier turn (and its repeats) keeps counting across turns; the model reusing a key is a repeat too', () => {
  const earlier = [{ content: storedTurn([use('a'), use('a')], 'tool_use', []) }, { content: [{ type: 'tool_result', tool_use_id: 'a' }] }];
  const stored = storedTurn([use('a'), use('a__dup1'), use('b')], 'tool_use', earlier);
  expect(ids(stored)).toEqual(['a__dup2', 'a__dup1__dup1', 'b']);
  expect(stored[0].toolgate).toMatchObject({ refusal: { details: { toolUseId: 'a', reusedFromEarlierTurn: true } }, modelId: 'a' });
  expect(stored[1].toolgate).toMatchObject({ refusal: { code: 'IDEMPOTENCY_KEY_REUSED' }, modelId: 'a__dup1' });
  // Stored the same way twice (a repeated step reads the stored turn; this only shows it is a function of its inputs).
  expect(storedTurn([use('a'), use('a__dup1'), use('b')], 'tool_use', earlier)).toEqual(stored);
});

test('truncated input is refused TOOL_INPUT_TRUNCATED and kept as the partial object; input that is no object is INVALID_TOOL_INPUT, stored as {}', () => {
  const stored = storedTurn([use('t', { customerId: '1' }, true), use('l', ['1']), use('s', '1'), use('n', null, true)], 'max_tokens', []);
  expect(stored.map((b) => [b.id, b.input, b.toolgate])).toEqual([
    ['t', { customerId: '1' }, { refusal: { code: 'TOOL_INPUT_TRUNCATED', details: { stopReason: 'max_tokens' } } }],
    ['l', {}, { refusal: { code: 'INVALID_TOOL_INPUT', details: expect.any(Object) }, rawInput: ['1'] }],
    ['s', {}, { refusal: { code: 'INVALID_TOOL_INPUT', details: expect.any(Object) }, rawInput: '1' }],
    ['n', {}, { refusal: { code: 'TOOL_INPUT_TRUNCATED', details: { stopReason: 'max_tokens' } }, rawInput: null }],
  ]);
});
