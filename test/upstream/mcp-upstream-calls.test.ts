import { startTestApp, type TestApp } from '../support/app';
import { ManualClock, timeOutHungAttempts } from '../support/clock';
import { dataOf, storedTextOf, type Tenant } from '../executor/executor-helpers';
import { DELETE_POLICY_RULE, RESOLVE_APPROVAL, UPSERT_POLICY_RULE, jsonAs } from '../support/documents';
import {
  callUpstream,
  enableTool,
  importTools,
  inspectUpstreamCall,
  mcpSandbox,
  registerServer,
  startExternalRun,
  toolCallsSeen,
  upstreamTenant,
} from './upstream-helpers';
import { EXECUTE_APPROVED_TOOL_CALL } from '../support/documents';
import type { McpSandbox } from '../../src/upstream/mcp.sandbox';
import { callState, connectMcp } from '../mcp/mcp-helpers';

/**
 * Imported upstream MCP tools called through the gateway (executeToolCall over GraphQL →
 * policy → ledger → executor → the SDK client → the sandbox's MCP server over HTTP): policy
 * and approvals apply, the ledger stores redacted output, and upstream trouble maps to the
 * executor's codes, retries and timeouts as for any vendor. Time is a manual clock: an
 * attempt times out only when the test moves it. `sbx`: idempotent, low risk (reads);
 * `sbxw`: not idempotent, high risk (writes).
 */
const TIMEOUT_MS = 800;
const WEATHER = 'mcp.sbx.weather_lookup';
const NOTIFY = 'mcp.sbxw.contact_notify';
const FAILURE = 'Tool execution failed due to a temporary service issue';

let app: TestApp;
let sandbox: McpSandbox;
let tenant: Tenant;
let runId: string;
const clock = new ManualClock();

beforeAll(async () => {
  app = await startTestApp(
    { VENDOR_TIMEOUT_MS: String(TIMEOUT_MS), VENDOR_RETRY_BASE_MS: '5', VENDOR_BREAKER_THRESHOLD: '1000' },
    { sandboxes: true, clock },
  );
  sandbox = mcpSandbox(app);
  tenant = await upstreamTenant(app);
  await importTools(app, tenant, (await registerServer(app, tenant, { name: 'sbx', defaultRisk: 'low', defaultIdempotent: true })).id);
  await importTools(app, tenant, (await registerServer(app, tenant, { name: 'sbxw', defaultRisk: 'high', defaultIdempotent: false })).id);
  await enableTool(app, tenant, WEATHER);
  await enableTool(app, tenant, NOTIFY);
  runId = (await startExternalRun(app, tenant)).id;
});

afterAll(async () => app?.close());

beforeEach(() => {
  sandbox = mcpSandbox(app);
});

const rules: string[] = [];
afterEach(async () => {
  for (const id of rules.splice(0)) dataOf(await app.gql(DELETE_POLICY_RULE, { key: tenant.keys.admin, variables: { id } }));
});

async function rule(toolPattern: string, decision: 'allow' | 'block' | 'require_expert_approval') {
  const input = { name: `${decision} ${toolPattern}`, position: 10, toolPattern, actionPattern: '*', risk: 'medium' as const, decision };
  rules.push(dataOf(await app.gql(UPSERT_POLICY_RULE, { key: tenant.keys.admin, variables: { input } })).upsertPolicyRule.id);
}

const CONTACT = { email: 'ana.customer@example.com', phone: '+1 415 555 0142', message: 'Your parcel arrives tomorrow' };

describe('policy and redaction', () => {
  test('allowed by default (low risk): the upstream result, its cost, the ledger', async () => {
    const { answer } = await callUpstream(app, tenant, runId, WEATHER, { city: 'Lisbon' });
    expect(answer).toMatchObject({ status: 'succeeded', error: null, result: { city: 'Lisbon', forecast: 'sunny', temperatureC: 21 } });
    const call = await inspectUpstreamCall(app, tenant, answer.toolCallId);
    expect(call).toMatchObject({ toolName: 'mcp.sbx', action: 'weather_lookup', status: 'succeeded', retryCount: 0, costCents: 0 });
    expect(call.ledgerEvents.map((e) => e.type)).toEqual(['tool_call.requested', 'tool_call.succeeded']);
    expect(toolCallsSeen(app)).toHaveLength(1);
  });

  test('a block rule on mcp.* stops the call before the upstream', async () => {
    await rule('mcp.*', 'block');
    const { answer } = await callUpstream(app, tenant, runId, WEATHER, { city: 'Lisbon' });
    expect(answer).toMatchObject({ status: 'blocked', error: { code: 'POLICY_BLOCKED' } });
    expect(toolCallsSeen(app)).toHaveLength(0);
  });

  test('input failing the imported schema is INVALID_TOOL_INPUT, never sent', async () => {
    const { answer } = await callUpstream(app, tenant, runId, WEATHER, { town: 'Lisbon' });
    expect(answer).toMatchObject({ status: 'blocked', error: { code: 'INVALID_TOOL_INPUT' } });
    expect(toolCallsSeen(app)).toHaveLength(0);
  });

  test('a high-risk write waits for an expert, runs once when approved, and the ledger keeps its output redacted', async () => {
    const waiting = (await callUpstream(app, tenant, runId, NOTIFY, CONTACT)).answer;
    expect(waiting.status).toBe('waiting_approval');
    expect(toolCallsSeen(app)).toHaveLength(0);
    dataOf(await app.gql(RESOLVE_APPROVAL, { key: tenant.keys.expert, variables: { id: waiting.approvalRequestId!, decision: 'APPROVE' } }));
    const ran = dataOf(await app.gql(EXECUTE_APPROVED_TOOL_CALL, { key: tenant.keys.agent, variables: { id: waiting.toolCallId } }));
    // The agent gets the upstream's answer in full.
    expect(ran.executeApprovedToolCall).toMatchObject({ status: 'succeeded', result: { sentTo: { email: CONTACT.email, phone: CONTACT.phone } } });
    expect(sandbox.notifications).toEqual([expect.objectContaining({ email: CONTACT.email, message: CONTACT.message })]);

    const call = await inspectUpstreamCall(app, tenant, waiting.toolCallId);
    const output = jsonAs<{ notificationId: string; sentTo: { email: string; phone: string } }>(call.output);
    expect(output.notificationId).toBe(sandbox.notifications[0].notificationId);
    expect(output.sentTo).toEqual({ email: '[REDACTED]', phone: '[REDACTED]' });
    const stored = await storedTextOf(app, waiting.toolCallId);
    // Only the call's input (what the agent asked for: personal data is redacted in outputs) keeps them.
    for (const personal of [CONTACT.email, CONTACT.phone]) expect(stored.split(personal).length - 1).toBe(1);
    expect(jsonAs<typeof CONTACT>(call.input)).toEqual(CONTACT);

    // Repeating the approved call never runs it again.
    const again = dataOf(await app.gql(EXECUTE_APPROVED_TOOL_CALL, { key: tenant.keys.agent, variables: { id: waiting.toolCallId } }));
    expect(again.executeApprovedToolCall.replayed).toBe(true);
    expect(sandbox.notifications).toHaveLength(1);
  });

  test('require_expert_approval by rule on a low-risk read', async () => {
    await rule('mcp.sbx', 'require_expert_approval');
    const { answer } = await callUpstream(app, tenant, runId, WEATHER, { city: 'Berlin' });
    expect(answer.status).toBe('waiting_approval');
    expect(answer.approvalRequestId).toBeTruthy();
    expect(toolCallsSeen(app)).toHaveLength(0);
    dataOf(await app.gql(RESOLVE_APPROVAL, { key: tenant.keys.expert, variables: { id: answer.approvalRequestId!, decision: 'REJECT' } }));
  });
});

test("Toolgate's own MCP endpoint lists the run's imported tools and calls them through the gateway", async () => {
  const client = await connectMcp(app, `runs/${runId}`, tenant.keys.agent);
  try {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([WEATHER, NOTIFY]);
    const result = await client.callTool({ name: WEATHER, arguments: { city: 'Toronto' } });
    expect(result.structuredContent).toEqual({ city: 'Toronto', forecast: 'snow showers', temperatureC: -3 });
    expect(callState(result)).toMatchObject({ status: 'succeeded' });
    expect(toolCallsSeen(app)).toHaveLength(1);
  } finally {
    await client.close();
  }
});

describe('upstream trouble maps to the executor codes', () => {
  test('an isError result: VENDOR_ERROR vendor_rejected, not retried, no upstream text', async () => {
    const { answer, raw } = await callUpstream(app, tenant, runId, WEATHER, { city: 'Atlantis' });
    expect(answer).toMatchObject({ status: 'failed', error: { code: 'VENDOR_ERROR', message: FAILURE } });
    const call = await inspectUpstreamCall(app, tenant, answer.toolCallId);
    expect(call.retryCount).toBe(0);
    expect(call.ledgerEvents.find((e) => e.type === 'tool_call.failed')?.metadata.reason).toBe('vendor_rejected');
    expect(`${raw}${JSON.stringify(call)}`).not.toContain('No forecast');
    expect(toolCallsSeen(app)).toHaveLength(1);
  });

  test('a 503 on tools/call of an idempotent tool is retried, then succeeds', async () => {
    app.sandbox!.injectFault('mcp', { kind: 'status', status: 503 }, { bodyIncludes: 'tools/call' });
    const { answer } = await callUpstream(app, tenant, runId, WEATHER, { city: 'Toronto' });
    expect(answer.status).toBe('succeeded');
    const call = await inspectUpstreamCall(app, tenant, answer.toolCallId);
    expect(call.retryCount).toBe(1);
    expect(call.ledgerEvents.find((e) => e.type === 'tool_call.retried')?.metadata).toMatchObject({ attempt: 1, cause: '503' });
    // Both attempts carry the call's idempotency key, so an upstream that honours it runs it once.
    const keys = toolCallsSeen(app).map(
      (r) => (r.body as { params: { _meta?: Record<string, unknown> } }).params._meta?.['io.toolgate/idempotencyKey'],
    );
    expect(keys).toEqual([`toolgate-${answer.toolCallId}`, `toolgate-${answer.toolCallId}`]);
  });

  // An upstream tool cannot be asked whether a call happened: an answer that leaves it open is
  // VENDOR_OUTCOME_UNKNOWN for review, never "temporary issue" (which invites a second message).
  test('a 500 on a non-idempotent tool: VENDOR_OUTCOME_UNKNOWN with the status, never retried', async () => {
    await rule('mcp.sbxw', 'allow');
    app.sandbox!.injectFault('mcp', { kind: 'status', status: 500 }, { bodyIncludes: 'tools/call', times: 3 });
    const { answer, raw } = await callUpstream(app, tenant, runId, NOTIFY, CONTACT);
    expect(answer).toMatchObject({
      status: 'failed',
      error: { code: 'VENDOR_OUTCOME_UNKNOWN', message: expect.stringContaining('may have happened') },
    });
    const call = await inspectUpstreamCall(app, tenant, answer.toolCallId);
    expect(call).toMatchObject({ retryCount: 0, vendorStatusCode: 500 });
    expect(call.ledgerEvents.find((e) => e.type === 'tool_call.failed')?.metadata).toMatchObject({
      reason: 'no_lookup',
      uncertain: '500',
      reconciled: 'vendor_outcome_unknown',
    });
    expect(raw).not.toContain('vendor-internal-trace-xyz');
    expect(toolCallsSeen(app)).toHaveLength(1);
    expect(sandbox.notifications).toHaveLength(0);
  });

  test('a dropped connection on a non-idempotent tool: VENDOR_OUTCOME_UNKNOWN (it may have arrived), never repeated', async () => {
    await rule('mcp.sbxw', 'allow');
    app.sandbox!.injectFault('mcp', { kind: 'reset' }, { bodyIncludes: 'tools/call', times: 3 });
    const { answer } = await callUpstream(app, tenant, runId, NOTIFY, CONTACT);
    expect(answer).toMatchObject({ status: 'failed', error: { code: 'VENDOR_OUTCOME_UNKNOWN' } });
    const call = await inspectUpstreamCall(app, tenant, answer.toolCallId);
    expect(call.retryCount).toBe(0);
    expect(call.ledgerEvents.find((e) => e.type === 'tool_call.failed')?.metadata).toMatchObject({
      reason: 'no_lookup',
      uncertain: 'connection_reset',
    });
    expect(toolCallsSeen(app)).toHaveLength(1);
  });

  test('a dropped connection on an idempotent tool is retried', async () => {
    app.sandbox!.injectFault('mcp', { kind: 'reset' }, { bodyIncludes: 'tools/call' });
    const { answer } = await callUpstream(app, tenant, runId, WEATHER, { city: 'Berlin' });
    expect(answer.status).toBe('succeeded');
    expect((await inspectUpstreamCall(app, tenant, answer.toolCallId)).retryCount).toBe(1);
  });

  test('a hung attempt times out on the clock (VENDOR_TIMEOUT once all 4 attempts hang)', async () => {
    app.sandbox!.injectFault('mcp', { kind: 'hang' }, { bodyIncludes: 'tools/call', times: 4 });
    const pending = callUpstream(app, tenant, runId, WEATHER, { city: 'Berlin' });
    await timeOutHungAttempts(clock, TIMEOUT_MS, 4, () => toolCallsSeen(app).length);
    const { answer } = await pending;
    expect(answer).toMatchObject({ status: 'failed', error: { code: 'VENDOR_TIMEOUT', message: FAILURE } });
    const call = await inspectUpstreamCall(app, tenant, answer.toolCallId);
    expect(call.retryCount).toBe(3);
    expect(call.ledgerEvents.filter((e) => e.type === 'tool_call.retried').map((e) => e.metadata.cause)).toEqual(['timeout', 'timeout', 'timeout']);
  });

  test('a slow answer within the timeout succeeds, its wait in the recorded duration', async () => {
    app.sandbox!.injectFault('mcp', { kind: 'slow', delayMs: 500 }, { bodyIncludes: 'tools/call' });
    const { answer } = await callUpstream(app, tenant, runId, WEATHER, { city: 'Berlin' });
    expect(answer.status).toBe('succeeded');
    expect((await inspectUpstreamCall(app, tenant, answer.toolCallId)).durationMs).toBeGreaterThanOrEqual(500);
  });

  test('an upstream that now demands a token it lacks: VENDOR_ERROR vendor_auth_failed (401)', async () => {
    sandbox.bearerToken = 'required-now';
    const { answer } = await callUpstream(app, tenant, runId, WEATHER, { city: 'Berlin' });
    expect(answer).toMatchObject({ status: 'failed', error: { code: 'VENDOR_ERROR' } });
    const call = await inspectUpstreamCall(app, tenant, answer.toolCallId);
    expect(call).toMatchObject({ vendorStatusCode: 401, retryCount: 0 });
    expect(call.ledgerEvents.find((e) => e.type === 'tool_call.failed')?.metadata.reason).toBe('vendor_auth_failed');
  });
});
