import { useDemoApp } from '../support/demo-fixture';
import { SetFeatureFlagDocument } from '../../gql/graphql';
import { newOrg } from '../support/factories';
import { putIntegrationCredential } from '../../src/credentials/credential.service';
import { SANDBOX_CREDENTIALS } from '../../src/vendors';
import { REPLIES } from '../../src/llm/dev-double/offline-model.replies';
import { RUN_STATUS, RunClient, assistantTexts, errorCode, messageEvents, recordTokens, types, type RunView } from './run-helpers';

/**
 * Toolgate's own agent runtime end to end (ADR-029): GraphQL startAgentRun → a durable
 * job on the worker → the real Anthropic SDK streaming from the offline model → the
 * gateway → the vendor sandboxes → the reply. One server, the demo org, the client key.
 */
// A model name the SDK has no deprecation warning for; prices and everything else are defaults.
const ENV = { ANTHROPIC_MODEL: 'claude-offline-1' };

let runs: RunClient;
const demo = useDemoApp(ENV, { sandboxes: true, offlineModel: true, worker: true });
beforeAll(async () => {
  runs = new RunClient(demo.app, demo.seed);
});
afterEach(() => {
  demo.app.sandbox?.clearFaults();
  demo.app.model?.clearFaults();
});

const ORDER_QUESTION = "What's the status of my order #12345?";
const INVOICE_REQUEST = 'Please send an invoice for $120.50 to customer 1';

const call = (run: RunView) => {
  expect(run.toolCalls).toHaveLength(1);
  return run.toolCalls[0];
};

describe('ADR-029 happy path', () => {
  test('order #12345: queued at once, then completed with the tracking number; conversation, ledger, cost and tokens recorded', async () => {
    const tokens = recordTokens(demo.app);
    const modelBefore = demo.app.model!.requests.length;
    const shopifyBefore = runs.vendorRequests('shopify');

    const started = await runs.start(ORDER_QUESTION);
    expect(started).toMatchObject({ status: 'queued', driver: 'internal' });
    const run = await runs.waitFor(started.id);
    tokens.stop();

    expect(run.status).toBe('completed');
    expect(run.errorCode).toBeNull();
    expect(run.reply).toContain('shipped');
    expect(run.reply).toContain('TRACK-001');

    // The conversation in the Messages API's shape: question, tool_use, tool_result, answer.
    expect(run.messages.map((m) => [m.position, m.role])).toEqual([
      [0, 'user'],
      [1, 'assistant'],
      [2, 'user'],
      [3, 'assistant'],
    ]);
    const [question, ask, result, answer] = run.messages;
    expect(question.content).toEqual([{ type: 'text', text: ORDER_QUESTION }]);
    expect(ask.content).toEqual([
      { type: 'text', text: REPLIES.preface },
      { type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'order_lookup__lookup', input: { orderId: '12345' } },
    ]);
    const toolUseId = ask.content[1].id!;
    expect(result.content).toEqual([{ type: 'tool_result', tool_use_id: toolUseId, content: expect.any(String) }]);
    // Readers get the redacted copies the tool call stores; the model saw the full order.
    expect(JSON.parse(result.content[0].content!)).toMatchObject({
      orderNumber: '#12345',
      trackingNumbers: ['TRACK-001'],
      trackingCompany: 'UPS',
      customerEmail: '[REDACTED]',
      shippingAddress: { address1: '[REDACTED]', zip: '40202' },
    });
    const [stored] = await demo.app
      .em()
      .getConnection()
      .execute<{ content: { content: string }[] }[]>('select content from run_messages where run_id = ? and position = 2', [run.id]);
    expect(JSON.parse(stored.content[0].content)).toMatchObject({
      customerEmail: 'bob.norman@example.com',
      shippingAddress: { address1: 'Chestnut Street 92', zip: '40202' },
    });
    // The same blocks, typed: the call's tool action, id, status and redacted input/output.
    const lookup = call(run);
    expect(ask.blocks).toEqual([
      { __typename: 'TextBlock', text: REPLIES.preface },
      {
        __typename: 'ToolUseBlock',
        toolUseId,
        name: 'order_lookup__lookup',
        tool: 'order_lookup.lookup',
        input: { orderId: '12345' },
        toolCallId: lookup.id,
        status: 'succeeded',
      },
    ]);
    expect(result.blocks).toEqual([
      {
        __typename: 'ToolResultBlock',
        toolUseId,
        isError: false,
        pending: false,
        content: lookup.output,
        toolCallId: lookup.id,
        status: 'succeeded',
      },
    ]);
    expect(answer.content).toEqual([{ type: 'text', text: run.reply }]);

    // One gateway call, executed once, stored redacted, with its policy decision.
    const toolCall = call(run);
    expect(toolCall).toMatchObject({
      toolName: 'order_lookup',
      action: 'lookup',
      status: 'succeeded',
      errorCode: null,
      input: { orderId: '12345' },
      riskLevel: 'low',
      policyDecision: { id: expect.any(String), outcome: 'allow', risk: 'low' },
      approvalRequest: null,
    });
    expect(toolCall.output).toMatchObject({
      trackingNumbers: ['TRACK-001'],
      customerEmail: '[REDACTED]',
      shippingAddress: { address1: '[REDACTED]', zip: '40202' },
    });
    expect(JSON.stringify(toolCall.output)).not.toContain('bob.norman');
    expect(await runs.count('tool_calls', 'run_id = ? and tool_use_id = ?', [run.id, toolUseId])).toBe(1);
    expect(runs.vendorRequests('shopify')).toBe(shopifyBefore + 1);

    expect(types(run)).toEqual(['run.created', 'run.started', 'tool_call.requested', 'tool_call.succeeded', 'run.completed']);
    expect(run.ledgerEvents.filter((e) => e.type.startsWith('tool_call.')).map((e) => e.resourceId)).toEqual([toolCall.id, toolCall.id]);
    // Each stored message is announced once, after the events of what produced it.
    expect(run.ledgerEvents.map((e) => e.type)).toEqual([
      'run.created',
      'run.started',
      'run.message_added',
      'tool_call.requested',
      'tool_call.succeeded',
      'run.message_added',
      'run.message_added',
      'run.completed',
    ]);
    expect(messageEvents(run)).toEqual([
      expect.objectContaining({ position: 1, role: 'assistant', stopReason: 'tool_use' }),
      expect.objectContaining({ position: 2, role: 'user', toolResults: 1 }),
      expect.objectContaining({ position: 3, role: 'assistant', stopReason: 'end_turn' }),
    ]);

    // Two streamed model turns, each offered the manifest's tools, billed at the default prices.
    const requests = demo.app.model!.requests.slice(modelBefore);
    expect(requests.map((r) => [r.status, r.stream])).toEqual([
      [200, true],
      [200, true],
    ]);
    expect(requests[0].toolNames).toContain('order_lookup__lookup');
    expect(requests[1].messageCount).toBe(3);
    expect(run.inputTokens).toBeGreaterThan(0);
    expect(run.outputTokens).toBeGreaterThan(0);
    expect(run.llmCostUsd).toBeCloseTo((run.inputTokens * 3 + run.outputTokens * 15) / 1e6, 12);

    // Token events: contiguous offsets from 0 whose texts are exactly the assistant text.
    const mine = tokens.events.filter((e) => e.runId === run.id);
    expect(mine.length).toBeGreaterThan(1);
    expect(mine.every((e) => e.orgId === demo.seed.orgId && e.text.length > 0)).toBe(true);
    expect(mine[0].offset).toBe(0);
    for (let i = 1; i < mine.length; i++) {
      expect(mine[i].offset).toBeGreaterThan(mine[i - 1].offset);
      expect(mine[i].offset).toBe(mine[i - 1].offset + mine[i - 1].text.length);
    }
    expect(mine.map((e) => e.text).join('')).toBe(assistantTexts(run).join(''));
  });
});

describe('failure modes: the run completes and the reply says what happened', () => {
  test('tool calling off: blocked FEATURE_DISABLED, the model says it is unable', async () => {
    const shopifyBefore = runs.vendorRequests('shopify');
    await runs.ok(SetFeatureFlagDocument, { key: 'tool_calling_enabled', enabled: false }, demo.seed.keys.admin);
    let run: RunView;
    try {
      run = await runs.complete(ORDER_QUESTION);
    } finally {
      await runs.ok(SetFeatureFlagDocument, { key: 'tool_calling_enabled', enabled: true }, demo.seed.keys.admin);
    }
    expect(run.status).toBe('completed');
    expect(run.reply).toBe(
      "I'm unable to do that right now: Tool execution is not enabled for this organization. Let me connect you with an Expert.",
    );
    expect(call(run)).toMatchObject({ toolName: 'order_lookup', status: 'blocked', errorCode: 'FEATURE_DISABLED' });
    expect(run.messages[2].content[0]).toMatchObject({
      type: 'tool_result',
      is_error: true,
      content: 'Tool execution is not enabled for this organization',
    });
    expect(run.ledgerEvents.find((e) => e.type === 'tool_call.blocked')?.metadata).toMatchObject({ reason: 'feature_disabled' });
    expect(types(run).at(-1)).toBe('run.completed');
    expect(runs.vendorRequests('shopify')).toBe(shopifyBefore);
  });

  test('a tool the specialist is not bound to is not offered: the model says it has no access, no call is made', async () => {
    const ordersOnly = await runs.specialistWith('Orders only', 'order_lookup', 'lookup');
    const modelBefore = demo.app.model!.requests.length;
    const nangoBefore = runs.vendorRequests('nango');

    const run = await runs.complete(INVOICE_REQUEST, { specialistId: ordersOnly });
    expect(run.allowedTools).toEqual(['order_lookup.lookup']);
    expect(run.status).toBe('completed');
    expect(run.reply).toBe(REPLIES.noTool);
    expect(run.toolCalls).toEqual([]);
    expect(demo.app.model!.requests.slice(modelBefore).map((r) => r.toolNames)).toEqual([['order_lookup__lookup']]);
    expect(runs.vendorRequests('nango')).toBe(nangoBefore);
    expect(types(run)).toEqual(['run.created', 'run.started', 'run.completed']);
  });

  test('vendor 500: the call fails VENDOR_ERROR, the run completes, the reply speaks of a temporary issue without vendor text', async () => {
    demo.app.sandbox!.injectFault('shopify', { kind: 'status', status: 500 });
    const run = await runs.complete(ORDER_QUESTION);
    expect(run.status).toBe('completed');
    expect(run.errorCode).toBeNull();
    expect(run.reply).toContain('temporary service issue');
    expect(call(run)).toMatchObject({ status: 'failed', errorCode: 'VENDOR_ERROR', vendorStatusCode: 500 });
    const everything = JSON.stringify(run);
    expect(everything).not.toContain('vendor-internal-trace-xyz');
    expect(everything).not.toContain('sandbox fault');
    expect(types(run)).toEqual(['run.created', 'run.started', 'tool_call.requested', 'tool_call.failed', 'run.completed']);
  });

  test('no shopify credential: the call fails CREDENTIALS_NOT_FOUND, the reply says the integration is not configured', async () => {
    const shopifyBefore = runs.vendorRequests('shopify');
    await demo.app.em().execute("delete from integration_credentials where org_id = ? and integration_type = 'shopify'", [demo.seed.orgId]);
    let run: RunView;
    try {
      run = await runs.complete(ORDER_QUESTION);
    } finally {
      await putIntegrationCredential(demo.app.em(), demo.app.masterKey, { orgId: demo.seed.orgId }, 'shopify', SANDBOX_CREDENTIALS.shopify);
    }
    expect(run.status).toBe('completed');
    expect(run.reply).toContain('integration not configured');
    expect(call(run)).toMatchObject({ status: 'failed', errorCode: 'CREDENTIALS_NOT_FOUND' });
    expect(run.ledgerEvents.find((e) => e.type === 'tool_call.failed')?.metadata).toMatchObject({ reason: 'credentials_missing' });
    expect(runs.vendorRequests('shopify')).toBe(shopifyBefore);
    // Restored: the next run answers again.
    expect((await runs.complete(ORDER_QUESTION)).reply).toContain('TRACK-001');
  });
});

describe('model failures the SDK absorbs', () => {
  test('one 529 overloaded answer is retried (default ANTHROPIC_MAX_RETRIES) and the run completes', async () => {
    demo.app.model!.injectFault({ kind: 'overloaded' }, 1);
    const modelBefore = demo.app.model!.requests.length;
    const run = await runs.complete(ORDER_QUESTION);
    expect(run.status).toBe('completed');
    expect(run.reply).toContain('TRACK-001');
    expect(demo.app.model!.requests.slice(modelBefore).map((r) => r.status)).toEqual([529, 200, 200]);
    expect(types(run)).not.toContain('run.failed');
  });

  test('while the model is slow to answer (429, Retry-After 1 s) the run is running and postMessage is RUN_BUSY', async () => {
    demo.app.model!.injectFault({ kind: 'rate_limited', retryAfterSeconds: 1 }, 1);
    const { id } = await runs.start(ORDER_QUESTION);
    await runs.waitFor(id, ['running']);
    const busy = await runs.postMessage(id, 'Hello?');
    expect(errorCode(busy)).toBe('RUN_BUSY');
    expect(busy.body.errors![0].extensions).toMatchObject({ runStatus: 'running' });
    const run = await runs.waitFor(id);
    expect(run.status).toBe('completed');
    expect(run.reply).toContain('TRACK-001');
    expect(run.messages.filter((m) => m.role === 'user' && m.text === 'Hello?')).toEqual([]);
  });
});

describe('postMessage', () => {
  test('a completed run takes a new message: queued, then a second answer; token offsets continue the whole text', async () => {
    const first = await runs.complete(ORDER_QUESTION);
    const tokens = recordTokens(demo.app);
    const posted = await runs.postMessage(first.id, 'What about order #12346?');
    expect(posted.body.data?.postMessage).toEqual({ id: first.id, status: 'queued' });
    const run = await runs.waitFor(first.id);
    tokens.stop();

    expect(run.status).toBe('completed');
    expect(run.reply).toContain('#12346');
    expect(run.reply).toContain('not shipped yet');
    expect(run.messages).toHaveLength(8);
    expect(run.messages[4]).toMatchObject({ position: 4, role: 'user', text: 'What about order #12346?' });
    expect(run.toolCalls.map((c) => c.input)).toEqual([{ orderId: '12345' }, { orderId: '12346' }]);
    expect(types(run)).toEqual([
      'run.created',
      'run.started',
      'tool_call.requested',
      'tool_call.succeeded',
      'run.completed',
      'run.message_posted',
      'run.started',
      'tool_call.requested',
      'tool_call.succeeded',
      'run.completed',
    ]);

    const before = assistantTexts(first).join('').length;
    const mine = tokens.events.filter((e) => e.runId === run.id);
    expect(mine[0].offset).toBe(before);
    for (let i = 1; i < mine.length; i++) expect(mine[i].offset).toBe(mine[i - 1].offset + mine[i - 1].text.length);
    expect(mine.map((e) => e.text).join('')).toBe(assistantTexts(run).join('').slice(before));
  });

  test('a run waiting for approval is APPROVALS_PENDING; nothing is appended', async () => {
    const { id } = await runs.start(INVOICE_REQUEST);
    const waiting = await runs.waitFor(id, ['waiting_approval']);
    const res = await runs.postMessage(id, 'Any news?');
    expect(errorCode(res)).toBe('APPROVALS_PENDING');
    expect(res.body.errors![0].extensions).toMatchObject({ runStatus: 'waiting_approval' });
    expect((await runs.get(id)).messages).toHaveLength(waiting.messages.length);
    expect((await runs.cancel(id)).body.data?.cancelRun.status).toBe('cancelled');
  });

  test('an external run is BAD_USER_INPUT (its caller drives it)', async () => {
    const res = await runs.startRaw({ specialistId: demo.seed.specialistId, driver: 'EXTERNAL' }, demo.seed.keys.agent);
    const runId = (res.body.data as { startAgentRun: { id: string } }).startAgentRun.id;
    const posted = await runs.postMessage(runId, 'Hello', demo.seed.keys.agent);
    expect(errorCode(posted)).toBe('BAD_USER_INPUT');
    expect((await runs.get(runId)).messages).toEqual([]);
  });
});

describe('concurrent runs', () => {
  test('five runs at once each answer their own order', async () => {
    const orders = ['12345', '12346', '12347', '12345', '12346'];
    const expected: Record<string, string[]> = {
      '12345': ['#12345', 'shipped', 'TRACK-001'],
      '12346': ['#12346', 'not shipped yet'],
      '12347': ['#12347', 'partially shipped', 'TRACK-002'],
    };
    const started = await Promise.all(orders.map((n) => runs.start(`What's the status of my order #${n}?`)));
    expect(started.every((s) => s.status === 'queued')).toBe(true);
    const done = await Promise.all(started.map((s) => runs.waitFor(s.id)));
    done.forEach((run, i) => {
      const n = orders[i];
      expect(run.status).toBe('completed');
      for (const fragment of expected[n]) expect(run.reply).toContain(fragment);
      expect(call(run)).toMatchObject({ status: 'succeeded', input: { orderId: n } });
      expect(JSON.parse(run.messages[2].content[0].content!).orderNumber).toBe(`#${n}`);
      // No cross-talk: nothing of another order in this run's conversation.
      for (const other of Object.keys(expected).filter((o) => o !== n)) expect(JSON.stringify(run.messages)).not.toContain(other);
      expect(types(run)).toEqual(['run.created', 'run.started', 'tool_call.requested', 'tool_call.succeeded', 'run.completed']);
    });
  });
});

describe('roles and isolation', () => {
  test("another org's specialist is NOT_FOUND and no run is created; that org cannot see, post to or cancel our runs", async () => {
    const other = await newOrg(demo.app.em());
    const res = await runs.startRaw({ specialistId: demo.seed.specialistId, message: ORDER_QUESTION }, other.keys.client);
    expect(errorCode(res)).toBe('NOT_FOUND');
    expect(await runs.count('agent_runs', 'org_id = ?', [other.org.id])).toBe(0);

    const ours = await runs.complete(ORDER_QUESTION);
    expect(errorCode(await demo.app.gql(RUN_STATUS, { key: other.keys.client, variables: { id: ours.id } }))).toBe('NOT_FOUND');
    expect(errorCode(await runs.postMessage(ours.id, 'Hi', other.keys.client))).toBe('NOT_FOUND');
    expect(errorCode(await runs.cancel(ours.id, other.keys.client))).toBe('NOT_FOUND');
    expect((await runs.get(ours.id)).messages).toHaveLength(4);
  });

  test.each(['partner', 'expert'] as const)('a %s key may not startAgentRun (FORBIDDEN)', async (role) => {
    const before = await runs.count('agent_runs', 'org_id = ?', [demo.seed.orgId]);
    const res = await runs.startRaw({ specialistId: demo.seed.specialistId, message: ORDER_QUESTION }, demo.seed.keys[role]);
    expect(errorCode(res)).toBe('FORBIDDEN');
    expect(await runs.count('agent_runs', 'org_id = ?', [demo.seed.orgId])).toBe(before);
  });

  test.each([
    ['without a message', {}],
    ['with a blank message', { message: '   ' }],
  ])('an INTERNAL run %s is BAD_USER_INPUT and nothing is created', async (_label, extra) => {
    const before = await runs.count('agent_runs', 'org_id = ?', [demo.seed.orgId]);
    const res = await runs.startRaw({ specialistId: demo.seed.specialistId, driver: 'INTERNAL', ...extra }, demo.seed.keys.client);
    expect(errorCode(res)).toBe('BAD_USER_INPUT');
    expect(await runs.count('agent_runs', 'org_id = ?', [demo.seed.orgId])).toBe(before);
  });
});
