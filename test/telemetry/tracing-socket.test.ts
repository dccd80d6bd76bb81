import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { startTestApp, type TestApp } from '../support/app';
import { openSocket, runOverSocket } from '../support/graphql-http';
import { seedDemo, type SeedResult } from '../../src/seed/demo-seed';
import { startTracing, stopTracing } from '../../src/telemetry/tracing';
import { newTraceparent } from './trace-tree';

/**
 * GraphQL over graphql-ws is traced like HTTP: a query is a `query {name}` span continuing a
 * `traceparent` sent in the subscribe message's extensions; a subscription is a span for its start.
 */
const exporter = new InMemorySpanExporter();
let app: TestApp;
let seed: SeedResult;

beforeAll(async () => {
  expect(
    startTracing({ enabled: true, serviceName: 'toolgate-test', endpoint: undefined }, { spanProcessors: [new SimpleSpanProcessor({ exporter })] }),
  ).toBe(true);
  app = await startTestApp();
  seed = await seedDemo(app.em(), app.masterKey);
}, 120_000); // loading the SDK under jest takes seconds
afterAll(async () => {
  await app?.close();
  await stopTracing();
});

test('a query over the websocket is a span of its own, continuing the traceparent in its extensions', async () => {
  const caller = newTraceparent();
  const { client } = await openSocket(app.wsUrl, seed.keys.admin);
  try {
    const outcome = await runOverSocket(client, { query: 'query WhoAmI { viewer { role } }', extensions: { traceparent: caller.header } });
    expect(outcome).toMatchObject({ kind: 'result', result: { data: { viewer: { role: 'admin' } } } });
    const span = exporter.getFinishedSpans().find((s) => s.name === 'query WhoAmI');
    expect(span).toBeDefined();
    expect(span!.spanContext().traceId).toBe(caller.traceId);
    expect(span!.parentSpanContext?.spanId).toBe(caller.spanId);
    expect(span!.kind).toBe(SpanKind.SERVER);
    expect(span!.attributes).toMatchObject({
      'graphql.operation.type': 'query',
      'graphql.operation.name': 'WhoAmI',
      'network.transport': 'websocket',
      'toolgate.org.id': seed.orgId,
    });
  } finally {
    await client.dispose();
  }
});

test('a subscription is a span for its start, ended once it is live', async () => {
  exporter.reset();
  const { client } = await openSocket(app.wsUrl, seed.keys.expert);
  try {
    const stop = client.subscribe(
      { query: 'subscription Inbox { approvalRequests { change sequence } }' },
      { next: () => undefined, error: () => undefined, complete: () => undefined },
    );
    let span = exporter.getFinishedSpans().find((s) => s.name === 'subscription Inbox');
    // The client hears nothing when a subscription is live: wait for the span (at most 5 s).
    for (let i = 0; !span && i < 500; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      span = exporter.getFinishedSpans().find((s) => s.name === 'subscription Inbox');
    }
    expect(span?.attributes).toMatchObject({ 'graphql.operation.type': 'subscription', 'network.transport': 'websocket' });
    stop();
  } finally {
    await client.dispose();
  }
});
