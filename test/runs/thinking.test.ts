import { useScriptedRuns } from './scripted-runs';
import { ScriptedModel } from '../support/scripted-model';
import { toolUseId, turn } from '../support/scripted-turn';
import { graphql } from '../gql';
import { BIND_TOOL } from '../support/documents';
import { errorCode, recordTokens, type RunClient } from './run-helpers';

/**
 * Issue 28, item 3: extended thinking. A specialist's budget turns it on; the model's
 * thinking and redacted_thinking blocks are stored with their signatures and sent back
 * byte for byte (the scripted model's ThinkingLedger refuses any other), across a tool
 * round and an approval pause; their text never reaches customers, runTokens or the
 * ledger; their tokens are billed as the output tokens the API reports.
 */
const model = new ScriptedModel();
const scripted = useScriptedRuns(model, { ANTHROPIC_MAX_TOKENS: '700' });
const demo = scripted.demo;
let runs: RunClient;
beforeAll(() => {
  runs = scripted.runs;
});

const CREATE = graphql(`
  mutation CreateThinkingSpecialist($input: CreateSpecialistInput!) {
    createSpecialist(input: $input) { id thinkingBudgetTokens }
  }
`);

const SET_THINKING = graphql(`
  mutation SetSpecialistThinking($id: ID!, $budget: Int) {
    setSpecialistThinking(specialistId: $id, budgetTokens: $budget) { id thinkingBudgetTokens }
  }
`);

const RUN_THINKING = graphql(`
  query RunThinking($id: ID!) {
    run(id: $id) {
      thinkingBudgetTokens outputTokens
      messages { content blocks { __typename ... on ThinkingBlock { redacted } } }
    }
  }
`);

/** A specialist with a thinking budget, bound to one tool (admin key). */
async function thinkingSpecialist(budget: number | null, toolName: string, action: string): Promise<string> {
  const { createSpecialist } = await runs.ok(CREATE, { input: { name: `Thinker ${budget}`, thinkingBudgetTokens: budget } }, demo.seed.keys.admin);
  await runs.ok(BIND_TOOL, { input: { specialistId: createSpecialist.id, toolName, action } }, demo.seed.keys.admin);
  return createSpecialist.id;
}

/** The stored content of a run's messages, as the model saw it (unredacted, with Toolgate's notes). */
async function stored(runId: string): Promise<Record<string, unknown>[][]> {
  const rows = await demo.app
    .em()
    .execute<{ content: Record<string, unknown>[] }[]>('select content from run_messages where run_id = ? order by position', [runId]);
  return rows.map((r) => r.content);
}

const THOUGHT = 'The customer wants order 12345; I should look it up before answering. Secret reasoning 7f3a.';
const SIGNATURE = 'EqQBCkYIBxgCKkD0c2lnbmF0dXJlLW9uZQ==';
const REDACTED = 'EmwKAhgBEgy3redacted-data-one+/=';

test('off by default: a request carries no thinking param and max_tokens is ANTHROPIC_MAX_TOKENS', async () => {
  model.script(turn().text('Shipped.').stop('end_turn'));
  const run = await runs.complete('Where is my order #12345?');
  expect(run.status).toBe('completed');
  expect(model.requests[0].body.thinking).toBeUndefined();
  expect(model.requests[0].body.max_tokens).toBe(700);
});

test('thinking blocks round-trip byte for byte across a tool round; readers see only a marker; no thinking text in tokens or the ledger', async () => {
  const specialistId = await thinkingSpecialist(2048, 'order_lookup', 'lookup');
  const lookup = toolUseId();
  model.script(
    turn()
      .thinking(THOUGHT, SIGNATURE, 4)
      .redactedThinking(REDACTED)
      .toolUse({ id: lookup, name: 'order_lookup__lookup', input: { orderId: '12345' } })
      .stop('tool_use', 310),
    turn().thinking('It shipped; say so.', 'c2lnLXR3bw==').text('Your order #12345 shipped with UPS.').stop('end_turn', 120),
  );
  const tokens = recordTokens(demo.app);
  const run = await runs.complete('Where is my order #12345?', { specialistId });
  tokens.stop();
  expect(run).toMatchObject({ status: 'completed', reply: 'Your order #12345 shipped with UPS.' });

  // Both requests think with the specialist's budget, on top of the answer's 700 tokens.
  for (const request of model.requests) {
    expect(request.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(request.body.max_tokens).toBe(700 + 2048);
  }
  // The tool round's request sends the assistant turn back exactly: thinking first, signature and data unchanged.
  const sentBack = model.requests[1].messages[1];
  expect(sentBack.role).toBe('assistant');
  expect(sentBack.content.map((b) => JSON.stringify(b))).toEqual([
    JSON.stringify({ type: 'thinking', thinking: THOUGHT, signature: SIGNATURE }),
    JSON.stringify({ type: 'redacted_thinking', data: REDACTED }),
    JSON.stringify({ type: 'tool_use', id: lookup, name: 'order_lookup__lookup', input: { orderId: '12345' } }),
  ]);
  // Stored with the run, as the model sent them.
  const content = await stored(run.id);
  expect(content[1].slice(0, 2)).toEqual([
    { type: 'thinking', thinking: THOUGHT, signature: SIGNATURE },
    { type: 'redacted_thinking', data: REDACTED },
  ]);

  // Readers: a marker, never the text, the signature or the data.
  const { run: view } = await runs.ok(RUN_THINKING, { id: run.id }, demo.seed.keys.client);
  expect(view.thinkingBudgetTokens).toBe(2048);
  expect(view.messages[1].blocks.map((b) => b.__typename)).toEqual(['ThinkingBlock', 'ThinkingBlock', 'ToolUseBlock']);
  expect(view.messages[1].blocks.slice(0, 2)).toEqual([
    { __typename: 'ThinkingBlock', redacted: false },
    { __typename: 'ThinkingBlock', redacted: true },
  ]);
  const everythingRead = JSON.stringify({ view, ledger: (await runs.get(run.id)).ledgerEvents });
  for (const secret of ['Secret reasoning', SIGNATURE, REDACTED, 'say so']) expect(everythingRead).not.toContain(secret);
  const [ledgerRow] = await demo.app
    .em()
    .execute<{ n: string }[]>("select count(*) as n from ledger_events where org_id = ? and metadata::text like '%Secret reasoning%'", [
      demo.seed.orgId,
    ]);
  expect(Number(ledgerRow.n)).toBe(0);
  // runTokens streams the answer's text only.
  const streamed = tokens.events
    .filter((e) => e.runId === run.id)
    .map((e) => e.text)
    .join('');
  expect(streamed).toBe('Your order #12345 shipped with UPS.');
  // Thinking is billed as output: the output tokens are the API's, thinking included.
  expect(view.outputTokens).toBe(310 + 120);
});

test('across an approval pause: the resumed step, on a later job, sends the same thinking blocks with the approved result', async () => {
  const specialistId = await thinkingSpecialist(1024, 'invoice', 'send');
  const send = toolUseId();
  model.script(
    turn()
      .thinking('An invoice needs an expert; ask for it.', 'c2lnLWludm9pY2U=')
      .redactedThinking('ZW5jcnlwdGVkLWludm9pY2U=')
      .text('I will send that invoice once it is approved.')
      .toolUse({ id: send, name: 'invoice__send', input: { customerId: '1', amount: 120.5 } })
      .stop('tool_use'),
    turn().thinking('Sent; confirm.', 'c2lnLWRvbmU=').text('Invoice sent.').stop('end_turn'),
  );
  const { id } = await runs.start('Please send an invoice for $120.50 to customer 1', { specialistId });
  const waiting = await runs.waitFor(id, ['waiting_approval']);
  await runs.jobsDone(id);
  expect(model.requests).toHaveLength(1);
  const approvalId = waiting.toolCalls[0].approvalRequest!.id;
  expect((await runs.resolve(approvalId, 'APPROVE')).body.errors).toBeUndefined();
  const run = await runs.waitFor(id);
  expect(run).toMatchObject({ status: 'completed', reply: 'Invoice sent.' });

  expect(model.requests).toHaveLength(2);
  const [, assistant, results] = model.requests[1].messages;
  expect(assistant.content.slice(0, 2)).toEqual([
    { type: 'thinking', thinking: 'An invoice needs an expert; ask for it.', signature: 'c2lnLWludm9pY2U=' },
    { type: 'redacted_thinking', data: 'ZW5jcnlwdGVkLWludm9pY2U=' },
  ]);
  expect(assistant.content.at(-1)).toMatchObject({ type: 'tool_use', id: send });
  expect(results.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: send });
  expect(model.requests[1].body.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
});

test('a run keeps the budget it started with: turned off meanwhile, its tool loop still thinks; a new run does not', async () => {
  const specialistId = await thinkingSpecialist(1024, 'invoice', 'send');
  const send = toolUseId();
  model.script(
    turn()
      .thinking('Needs approval.', 'c2lnLWtlZXA=')
      .toolUse({ id: send, name: 'invoice__send', input: { customerId: '1', amount: 10 } })
      .stop('tool_use'),
    turn().thinking('Done.', 'c2lnLWtlZXAy').text('Sent.').stop('end_turn'),
    turn().text('Hello.').stop('end_turn'),
  );
  const { id } = await runs.start('Invoice customer 1 for $10', { specialistId });
  const waiting = await runs.waitFor(id, ['waiting_approval']);
  await runs.jobsDone(id);
  await runs.ok(SET_THINKING, { id: specialistId, budget: null }, demo.seed.keys.admin);
  await runs.resolve(waiting.toolCalls[0].approvalRequest!.id, 'APPROVE');
  expect((await runs.waitFor(id)).status).toBe('completed');
  expect(model.requests[1].body.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });

  const next = await runs.complete('Hi', { specialistId });
  expect(next.status).toBe('completed');
  expect(model.requests[2].body.thinking).toBeUndefined();
});

test('two tool rounds: each assistant turn of the loop keeps its thinking in place (before its text and tool_use) in every later request', async () => {
  const specialistId = await thinkingSpecialist(1024, 'order_lookup', 'lookup');
  const [a, b] = [toolUseId(), toolUseId()];
  const first = { type: 'thinking', thinking: 'First, the order.', signature: 'c2lnLWZpcnN0' };
  const second = { type: 'thinking', thinking: 'Now check again.', signature: 'c2lnLXNlY29uZA==' };
  model.script(
    turn()
      .thinking(first.thinking, first.signature)
      .text('Looking it up.')
      .toolUse({ id: a, name: 'order_lookup__lookup', input: { orderId: '12345' } })
      .stop('tool_use'),
    turn()
      .thinking(second.thinking, second.signature)
      .toolUse({ id: b, name: 'order_lookup__lookup', input: { orderId: '12345' } })
      .stop('tool_use'),
    turn().thinking('Answer.', 'c2lnLWFuc3dlcg==').text('Shipped.').stop('end_turn'),
  );
  const run = await runs.complete('Where is my order #12345?', { specialistId });
  expect(run.status).toBe('completed');
  const last = model.requests[2].messages;
  expect(last.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
  expect(last[1].content.map((block) => block.type)).toEqual(['thinking', 'text', 'tool_use']);
  expect(last[1].content[0]).toEqual(first);
  expect(last[3].content).toEqual([second, { type: 'tool_use', id: b, name: 'order_lookup__lookup', input: { orderId: '12345' } }]);
});

test('an answer of thinking alone (an empty answer) is not sent back: a posted message continues a valid conversation', async () => {
  const specialistId = await thinkingSpecialist(1024, 'order_lookup', 'lookup');
  model.script(
    turn().thinking('Nothing to say.', 'c2lnLWVtcHR5').stop('end_turn'),
    turn().thinking('Now.', 'c2lnLW5vdw==').text('Hello!').stop('end_turn'),
  );
  const run = await runs.complete('Hi', { specialistId });
  expect(run).toMatchObject({ status: 'completed', reply: null });
  expect((await runs.postMessage(run.id, 'Hello?')).body.errors).toBeUndefined();
  expect((await runs.waitFor(run.id)).reply).toBe('Hello!');
  expect(model.requests[1].messages).toEqual([
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Hi' },
        { type: 'text', text: 'Hello?' },
      ],
    },
  ]);
});

describe('the budget is checked: INVALID_THINKING_BUDGET, and nothing changes', () => {
  test.each([[1023], [32_001], [0]])('createSpecialist with %p', async (budget) => {
    const before = await runs.count('specialists', 'org_id = ?', [demo.seed.orgId]);
    const res = await demo.app.gql(CREATE, { key: demo.seed.keys.admin, variables: { input: { name: 'Bad', thinkingBudgetTokens: budget } } });
    expect(errorCode(res)).toBe('INVALID_THINKING_BUDGET');
    expect(await runs.count('specialists', 'org_id = ?', [demo.seed.orgId])).toBe(before);
  });

  test('setSpecialistThinking: a bad budget leaves the old one; null turns thinking off; it is in the ledger', async () => {
    const specialistId = await thinkingSpecialist(4096, 'order_lookup', 'lookup');
    const bad = await demo.app.gql(SET_THINKING, { key: demo.seed.keys.admin, variables: { id: specialistId, budget: 500 } });
    expect(errorCode(bad)).toBe('INVALID_THINKING_BUDGET');
    const [row] = await demo.app
      .em()
      .execute<{ b: number | null }[]>('select thinking_budget_tokens as b from specialists where id = ?', [specialistId]);
    expect(row.b).toBe(4096);
    const off = await runs.ok(SET_THINKING, { id: specialistId, budget: null }, demo.seed.keys.admin);
    expect(off.setSpecialistThinking.thinkingBudgetTokens).toBeNull();
    expect(await runs.count('ledger_events', "resource_id = ? and type = 'specialist.thinking_changed'", [specialistId])).toBe(1);
    // Admins only.
    const client = await demo.app.gql(SET_THINKING, { key: demo.seed.keys.client, variables: { id: specialistId, budget: 2048 } });
    expect(errorCode(client)).toBe('FORBIDDEN');
  });
});
