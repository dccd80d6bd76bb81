import { useDemoApp } from '../support/demo-fixture';
import { AgentRun } from '../../src/runs/agent-run.entity';
import { appendMessage, loadMessages, type StoredBlock } from '../../src/runs/run-messages';
import { Specialist } from '../../src/orgs/specialist.entity';
import { ToolCall } from '../../src/gateway/tool-call.entity';
import { RunStepStatus } from '../../src/runtime/run-step-status';
import { toolsForManifest } from '../../src/llm/tool-definitions';
import { RunClient } from './run-helpers';

/**
 * What a step reads before its model request, in fewer statements: the run, its org's
 * suspension, its specialist's prompt and its messages in one read, and the tools offered
 * without a read when the manifest holds no imported tool. Each must give exactly what the
 * separate reads gave. This server runs no worker: a step runs only when a test calls it.
 */
const ENV = { ANTHROPIC_MODEL: 'claude-offline-1', ANTHROPIC_MAX_RETRIES: '0' };

let runs: RunClient;
const demo = useDemoApp(ENV, { offlineModel: true });
beforeAll(() => {
  runs = new RunClient(demo.app, demo.seed);
});

const status = () => new RunStepStatus({ orm: demo.app.orm, events: demo.app.services.runEvents });

describe("a step's load", () => {
  test('is the run, its messages as loadMessages reads them, and its specialist prompt', async () => {
    const { id } = await runs.start("What's the status of my order #12345?");
    await demo.app.em().transactional(async (tx) => {
      const run = { id, orgId: demo.seed.orgId };
      const blocks: StoredBlock[] = [{ type: 'text', text: 'Looking — "quoted", üñí, \\ and a\nnewline' }];
      appendMessage(tx, run, 1, 'assistant', blocks, 'end_turn');
      appendMessage(tx, run, 2, 'user', [{ type: 'text', text: 'And #12346?' }]);
      await tx.flush();
    });
    const loaded = await status().load(id);
    const messages = await loadMessages(demo.app.em(), id);
    const plain = (list: typeof messages) => list.map((m) => ({ ...m, createdAt: m.createdAt.toISOString() }));
    expect(loaded).not.toBeNull();
    expect(loaded!.messages.map((m) => m.createdAt instanceof Date)).toEqual([true, true, true]);
    expect(plain(loaded!.messages)).toEqual(plain(messages));
    expect(loaded!.messages.map((m) => m.position)).toEqual([0, 1, 2]);

    const run = await demo.app.em().findOneOrFail(AgentRun, { id });
    expect(loaded!.run).toEqual(run);
    expect(loaded!.orgSuspended).toBe(false);
    const specialist = await demo.app.em().findOneOrFail(Specialist, { id: run.specialistId });
    expect(loaded!.systemPrompt).toBe(specialist.systemPrompt ?? null);
  });

  test('a run without messages loads none; an unknown run is null', async () => {
    const { id } = await runs.start('Hello');
    await demo.app.em().execute('delete from run_messages where run_id = ?', [id]);
    expect((await status().load(id))?.messages).toEqual([]);
    expect(await status().load('00000000-0000-4000-8000-000000000000')).toBeNull();
  });
});

describe("a step's load of a run waiting for approval", () => {
  test('has the call its pending tool result waits for, as the ORM reads it; once resolved the step runs it', async () => {
    const { id } = await runs.start('Please send an invoice for $120.50 to customer 1');
    await demo.app.services.runtime.step(id);
    const [pending] = await demo.app
      .em()
      .execute<{ id: string; tool_call_id: string }[]>(`select id, tool_call_id from approval_requests where run_id = ? and status = 'pending'`, [
        id,
      ]);
    const loaded = await status().load(id);
    expect([...loaded!.pendingCalls.keys()]).toEqual([pending.tool_call_id]);
    const call = await demo.app.em().findOneOrFail(ToolCall, { id: pending.tool_call_id });
    expect(loaded!.pendingCalls.get(call.id)).toEqual(call);
    expect(call.status).toBe('waiting_approval');

    expect((await runs.resolve(pending.id, 'APPROVE')).body.errors).toBeUndefined();
    expect((await status().load(id))!.pendingCalls.get(call.id)!.status).toBe('approved');
    await demo.app.services.runtime.step(id);
    const run = await runs.get(id);
    expect(run.status).toBe('completed');
    expect((await status().load(id))!.pendingCalls.size).toBe(0);
  });
});

describe('the tools a model turn is offered', () => {
  test('without an imported tool in the manifest: the registry list filtered by the manifest, in its order', async () => {
    const model = demo.app.model!;
    const { id } = await runs.start('Hello there');
    await demo.app.services.runtime.step(id);
    const offered = (model.requests.at(-1)!.body as { tools: Record<string, unknown>[] }).tools.map(({ cache_control: _, ...tool }) => tool);
    const run = await demo.app.em().findOneOrFail(AgentRun, { id });
    const listed = await demo.app.services.tools.list(demo.app.em(), demo.seed.orgId);
    const expected = toolsForManifest(
      run.metadata.runtimeManifest.allowedTools,
      listed.map((tool) => tool.definition),
      run.metadata.runtimeManifest.upstreamTools,
    );
    expect(offered.length).toBeGreaterThan(1);
    expect(offered).toEqual(expected);
  });
});
