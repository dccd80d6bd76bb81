import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { startTestApp, type TestApp } from '../support/app';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { EXECUTE_TOOL_CALL, RESOLVE_APPROVAL, START_AGENT_RUN } from '../support/documents';
import { seedDemo, type SeedResult } from '../../src/seed/demo-seed';
import { isTracingOn, startTracing, stopTracing } from '../../src/telemetry/tracing';
import { RunClient } from '../runs/run-helpers';
import { SpanTree, newTraceparent, type SeenSpan } from './trace-tree';

/**
 * The span tree of a run that pauses for an expert's approval and resumes on a restarted
 * server, recorded with an in-memory exporter: the caller's traceparent is continued, the
 * run's steps before and after the pause are one trace (the job payload carries it), the
 * resumed step links to the approval's own trace, the gateway's stages are `execute_tool`
 * spans with the GenAI and Toolgate attributes, every model request a `chat` span with its
 * token usage, and the vendor and model HTTP requests sit under them.
 */
const ENV = { ANTHROPIC_MODEL: 'claude-offline-1' };
const INVOICE_REQUEST = 'Please send an invoice for $120.50 to customer 1';

const exporter = new InMemorySpanExporter();
let db: TestDatabase;
let app: TestApp;
let seed: SeedResult;
const serve = () => startTestApp(ENV, { sandboxes: true, offlineModel: true, worker: true, database: db });

beforeAll(async () => {
  expect(
    startTracing({ enabled: true, serviceName: 'toolgate-test', endpoint: undefined }, { spanProcessors: [new SimpleSpanProcessor({ exporter })] }),
  ).toBe(true);
  db = await createTestDatabase();
  app = await serve();
  seed = await seedDemo(app.em(), app.masterKey);
}, 120_000); // loading the SDK under jest takes seconds
afterAll(async () => {
  await app?.close();
  await db?.drop();
  await stopTracing();
});

function seen(span: ReadableSpan): SeenSpan {
  const context = span.spanContext();
  return {
    name: span.name,
    traceId: context.traceId,
    spanId: context.spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    kind: span.kind,
    attributes: { ...span.attributes },
    links: span.links.map((l) => ({ traceId: l.context.traceId, spanId: l.context.spanId })),
    pid: undefined,
  };
}

test('a run paused for approval and resumed on another server is one trace, continuing the caller’s traceparent', async () => {
  expect(isTracingOn()).toBe(true);
  const caller = newTraceparent();
  const started = await app.gql(START_AGENT_RUN, {
    key: seed.keys.client,
    variables: { input: { specialistId: seed.specialistId, message: INVOICE_REQUEST } },
    headers: { traceparent: caller.header },
  });
  const runId = started.body.data!.startAgentRun.id;
  let runs = new RunClient(app, seed);
  const waiting = await runs.waitFor(runId, ['waiting_approval']);
  await runs.jobsDone(runId);
  const approvalId = waiting.toolCalls[0].approvalRequest!.id;
  const toolUseId = waiting.messages[1].content.find((b) => b.type === 'tool_use')!.id!;

  // The first server is gone; a new one on the same database takes the approval and the resumed step.
  await app.close();
  app = await serve();
  runs = new RunClient(app, seed);
  const approver = newTraceparent();
  const resolved = await app.gql(RESOLVE_APPROVAL, {
    key: seed.keys.expert,
    variables: { id: approvalId, decision: 'APPROVE' },
    headers: { traceparent: approver.header },
  });
  expect(resolved.body.data?.resolveApproval.status).toBe('approved');
  expect((await runs.waitFor(runId)).status).toBe('completed');
  await runs.jobsDone(runId);

  const all = new SpanTree(exporter.getFinishedSpans().map(seen));
  const tree = new SpanTree(all.spans.filter((s) => s.traceId === caller.traceId));

  // The GraphQL operation continues the caller's trace (directly, or under the HTTP server span).
  const [operation] = tree.named('mutation StartAgentRun');
  expect(operation).toBeDefined();
  expect(operation.attributes).toMatchObject({ 'graphql.operation.type': 'mutation', 'graphql.operation.name': 'StartAgentRun' });
  expect(operation.attributes['toolgate.correlation_id']).toEqual(expect.any(String));
  expect(operation.attributes['toolgate.org.id']).toBe(seed.orgId);
  const httpServer = tree.parentOf(operation);
  expect(httpServer ? httpServer.parentSpanId : operation.parentSpanId).toBe(caller.spanId);

  // Two steps, both children of the operation that started the run: before and after the pause.
  const steps = tree.named('invoke_agent');
  expect(steps).toHaveLength(2);
  for (const step of steps) {
    expect(step.parentSpanId).toBe(operation.spanId);
    expect(step.kind).toBe(SpanKind.CONSUMER);
    expect(step.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': runId, 'toolgate.run.id': runId });
  }
  // The resumed step links to the approval's trace, which is a trace of its own.
  const resolveSpan = all.named('mutation ResolveApproval')[0];
  expect(resolveSpan.traceId).toBe(approver.traceId);
  const [paused, resumed] = steps.sort((a, b) => a.links.length - b.links.length);
  expect(paused.links).toEqual([]);
  expect(resumed.links).toEqual([{ traceId: approver.traceId, spanId: resolveSpan.spanId }]);

  // Before the pause: the model asks for the tool, the gateway decides it needs an expert.
  const decide = tree.where((s) => s.name === 'execute_tool invoice.send' && s.attributes['toolgate.stage'] === 'decide');
  expect(decide).toHaveLength(1);
  expect(tree.ancestorNamed(decide[0], 'invoke_agent')).toBe(paused);
  expect(decide[0].attributes).toMatchObject({
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'invoice.send',
    'gen_ai.tool.call.id': toolUseId,
    'toolgate.decision': 'require_expert_approval',
    'toolgate.risk': 'high',
    'toolgate.tool_call.id': waiting.toolCalls[0].id,
    'toolgate.tool_call.status': 'waiting_approval',
    'toolgate.run.id': runId,
    'toolgate.org.id': seed.orgId,
  });

  // After it: the approved call runs (execute, then record) in the resumed step.
  const stage = (name: string) => tree.where((s) => s.name === 'execute_tool invoice.send' && s.attributes['toolgate.stage'] === name);
  const [execute] = stage('execute');
  const [record] = stage('record');
  expect(tree.ancestorNamed(execute, 'invoke_agent')).toBe(resumed);
  expect(tree.ancestorNamed(record, 'invoke_agent')).toBe(resumed);
  expect(execute.attributes).toMatchObject({
    'gen_ai.tool.call.id': toolUseId,
    'toolgate.tool_call.id': waiting.toolCalls[0].id,
    'toolgate.risk': 'high',
  });
  expect(execute.attributes['toolgate.error.code']).toBeUndefined();
  expect(record.attributes['toolgate.tool_call.status']).toBe('succeeded');
  // The vendor request (QuickBooks through the Nango sandbox) is an HTTP client span under execute.
  const vendorHttp = tree.descendants(execute).filter((s) => s.kind === SpanKind.CLIENT && s.attributes['http.request.method'] === 'POST');
  expect(vendorHttp.length).toBeGreaterThanOrEqual(1);

  // One chat span per model request, each in its step, with the token usage.
  const chats = tree.named('chat claude-offline-1');
  expect(chats).toHaveLength(2);
  expect(chats.map((c) => tree.parentOf(c))).toEqual(expect.arrayContaining([paused, resumed]));
  for (const chat of chats) {
    expect(chat.kind).toBe(SpanKind.CLIENT);
    expect(chat.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'claude-offline-1',
      'gen_ai.provider.name': 'anthropic',
    });
    expect(chat.attributes['gen_ai.usage.input_tokens']).toEqual(expect.any(Number));
    expect(chat.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    // The offline model reports no prompt cache: none read, none written.
    expect(chat.attributes['gen_ai.usage.cache_read.input_tokens']).toBe(0);
    expect(chat.attributes['gen_ai.usage.cache_creation.input_tokens']).toBe(0);
    // The model's HTTP request is under its chat span.
    expect(tree.children(chat).some((s) => s.kind === SpanKind.CLIENT && String(s.attributes['url.full']).endsWith('/v1/messages'))).toBe(true);
  }
  expect(chats.map((c) => c.attributes['gen_ai.response.finish_reasons'])).toEqual(expect.arrayContaining([['tool_use'], ['end_turn']]));
  // The Anthropic SDK's own spans are off: a second chat span per request would count its tokens twice.
  expect(all.where((s) => s.name.startsWith('anthropic.'))).toEqual([]);

  // Parameters, results and model text never become attributes.
  const text = all.attributeText();
  expect(text).not.toMatch(/Birds@Intuit/i);
  expect(text).not.toContain(INVOICE_REQUEST);
  expect(text).not.toContain('120.5');
});

test('executeToolCall over HTTP (the lighter route by default) is a span of its operation, with the gateway stages under it', async () => {
  const runs = new RunClient(app, seed);
  const started = await app.gql(START_AGENT_RUN, {
    key: seed.keys.agent,
    variables: { input: { specialistId: seed.specialistId, driver: 'EXTERNAL' } },
  });
  const runId = started.body.data!.startAgentRun.id;
  const caller = newTraceparent();
  const input = { runId, toolName: 'order_lookup', action: 'lookup', params: { orderId: '12345' }, correlationId: 'trace-route-1' };
  const called = await app.gql(EXECUTE_TOOL_CALL, { key: seed.keys.agent, variables: { input }, headers: { traceparent: caller.header } });
  expect(called.body.errors).toBeUndefined();
  await runs.jobsDone(runId);
  const refused = newTraceparent();
  const forbidden = await app.gql(EXECUTE_TOOL_CALL, {
    key: seed.keys.client,
    variables: { input: { ...input, correlationId: 'trace-route-2' } },
    headers: { traceparent: refused.header },
  });
  expect(forbidden.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');

  const all = new SpanTree(exporter.getFinishedSpans().map(seen));
  const tree = new SpanTree(all.spans.filter((s) => s.traceId === caller.traceId));
  const [operation] = tree.named('mutation ExecuteToolCall');
  expect(operation.attributes).toMatchObject({
    'graphql.operation.type': 'mutation',
    'graphql.operation.name': 'ExecuteToolCall',
    'toolgate.org.id': seed.orgId,
    'http.response.status_code': 200,
  });
  const httpServer = tree.parentOf(operation);
  expect(httpServer ? httpServer.parentSpanId : operation.parentSpanId).toBe(caller.spanId);
  const stages = tree.where((s) => s.name === 'execute_tool order_lookup.lookup');
  expect(stages.length).toBeGreaterThanOrEqual(1);
  for (const stage of stages) expect(tree.ancestorNamed(stage, 'mutation ExecuteToolCall')).toBe(operation);

  const [failed] = new SpanTree(all.spans.filter((s) => s.traceId === refused.traceId)).named('mutation ExecuteToolCall');
  expect(failed.attributes['toolgate.error.code']).toBe('FORBIDDEN');
});
