import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { withClient } from '../../src/db/throwaway-postgres';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { childEnv, freePort, killChildren, spawnCli, waitFor, withTimeout, type Running } from '../support/processes';
import { SpanTree, newTraceparent, type SeenSpan } from './trace-tree';

/**
 * The "done when": a run with an approval, traced by real `toolgate start`
 * processes into a local OTLP/HTTP receiver (this test's server, JSON encoding), is one
 * trace across the pause and the resume — and the resume runs on another process on the
 * same database: the first one is stopped before the approval is given.
 */
const MASTER_KEY_HEX = 'e7'.repeat(32);
const INVOICE_REQUEST = 'Please send an invoice for $120.50 to customer 1';
let db: TestDatabase;
let receiver: http.Server;
let receiverUrl: string;
const exported: SeenSpan[] = [];
const requests: { path: string; contentType: string }[] = [];

/** OTLP/JSON `SpanKind` (1 internal … 5 consumer) as the API's enum (0 … 4). */
const apiKind = (kind: number) => kind - 1;

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number; arrayValue?: { values: AnyValue[] } };
function plainValue(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return value.arrayValue.values.map(plainValue);
  return undefined;
}
const attributesOf = (list: { key: string; value: AnyValue }[] = []) => Object.fromEntries(list.map((a) => [a.key, plainValue(a.value)]));

interface OtlpExport {
  resourceSpans: {
    resource: { attributes: { key: string; value: AnyValue }[] };
    scopeSpans: {
      spans: {
        name: string;
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        kind: number;
        attributes?: { key: string; value: AnyValue }[];
        links?: { traceId: string; spanId: string }[];
      }[];
    }[];
  }[];
}

function receive(body: OtlpExport): void {
  for (const resourceSpans of body.resourceSpans) {
    const resource = attributesOf(resourceSpans.resource.attributes);
    for (const scope of resourceSpans.scopeSpans) {
      for (const span of scope.spans) {
        exported.push({
          name: span.name,
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId || undefined,
          kind: apiKind(span.kind),
          attributes: attributesOf(span.attributes),
          links: (span.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
          pid: resource['process.pid'] as number,
        });
      }
    }
  }
}

beforeAll(async () => {
  db = await createTestDatabase();
  // A local OTLP/HTTP receiver: POST /v1/traces, JSON.
  receiver = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', contentType: req.headers['content-type'] ?? '' });
      if (req.method === 'POST' && req.url === '/v1/traces') receive(JSON.parse(body) as OtlpExport);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
}, 120_000);
afterAll(async () => {
  await killChildren();
  await new Promise((resolve) => receiver?.close(resolve));
  await db?.drop();
});

const env = (port: number, name: string, traced: boolean) =>
  childEnv({
    DATABASE_URL: db.url,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    MASTER_ENCRYPTION_KEY: MASTER_KEY_HEX,
    TOOLGATE_VENDOR_SANDBOXES: 'true',
    ANTHROPIC_MODEL: 'claude-offline-1',
    TOOLGATE_NODE_NAME: name,
    OTEL_EXPORTER_OTLP_ENDPOINT: traced ? receiverUrl : undefined,
    OTEL_EXPORTER_OTLP_PROTOCOL: traced ? 'http/json' : undefined,
    OTEL_BSP_SCHEDULE_DELAY: traced ? '200' : undefined,
    OTEL_TRACES_EXPORTER: undefined,
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
  });

async function startServer(port: number, name: string): Promise<Running> {
  const server = spawnCli(['start'], env(port, name, true));
  await waitFor(
    `the server ${name}`,
    async () => ((await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.ok ? true : undefined),
    60_000,
    server,
  );
  return server;
}

async function stopServer(server: Running): Promise<void> {
  server.child.kill('SIGTERM');
  const exit = await withTimeout(server.exited, 30_000, () => `no exit after SIGTERM\n${server.stderr()}`);
  expect(exit.code).toBe(0);
}

async function gql(port: number, key: string, query: string, variables: Record<string, unknown>, headers: Record<string, string> = {}) {
  const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: any; errors?: unknown[] };
  if (!body.data) throw new Error(`GraphQL failed: ${JSON.stringify(body.errors)}`);
  return body.data;
}

/** The run's status once it is one of `statuses` and its job queue is empty (the step that got it there is over). */
async function settled(port: number, key: string, runId: string, statuses: string[], server: Running): Promise<string> {
  return waitFor(
    `run ${runId} to be ${statuses.join('/')}`,
    async () => {
      const { run } = await gql(port, key, 'query($id: ID!) { run(id: $id) { status } }', { id: runId });
      if (!statuses.includes(run.status)) return undefined;
      const rows = await withClient(
        db.url,
        async (client) => (await client.query('select count(*)::int as n from graphile_worker.jobs where queue_name = $1', [`run:${runId}`])).rows,
      );
      return rows[0].n === 0 ? (run.status as string) : undefined;
    },
    60_000,
    server,
  );
}

test('a run paused on one server and resumed on another after its approval is one trace at the OTLP receiver', async () => {
  const seeded = spawnCli(['seed', '--json'], env(0, 'seed', false));
  const { code, stdout } = await seeded.exited;
  expect(code).toBe(0);
  const seed = JSON.parse(stdout) as { specialistId: string; keys: Record<string, string> };

  const portA = await freePort();
  const first = await startServer(portA, 'otel-a');
  const caller = newTraceparent();
  const { startAgentRun } = await gql(
    portA,
    seed.keys.client,
    'mutation($input: StartAgentRunInput!) { startAgentRun(input: $input) { id } }',
    { input: { specialistId: seed.specialistId, message: INVOICE_REQUEST } },
    { traceparent: caller.header },
  );
  const runId = startAgentRun.id as string;
  expect(await settled(portA, seed.keys.admin, runId, ['waiting_approval'], first)).toBe('waiting_approval');
  const firstPid = first.child.pid;
  await stopServer(first); // its spans are flushed before it exits

  const portB = await freePort();
  const second = await startServer(portB, 'otel-b');
  const { approvalRequests } = await gql(portB, seed.keys.expert, '{ approvalRequests(first: 10) { edges { node { id } } } }', {});
  const approvalId = approvalRequests.edges[0].node.id as string;
  const approver = newTraceparent();
  await gql(
    portB,
    seed.keys.expert,
    'mutation($id: ID!) { resolveApproval(id: $id, decision: APPROVE) { id status } }',
    { id: approvalId },
    { traceparent: approver.header },
  );
  expect(await settled(portB, seed.keys.admin, runId, ['completed', 'failed'], second)).toBe('completed');
  const secondPid = second.child.pid;
  await stopServer(second);

  expect(requests.length).toBeGreaterThan(0);
  expect(requests.every((r) => r.path === '/v1/traces' && r.contentType.startsWith('application/json'))).toBe(true);
  const all = new SpanTree(exported);
  const tree = new SpanTree(exported.filter((s) => s.traceId === caller.traceId));

  // The HTTP server span continues the caller's traceparent; the operation is under it.
  const [operation] = tree.named('mutation');
  expect(operation ?? tree.spans.map((s) => s.name)).toBeDefined();
  const httpServer = tree.parentOf(operation)!;
  expect(httpServer.kind).toBe(1); // SERVER
  expect(httpServer.parentSpanId).toBe(caller.spanId);
  expect(httpServer.pid).toBe(firstPid);

  // One trace across the pause and the resume: a step on each process, both under the operation.
  const steps = tree.named('invoke_agent');
  expect(steps.map((s) => s.pid).sort()).toEqual([firstPid, secondPid].sort());
  for (const step of steps) expect(step.parentSpanId).toBe(operation.spanId);
  const resumed = steps.find((s) => s.pid === secondPid)!;
  const resolveSpan = all.where((s) => s.traceId === approver.traceId && s.name.startsWith('mutation'))[0];
  expect(resumed.links).toEqual([{ traceId: approver.traceId, spanId: resolveSpan.spanId }]);

  // The gateway's stages: decided on the first process, executed and recorded on the second.
  const stages = tree.where((s) => s.name === 'execute_tool invoice.send');
  expect(stages.map((s) => [s.attributes['toolgate.stage'], s.pid])).toEqual(
    expect.arrayContaining([
      ['decide', firstPid],
      ['execute', secondPid],
      ['record', secondPid],
    ]),
  );
  const decide = stages.find((s) => s.attributes['toolgate.stage'] === 'decide')!;
  expect(decide.attributes).toMatchObject({
    'toolgate.decision': 'require_expert_approval',
    'toolgate.risk': 'high',
    'gen_ai.operation.name': 'execute_tool',
  });

  // Model requests, vendor HTTP and SQL of both processes are in the trace, under their steps.
  const chats = tree.named('chat claude-offline-1');
  expect(chats.map((c) => c.pid).sort()).toEqual([firstPid, secondPid].sort());
  expect(chats.every((c) => Number(c.attributes['gen_ai.usage.output_tokens']) > 0)).toBe(true);
  const sql = tree.where((s) => s.attributes['db.system.name'] === 'postgresql' || s.attributes['db.system'] === 'postgresql');
  expect(new Set(sql.map((s) => s.pid))).toEqual(new Set([firstPid, secondPid]));
  for (const step of steps) expect(all.descendants(step).some((s) => sql.includes(s))).toBe(true);
  const execute = stages.find((s) => s.attributes['toolgate.stage'] === 'execute')!;
  expect(tree.descendants(execute).some((s) => s.kind === 2 && s.attributes['http.request.method'] === 'POST')).toBe(true);
  // SQL spans carry statements, never their parameter values.
  expect(all.attributeText()).not.toMatch(/Birds@Intuit/i);
}, 300_000);
