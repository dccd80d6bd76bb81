import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { useDemoApp } from '../support/demo-fixture';
import { EXECUTE_APPROVED_TOOL_CALL } from '../support/documents';
import { startWorker } from '../../src/jobs/worker';
import { appendMessage, type StoredBlock } from '../../src/runs/run-messages';
import { REPLIES } from '../../src/llm/dev-double/offline-model.replies';
import type { ModelFault } from '../../src/llm/dev-double/offline-model.types';
import { RunClient, errorCode, isInvoiceCreate, types, until } from './run-helpers';

/**
 * Steps of the agent runtime taken one at a time: this server runs no worker, so a test
 * calls `runtime.step` itself (or runs a worker for a moment) and nothing happens behind
 * its back. The SDK does not retry (ANTHROPIC_MAX_RETRIES=0), so one model fault is final.
 *
 * The cases named "regression" reproduce, deterministically, bugs this suite found.
 */
const ENV = { ANTHROPIC_MODEL: 'claude-offline-1', ANTHROPIC_MAX_RETRIES: '0' };
const ORDER_QUESTION = "What's the status of my order #12345?";
const INVOICE_REQUEST = 'Please send an invoice for $120.50 to customer 1';

let runs: RunClient;
const demo = useDemoApp(ENV, { sandboxes: true, offlineModel: true });
beforeAll(async () => {
  runs = new RunClient(demo.app, demo.seed);
});
afterEach(() => {
  demo.app.model?.clearFaults();
  demo.app.sandbox?.clearFaults();
});

const step = (runId: string) => demo.app.services.runtime.step(runId);

/** A real worker of this server until `work` is done (it also takes older jobs: steps of finished runs, no-ops). */
async function withWorker(work: () => Promise<void>): Promise<void> {
  const { db, orm, services } = demo.app;
  const worker = await startWorker({ connectionString: db.url, orm, runtime: services.runtime, logger: services.logger });
  try {
    await work();
  } finally {
    await worker.stop();
  }
}

/** Stores messages as if earlier model turns had produced them. */
async function storeMessages(runId: string, from: number, messages: ['user' | 'assistant', StoredBlock[]][]): Promise<void> {
  await demo.app.em().transactional(async (tx) => {
    messages.forEach(([role, content], i) => {
      appendMessage(tx, { id: runId, orgId: demo.seed.orgId }, from + i, role, content);
    });
    await tx.flush();
  });
}

describe('a queued run', () => {
  // First in the file: its job is then the only one the worker can take.
  test('is RUN_BUSY for postMessage; cancelled before a worker took it, its job later does nothing', async () => {
    const modelBefore = demo.app.model!.requests.length;
    const { id, status } = await runs.start(ORDER_QUESTION);
    expect(status).toBe('queued');
    expect(await runs.jobsOf(id)).toBe(1);
    const busy = await runs.postMessage(id, 'Hello?');
    expect(errorCode(busy)).toBe('RUN_BUSY');
    expect(busy.body.errors![0].extensions).toMatchObject({ runStatus: 'queued' });

    expect((await runs.cancel(id)).body.data?.cancelRun.status).toBe('cancelled');
    await withWorker(() => runs.jobsDone(id));
    const run = await runs.get(id);
    expect(run.status).toBe('cancelled');
    expect(run.messages.map((m) => m.role)).toEqual(['user']);
    expect(run.toolCalls).toEqual([]);
    expect(types(run)).toEqual(['run.created', 'run.cancelled']);
    expect(demo.app.model!.requests.length).toBe(modelBefore);
  });
});

describe("a queued run's first step", () => {
  // The first model request goes out together with the run.started transaction. A cancel
  // that wins that race (reproduced here by cancelling inside the transition) leaves no
  // trace of the request: no reply stored, no tool call, no run.started.
  test('cancelled while its first model request is on its way: nothing of the turn is kept', async () => {
    const { id } = await runs.start(ORDER_QUESTION);
    // The step's status changes (src/runtime/run-step-status.ts), as the runtime holds them.
    const runtime = (demo.app.services.runtime as unknown as { lifecycle: { transition: (...args: unknown[]) => Promise<boolean> } }).lifecycle;
    const transition = runtime.transition.bind(runtime);
    const shopifyBefore = runs.vendorRequests('shopify');
    runtime.transition = async (...args: unknown[]) => {
      expect((await runs.cancel(id)).body.data?.cancelRun.status).toBe('cancelled');
      return transition(...args);
    };
    try {
      await step(id);
    } finally {
      delete (runtime as { transition?: unknown }).transition; // the prototype's again
    }
    const run = await runs.get(id);
    expect(run.status).toBe('cancelled');
    expect(run.messages.map((m) => m.role)).toEqual(['user']);
    expect(run.toolCalls).toEqual([]);
    expect(types(run)).toEqual(['run.created', 'run.cancelled']);
    expect(runs.vendorRequests('shopify')).toBe(shopifyBefore);
  });
});

describe('model failures beyond the SDK retries', () => {
  test.each<[string, ModelFault, number]>([
    ['529 overloaded', { kind: 'overloaded' }, 529],
    ['500 server error', { kind: 'server_error' }, 500],
    ['429 rate limited', { kind: 'rate_limited', retryAfterSeconds: 1 }, 429],
  ])('%s: the run fails MODEL_UNAVAILABLE (run.failed); a new message afterwards is answered', async (_label, fault, httpStatus) => {
    demo.app.model!.injectFault(fault, 1);
    const modelBefore = demo.app.model!.requests.length;
    const { id } = await runs.start(ORDER_QUESTION);
    await step(id);
    const failed = await runs.get(id);
    expect(failed).toMatchObject({ status: 'failed', errorCode: 'MODEL_UNAVAILABLE', errorMessage: expect.any(String), reply: null });
    expect(failed.toolCalls).toEqual([]);
    expect(types(failed)).toEqual(['run.created', 'run.started', 'run.failed']);
    expect(failed.ledgerEvents[2].metadata).toMatchObject({ errorCode: 'MODEL_UNAVAILABLE' });
    expect(demo.app.model!.requests.slice(modelBefore).map((r) => r.status)).toEqual([httpStatus]);

    // A failed run is finished, so it takes a new message, and the model is back.
    const posted = await runs.postMessage(id, ORDER_QUESTION);
    expect(posted.body.data?.postMessage.status).toBe('queued');
    await step(id);
    const answered = await runs.get(id);
    expect(answered).toMatchObject({ status: 'completed', errorCode: null, errorMessage: null });
    expect(answered.reply).toContain('TRACK-001');
  });
});

describe('a tool_use outside the manifest', () => {
  test('is blocked NOT_IN_MANIFEST by the gateway, the model is told so and the run completes', async () => {
    const ordersOnly = await runs.specialistWith('Orders only', 'order_lookup', 'lookup');
    const nangoBefore = runs.vendorRequests('nango');
    const { id } = await runs.start(INVOICE_REQUEST, { specialistId: ordersOnly });
    // A model that asks for a tool it was not offered (the offline model never does).
    await storeMessages(id, 1, [
      [
        'assistant',
        [
          { type: 'text', text: REPLIES.prefaceAction },
          { type: 'tool_use', id: 'toolu_unoffered_1', name: 'invoice__send', input: { customerId: '1', amount: 120.5 } },
        ],
      ],
    ]);
    await step(id);
    const run = await runs.get(id);
    expect(run.status).toBe('completed');
    expect(run.allowedTools).toEqual(['order_lookup.lookup']);
    expect(run.reply).toBe(REPLIES.unable('The requested tool is not available in this conversation context'));
    expect(run.toolCalls).toHaveLength(1);
    expect(run.toolCalls[0]).toMatchObject({ toolName: 'invoice', action: 'send', status: 'blocked', errorCode: 'NOT_IN_MANIFEST' });
    expect(run.ledgerEvents.find((e) => e.type === 'tool_call.blocked')?.metadata).toMatchObject({ reason: 'not_in_manifest' });
    expect(runs.vendorRequests('nango')).toBe(nangoBefore);
  });
});

describe('RUN_MAX_TOOL_ROUNDS (default 8)', () => {
  /** `n` finished tool rounds after the question: tool_use, then its result. */
  const rounds = (n: number): ['user' | 'assistant', StoredBlock[]][] =>
    Array.from({ length: n }).flatMap((_, i): ['user' | 'assistant', StoredBlock[]][] => [
      ['assistant', [{ type: 'tool_use', id: `toolu_round_${i}`, name: 'order_lookup__lookup', input: { orderId: '12345' } }]],
      [
        'user',
        [
          {
            type: 'tool_result',
            tool_use_id: `toolu_round_${i}`,
            content: JSON.stringify({ orderNumber: '#12345', fulfillmentStatus: 'fulfilled', trackingNumbers: ['TRACK-001'] }),
          },
        ],
      ],
    ]);

  test('a turn past the limit fails TOOL_ROUND_LIMIT without asking the model again', async () => {
    const modelBefore = demo.app.model!.requests.length;
    const { id } = await runs.start(ORDER_QUESTION);
    await storeMessages(id, 1, rounds(9));
    await step(id);
    const run = await runs.get(id);
    expect(run).toMatchObject({ status: 'failed', errorCode: 'TOOL_ROUND_LIMIT' });
    expect(types(run).at(-1)).toBe('run.failed');
    expect(demo.app.model!.requests.length).toBe(modelBefore);
  });

  // The limit counts rounds used: after exactly the allowed rounds the model still answers
  // (an off-by-one once failed such turns, and with RUN_MAX_TOOL_ROUNDS=1 every tool turn).
  test('regression: a turn that used exactly the allowed rounds still gets its answer', async () => {
    const { id } = await runs.start(ORDER_QUESTION);
    await storeMessages(id, 1, rounds(8));
    await step(id);
    const run = await runs.get(id);
    expect(run).toMatchObject({ status: 'completed', errorCode: null });
    expect(run.reply).toContain('TRACK-001');
  });
});

describe('steps of one run at once', () => {
  test('two steps of a queued run race: one tool_use, one tool call, one vendor request', async () => {
    const shopifyBefore = runs.vendorRequests('shopify');
    const { id } = await runs.start(ORDER_QUESTION);
    await Promise.allSettled([step(id), step(id)]);
    // A step that lost a race may have thrown; the job queue would run it again: so does the test.
    await step(id).catch(() => undefined);
    const run = await runs.get(id);
    expect(run.messages.flatMap((m) => m.content.filter((b) => b.type === 'tool_use'))).toHaveLength(1);
    expect(run.toolCalls).toHaveLength(1);
    expect(run.toolCalls[0].status).toBe('succeeded');
    expect(runs.vendorRequests('shopify')).toBe(shopifyBefore + 1);
    expect(types(run).filter((t) => t === 'tool_call.requested')).toHaveLength(1);
    // How the run ends under this race is the next test's subject.
    expect(['completed', 'failed']).toContain(run.status);
  });

  // A step whose turn another step already stored must not take that for a model failure
  // (it once failed the run MODEL_UNAVAILABLE although the model answered).
  // Reproduced without timing luck: this test holds the run row, lets the step's model call
  // finish, stores the competing turn and only then lets the step write.
  test('regression: a step that loses the write of its turn to another step does not fail the run', async () => {
    const { id } = await runs.start(ORDER_QUESTION);
    await demo.app.em().execute("update agent_runs set status = 'running' where id = ?", [id]); // the other step started the run
    const other = new Client({ connectionString: demo.app.db.url });
    await other.connect();
    try {
      await other.query('begin');
      await other.query('select id from agent_runs where id = $1 for update', [id]);
      const stepping = step(id);
      await until(async () => {
        const [row] = await demo.app
          .em()
          .execute<{ n: string }[]>("select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'");
        return Number(row.n) > 0;
      }, 'the step to wait for the run row');
      const turn = [
        { type: 'text', text: REPLIES.preface },
        { type: 'tool_use', id: 'toolu_other_step', name: 'order_lookup__lookup', input: { orderId: '12345' } },
      ];
      await other.query(
        "insert into run_messages (id, org_id, run_id, position, role, content, created_at) values ($1, $2, $3, 1, 'assistant', $4, now())",
        [randomUUID(), demo.seed.orgId, id, JSON.stringify(turn)],
      );
      await other.query('commit');
      await stepping.catch(() => undefined); // yielding by throwing is fine: the job would be retried
    } finally {
      await other.end();
    }
    expect(await runs.get(id)).toMatchObject({ status: 'running', errorCode: null });
    await step(id); // the next step continues from the stored turn
    const run = await runs.get(id);
    expect(run.status).toBe('completed');
    expect(run.reply).toContain('TRACK-001');
  });
});

describe('an agent key executing the approved call of an INTERNAL run', () => {
  /** An internal run whose invoice an expert approved; its resume step is enqueued, not yet run. */
  async function approvedInvoice(): Promise<{ id: string; toolCallId: string }> {
    const { id } = await runs.start(INVOICE_REQUEST);
    await step(id);
    const waiting = await runs.get(id);
    expect(waiting.status).toBe('waiting_approval');
    expect((await runs.resolve(waiting.toolCalls[0].approvalRequest!.id, 'APPROVE')).body.errors).toBeUndefined();
    return { id, toolCallId: waiting.toolCalls[0].id };
  }

  // An agent key may not execute the calls of a run Toolgate's runtime drives (FORBIDDEN):
  // otherwise the runtime would replay the call without its result, and the customer would
  // hear "unable" although the invoice was sent.
  test('regression: before the resume step: the model still learns the invoice was sent', async () => {
    const invoicesBefore = runs.vendorRequests('nango', isInvoiceCreate);
    const { id, toolCallId } = await approvedInvoice();
    await demo.app.gql(EXECUTE_APPROVED_TOOL_CALL, { key: demo.seed.keys.agent, variables: { id: toolCallId } });
    await step(id);
    const run = await runs.get(id);
    expect(runs.vendorRequests('nango', isInvoiceCreate)).toBe(invoicesBefore + 1);
    expect(run.status).toBe('completed');
    expect(run.reply).toMatch(/^Invoice \S+ .*was sent/);
  });

  // Same cause: with the agent's execution in flight, the resume step would find the call
  // `running` and stop, leaving the run `running` with nothing to advance it.
  test('regression: during the resume step: the run is not left running with nothing to advance it', async () => {
    const { id, toolCallId } = await approvedInvoice();
    demo.app.sandbox!.injectFault('nango', { kind: 'slow', delayMs: 800 }, { pathIncludes: '/invoice' });
    let agentDone = false;
    const agent = demo.app
      .gql(EXECUTE_APPROVED_TOOL_CALL, { key: demo.seed.keys.agent, variables: { id: toolCallId } })
      .finally(() => (agentDone = true));
    await until(async () => agentDone || (await runs.get(id)).toolCalls[0].status === 'running', 'the agent call to start');
    await withWorker(() => runs.jobsDone(id)); // the resume step, taken while the agent's call runs
    await agent;
    await withWorker(async () => void (await runs.waitFor(id, ['completed', 'failed', 'cancelled'], 3000)));
    const run = await runs.get(id);
    expect(run.status).toBe('completed');
    expect(run.reply).toMatch(/^Invoice \S+ .*was sent/);
  });
});
