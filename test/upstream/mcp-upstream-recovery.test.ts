import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../support/app';
import { dyingNode } from '../support/dying-node';
import { dataOf, type Tenant } from '../executor/executor-helpers';
import { UPSERT_POLICY_RULE } from '../support/documents';
import {
  enableTool,
  importTools,
  inspectUpstreamCall,
  mcpSandbox,
  registerServer,
  splitKey,
  startExternalRun,
  toolCallsSeen,
  upstreamTenant,
} from './upstream-helpers';

/**
 * An imported upstream tool's call interrupted on a node that died with it `running` (a
 * second gateway on the same database whose executor never answers), settled by the test
 * app's reconciler as any vendor's: an idempotent tool is called again; a non-idempotent
 * one cannot be looked up (MCP has no way to ask), so it is VENDOR_OUTCOME_UNKNOWN for review
 * and never repeated.
 */
let app: TestApp;
let tenant: Tenant;
let runId: string;
const WEATHER = 'mcp.sbx.weather_lookup';
const NOTIFY = 'mcp.sbxw.contact_notify';

beforeAll(async () => {
  app = await startTestApp({}, { sandboxes: true });
  mcpSandbox(app);
  tenant = await upstreamTenant(app);
  await importTools(app, tenant, (await registerServer(app, tenant, { name: 'sbx', defaultIdempotent: true })).id);
  await importTools(app, tenant, (await registerServer(app, tenant, { name: 'sbxw', defaultIdempotent: false })).id);
  await enableTool(app, tenant, WEATHER);
  await enableTool(app, tenant, NOTIFY);
  runId = (await startExternalRun(app, tenant)).id;
});

afterAll(async () => app?.close());

/** Starts the call on a node whose executor never answers; resolves once it is `running` there. */
async function interruptedCall(name: string, params: Record<string, unknown>): Promise<{ id: string; nodeId: string }> {
  const { nodeId, gateway } = await dyingNode(app);
  const toolUseId = `tu-${randomUUID()}`;
  const caller = { orgId: tenant.orgId, role: 'agent' as const, keyId: null };
  void gateway.execute({ runId, ...splitKey(name), params, correlationId: 'c', toolUseId, caller });
  for (let i = 0; i < 200; i++) {
    const [row] = await app.em().execute<{ id: string }[]>("select id from tool_calls where tool_use_id = ? and status = 'running'", [toolUseId]);
    if (row) return { id: row.id, nodeId };
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the call never ran');
}

test('an idempotent upstream tool is called again and succeeds', async () => {
  mcpSandbox(app);
  const call = await interruptedCall(WEATHER, { city: 'Lisbon' });
  expect(await app.services.reconciler.reconcile(call.id, call.nodeId, 'test')).toBe('re_executed');
  const settled = await inspectUpstreamCall(app, tenant, call.id);
  expect(settled.status).toBe('succeeded');
  expect(settled.output).toMatchObject({ city: 'Lisbon', forecast: 'sunny' });
  expect(toolCallsSeen(app)).toHaveLength(1);
});

test('a non-idempotent upstream tool is VENDOR_OUTCOME_UNKNOWN for review, never repeated', async () => {
  const input = {
    name: 'allow writes',
    position: 10,
    toolPattern: 'mcp.sbxw',
    actionPattern: '*',
    risk: 'high' as const,
    decision: 'allow' as const,
  };
  dataOf(await app.gql(UPSERT_POLICY_RULE, { key: tenant.keys.admin, variables: { input } }));
  const sandbox = mcpSandbox(app);
  const call = await interruptedCall(NOTIFY, { email: 'ana@example.com', message: 'Hi' });
  expect(await app.services.reconciler.reconcile(call.id, call.nodeId, 'test')).toBe('vendor_outcome_unknown');
  const settled = await inspectUpstreamCall(app, tenant, call.id);
  expect(settled).toMatchObject({ status: 'failed', errorCode: 'VENDOR_OUTCOME_UNKNOWN' });
  expect(settled.ledgerEvents.find((e) => e.type === 'tool_call.failed')?.metadata).toMatchObject({ reason: 'no_lookup' });
  const [row] = await app.em().execute<{ review_required: boolean }[]>('select review_required from tool_calls where id = ?', [call.id]);
  expect(row.review_required).toBe(true);
  expect(toolCallsSeen(app)).toHaveLength(0);
  expect(sandbox.notifications).toHaveLength(0);
});
