import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { OfflineModelServer } from '../../src/llm/dev-double/offline-model.server';
import { REPLIES } from '../../src/llm/dev-double/offline-model.replies';
import { OFFLINE_TOOLS } from '../../src/llm/dev-double/offline-model.brain';

type Tool = Anthropic.Tool;
type MessageParam = Anthropic.MessageParam;

const schema = (properties: Record<string, unknown>, required: string[] = []): Tool['input_schema'] => ({
  type: 'object',
  properties,
  required,
});
const TOOLS: Tool[] = [
  { name: OFFLINE_TOOLS.orderLookup, description: 'Look up a Shopify order', input_schema: schema({ orderId: { type: 'string' } }, ['orderId']) },
  { name: OFFLINE_TOOLS.product, description: 'Get a Shopify product', input_schema: schema({ productId: { type: 'string' } }, ['productId']) },
  { name: OFFLINE_TOOLS.amazonOrder, description: 'Get an Amazon order', input_schema: schema({ orderId: { type: 'string' } }, ['orderId']) },
  {
    name: OFFLINE_TOOLS.kyc,
    description: 'Identity verification status',
    input_schema: schema({ accountId: { type: 'string' }, workflowExecutionId: { type: 'string' } }, ['accountId', 'workflowExecutionId']),
  },
  { name: OFFLINE_TOOLS.balance, description: 'Account balances', input_schema: schema({ accountName: { type: 'string' } }) },
  {
    name: OFFLINE_TOOLS.invoice,
    description: 'Create and email an invoice',
    input_schema: schema({ customerId: { type: 'string' }, amount: { type: 'number' }, currency: { type: 'string' } }, ['customerId', 'amount']),
  },
];
const MODEL = 'claude-offline-1';
const ORDER_QUESTION = "What's the status of my order #12345?";

let server: OfflineModelServer;
let baseURL: string;
const client = (maxRetries = 0, extra: Partial<ConstructorParameters<typeof Anthropic>[0]> = {}) =>
  new Anthropic({ apiKey: 'offline', baseURL, maxRetries, ...extra });

beforeAll(async () => {
  server = new OfflineModelServer();
  baseURL = await server.start();
});
afterAll(() => server.stop());
beforeEach(() => {
  server.clearFaults();
  server.requests.length = 0;
});

const ask = (content: string | MessageParam[], tools: Tool[] = TOOLS) =>
  client().messages.create({
    model: MODEL,
    max_tokens: 512,
    tools,
    messages: typeof content === 'string' ? [{ role: 'user', content }] : content,
  });

const textOf = (message: Anthropic.Message) => message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
const toolUseOf = (message: Anthropic.Message) => message.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');

async function expectTool(question: string, name: string, input: Record<string, unknown>, tools: Tool[] = TOOLS) {
  const message = await ask(question, tools);
  expect(message.stop_reason).toBe('tool_use');
  expect(message.content[0]).toMatchObject({ type: 'text' });
  expect(toolUseOf(message)).toMatchObject({ name, input });
  expect(toolUseOf(message)!.id).toMatch(/^toolu_/);
}

/** The answer to one tool call whose result was `result` (JSON-serialized like the runtime does). */
async function answerTo(result: unknown, options: { isError?: boolean } = {}) {
  const message = await ask([
    { role: 'user', content: 'question' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_a', name: OFFLINE_TOOLS.orderLookup, input: {} }] },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_a',
          content: typeof result === 'string' ? result : JSON.stringify(result),
          is_error: options.isError,
        },
      ],
    },
  ]);
  expect(message.stop_reason).toBe('end_turn');
  return textOf(message);
}

describe('offline model with the real Anthropic SDK', () => {
  it('streams text deltas and a tool_use for an order question, then answers from the tool result', async () => {
    const deltas: string[] = [];
    const jsonParts: string[] = [];
    const stream = client()
      .messages.stream({
        model: MODEL,
        max_tokens: 1024,
        system: 'You are a support agent.',
        tools: TOOLS,
        messages: [{ role: 'user', content: ORDER_QUESTION }],
      })
      .on('text', (delta) => deltas.push(delta))
      .on('inputJson', (partial) => jsonParts.push(partial));
    const message = await stream.finalMessage();

    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(REPLIES.preface);
    expect(jsonParts.length).toBeGreaterThanOrEqual(2);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toHaveLength(2);
    expect(message.content[0]).toMatchObject({ type: 'text', text: REPLIES.preface });
    const toolUse = toolUseOf(message)!;
    expect(toolUse).toMatchObject({ type: 'tool_use', name: 'order_lookup__lookup', input: { orderId: '12345' } });
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(1);

    expect(server.requests).toHaveLength(1);
    const recorded = server.requests[0];
    expect(recorded).toMatchObject({ model: MODEL, system: 'You are a support agent.', messageCount: 1, stream: true, status: 200 });
    expect(recorded.toolNames).toEqual(TOOLS.map((t) => t.name));
    expect(recorded.headers.authorization).toBeUndefined();
    expect(recorded.headers['x-api-key']).toBeUndefined();
    expect(recorded.headers['anthropic-version']).toBeDefined();

    const followUp = await client()
      .messages.stream({
        model: MODEL,
        max_tokens: 1024,
        tools: TOOLS,
        messages: [
          { role: 'user', content: ORDER_QUESTION },
          {
            role: 'assistant',
            content: message.content.map((b) =>
              b.type === 'text'
                ? { type: 'text' as const, text: b.text }
                : { type: 'tool_use' as const, id: toolUse.id, name: toolUse.name, input: toolUse.input },
            ),
          },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: toolUse.id,
                content: JSON.stringify({
                  orderId: '1001',
                  orderNumber: '#12345',
                  fulfillmentStatus: 'fulfilled',
                  trackingNumbers: ['TRACK-001'],
                  trackingCompany: null,
                  items: [{ name: 'Shirt', quantity: 1, sku: null }],
                }),
              },
            ],
          },
        ],
      })
      .finalMessage();
    expect(followUp.stop_reason).toBe('end_turn');
    expect(followUp.content).toHaveLength(1);
    expect(textOf(followUp)).toBe("I've looked up order #12345. It's currently shipped with tracking number TRACK-001.");
  });

  it('writes the Anthropic SSE frames in order, with a ping', async () => {
    const response = await fetch(`${baseURL}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'offline' },
      body: JSON.stringify({ model: MODEL, max_tokens: 100, stream: true, tools: TOOLS, messages: [{ role: 'user', content: ORDER_QUESTION }] }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = [...(await response.text()).matchAll(/^event: (\w+)\ndata: (.*)\n\n/gm)].map((m) => m[1]);
    expect(events[0]).toBe('message_start');
    expect(events).toContain('ping');
    expect(events.slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect(events.filter((e) => e === 'content_block_start')).toHaveLength(2);
    expect(events.filter((e) => e === 'content_block_stop')).toHaveLength(2);
  });

  it('spaces text deltas by deltaDelayMs', async () => {
    const slow = new OfflineModelServer({ deltaDelayMs: 40 });
    const url = await slow.start();
    try {
      const times: number[] = [];
      await new Anthropic({ apiKey: 'offline', baseURL: url, maxRetries: 0 }).messages
        .stream({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'Hello there' }] })
        .on('text', () => times.push(Date.now()))
        .finalMessage();
      expect(times.length).toBeGreaterThan(2);
      expect(times[times.length - 1] - times[0]).toBeGreaterThanOrEqual(60);
    } finally {
      await slow.stop();
    }
  });

  it('answers non-streaming create() with a Message', async () => {
    const message = await ask(ORDER_QUESTION);
    expect(message).toMatchObject({ type: 'message', role: 'assistant', model: MODEL, stop_reason: 'tool_use' });
    expect(message.id).toMatch(/^msg_/);
    expect(toolUseOf(message)).toMatchObject({ name: 'order_lookup__lookup', input: { orderId: '12345' } });
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    expect(server.requests[0].stream).toBe(false);
  });

  describe('routing', () => {
    it('product', () =>
      expectTool('What is the price of product 632910392, is it in stock?', 'shopify_query__get_product', { productId: '632910392' }));
    it('balance', () => expectTool('How much money do we have?', 'account_balance__lookup', {}));
    it('balance of a named account', () =>
      expectTool("What's the balance of our checking account?", 'account_balance__lookup', { accountName: 'Checking' }));
    it('kyc', () =>
      expectTool(
        'Check the identity verification for account 11111111-1111-4111-8111-111111111111 and workflow execution 22222222-2222-4222-8222-222222222222',
        'kyc_check__get_status',
        { accountId: '11111111-1111-4111-8111-111111111111', workflowExecutionId: '22222222-2222-4222-8222-222222222222' },
      ));
    it('kyc without ids asks for them', async () => {
      const message = await ask('Is my identity verification done?');
      expect(message.stop_reason).toBe('end_turn');
      expect(textOf(message)).toBe(REPLIES.askKycIds);
    });
    it('invoice', () => expectTool('Send an invoice for $120.50 to customer #58', 'invoice__send', { customerId: '58', amount: 120.5 }));
    it('invoice with a currency code', () =>
      expectTool('Invoice customer 1 for 99 EUR please', 'invoice__send', { customerId: '1', amount: 99, currency: 'EUR' }));
    it('amazon order', () => expectTool('Where is my order 902-3159896-1390916?', 'amazon_query__get_order', { orderId: '902-3159896-1390916' }));
    it('amazon order falls back to order_lookup without the amazon tool', () =>
      expectTool(
        'Status of order 902-3159896-1390916?',
        'order_lookup__lookup',
        { orderId: '902-3159896-1390916' },
        TOOLS.filter((t) => t.name !== OFFLINE_TOOLS.amazonOrder),
      ));
    it('order number without #', () => expectTool('Has order 4567 shipped yet?', 'order_lookup__lookup', { orderId: '4567' }));
    it('no tool available', async () => {
      const message = await ask(
        ORDER_QUESTION,
        TOOLS.filter((t) => t.name !== OFFLINE_TOOLS.orderLookup),
      );
      expect(message.stop_reason).toBe('end_turn');
      expect(message.content).toEqual([{ type: 'text', text: REPLIES.noTool }]);
    });
    it('small talk', async () => {
      const message = await ask('Hi!');
      expect(message.stop_reason).toBe('end_turn');
      expect(textOf(message)).toBe(REPLIES.greeting);
      expect(textOf(await ask('Tell me a joke'))).toBe(REPLIES.fallback);
    });
  });

  describe('answers from tool results', () => {
    it('orders: partial, unshipped, carrier and several tracking numbers', async () => {
      expect(
        await answerTo({
          orderNumber: '#7',
          fulfillmentStatus: 'partially_fulfilled',
          trackingNumbers: ['A1', 'B2'],
          trackingCompany: 'UPS',
          items: [],
        }),
      ).toBe("I've looked up order #7. It's currently partially shipped via UPS with tracking numbers A1 and B2.");
      expect(await answerTo({ orderNumber: '#8', fulfillmentStatus: 'unfulfilled', trackingNumbers: [], trackingCompany: null, items: [] })).toBe(
        "I've looked up order #8. It's not shipped yet.",
      );
    });
    it('product', async () => {
      expect(await answerTo({ productId: '1', title: 'IPod Nano - 8GB', price: '189.00', totalInventory: 100, variants: [] })).toBe(
        'The IPod Nano - 8GB starts at $189.00 and 100 units are in stock.',
      );
    });
    it('amazon order', async () => {
      expect(
        await answerTo({
          orderId: '902-3159896-1390916',
          status: 'Shipped',
          items: [
            { asin: 'B1', quantityOrdered: 1 },
            { asin: 'B2', quantityOrdered: 1 },
          ],
        }),
      ).toBe('Amazon order 902-3159896-1390916 is Shipped (2 items).');
    });
    it('balances', async () => {
      const text = await answerTo({
        accounts: [
          { name: 'Checking', currentBalance: 1201, currency: 'USD' },
          { name: 'Savings', currentBalance: 800.5, currency: 'USD' },
        ],
        totalBalance: 2001.5,
      });
      expect(text).toBe('Here are your account balances: Checking: 1,201.00 USD; Savings: 800.50 USD. Total: 2,001.50 USD.');
    });
    it('kyc', async () => {
      expect(
        await answerTo({ accountId: 'a', workflowExecutionId: 'w', status: 'PROCESSED', decision: { type: 'PASSED', label: null, riskScore: null } }),
      ).toBe('The identity verification is PROCESSED with decision PASSED.');
    });
    it('invoice', async () => {
      expect(
        await answerTo({
          invoiceId: '130',
          docNumber: '1038',
          totalAmount: 120.5,
          currency: 'USD',
          customerId: '58',
          emailStatus: 'EmailSent',
          sentTo: 'jo@example.com',
        }),
      ).toBe('Invoice 1038 for 120.50 USD was sent to jo@example.com.');
    });
    it('an invoice the email step could not finish, and one an earlier identical request had made', async () => {
      const invoice = { invoiceId: '130', docNumber: '1038', totalAmount: 120.5, currency: 'USD', customerId: '58' };
      expect(await answerTo({ ...invoice, emailStatus: 'NotSet', sentTo: null, partial: 'created_not_emailed' })).toBe(
        'Invoice 1038 for 120.50 USD was created, but it could not be emailed yet; an expert will follow up.',
      );
      expect(await answerTo({ ...invoice, emailStatus: 'EmailSent', sentTo: 'jo@example.com', repeated: true })).toBe(
        'Invoice 1038 for 120.50 USD was sent to jo@example.com. It had already been made for this request; no second invoice was created.',
      );
    });
    it('errors and approvals', async () => {
      expect(await answerTo('The order service is temporarily unavailable.', { isError: true })).toBe(
        "I'm unable to do that right now: The order service is temporarily unavailable. Let me connect you with an Expert.",
      );
      expect(await answerTo('waiting_approval: invoice.send needs an expert approval')).toBe(REPLIES.approval);
    });
    it('several results give several sentences', async () => {
      const message = await ask([
        { role: 'user', content: 'question' },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 't1', name: OFFLINE_TOOLS.kyc, input: {} },
            { type: 'tool_use', id: 't2', name: OFFLINE_TOOLS.invoice, input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't1',
              content: [{ type: 'text', text: JSON.stringify({ status: 'INITIATED', decision: null, workflowExecutionId: 'w' }) }],
            },
            { type: 'tool_result', tool_use_id: 't2', content: 'waiting_approval: queued for review' },
          ],
        },
      ]);
      expect(textOf(message)).toBe(`The identity verification is INITIATED; there is no decision yet. ${REPLIES.approval}`);
    });
  });

  describe('faults and errors', () => {
    const cases = [
      { fault: { kind: 'overloaded' as const }, status: 529, type: 'overloaded_error' },
      { fault: { kind: 'server_error' as const, retryAfterSeconds: 0.01 }, status: 500, type: 'api_error' },
      { fault: { kind: 'rate_limited' as const, retryAfterSeconds: 0.01 }, status: 429, type: 'rate_limit_error' },
    ];
    it.each(cases)('$fault.kind → HTTP $status without retries', async ({ fault, status, type }) => {
      server.injectFault(fault);
      const error = await ask(ORDER_QUESTION).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(APIError);
      expect((error as APIError).status).toBe(status);
      expect((error as APIError).error).toMatchObject({ type: 'error', error: { type } });
      if (fault.kind === 'rate_limited') expect((error as APIError).headers?.get('retry-after')).toBe('0.01');
      expect(server.requests).toHaveLength(1);
    });
    it.each(cases)('$fault.kind once → the SDK retries and succeeds', async ({ fault }) => {
      server.injectFault(fault);
      const message = await client(2)
        .messages.stream({ model: MODEL, max_tokens: 100, tools: TOOLS, messages: [{ role: 'user', content: ORDER_QUESTION }] })
        .finalMessage();
      expect(message.stop_reason).toBe('tool_use');
      expect(server.requests.map((r) => r.status)).toEqual([cases.find((c) => c.fault.kind === fault.kind)!.status, 200]);
      expect(server.requests[0].fault).toBe(fault.kind);
    });
    it('missing API key → 401 authentication_error', async () => {
      const error = await client(0, { defaultHeaders: { Authorization: null } })
        .messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
      expect((error as APIError).status).toBe(401);
      const raw = await fetch(`${baseURL}/v1/messages`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
      expect(raw.status).toBe(401);
      expect(await raw.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    });
    it('invalid body → 400 invalid_request_error', async () => {
      const error = await client()
        .messages.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] } as unknown as Anthropic.MessageCreateParamsNonStreaming)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      expect((error as APIError).error).toMatchObject({
        type: 'error',
        error: { type: 'invalid_request_error', message: 'max_tokens: Field required' },
      });
      const noMessages = await ask([]).catch((e: unknown) => e);
      expect((noMessages as APIError).status).toBe(400);
    });
  });
});
