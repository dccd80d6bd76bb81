import { randomUUID } from 'node:crypto';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { TestApp } from '../support/app';
import { graphql } from '../gql';
import type { CallAnswerFragment, ExecutorToolCallQuery } from '../gql/graphql';
import { SetFeatureFlagDocument } from '../../gql/graphql';
import { BIND_TOOL, EXECUTE_APPROVED_TOOL_CALL, EXECUTE_TOOL_CALL, PUT_CREDENTIAL, SET_TOOL_PERMISSION, START_AGENT_RUN } from '../support/documents';
import { newOrg } from '../support/factories';
import { seedDemo } from '../../src/seed/demo-seed';
import { SANDBOX_CREDENTIALS } from '../../src/vendors';
import { TOOL_CATALOG } from '../../src/catalog/tool-catalog';
import type { Role } from '../../src/auth/roles';
import type { RecordedRequest } from '../../src/vendors/sandbox/sandbox-server';
import { toolKey } from '../../src/catalog/tool-key';

/**
 * Helpers of the executor integration tests: an org ready to call tools (flag, permissions,
 * bindings, sandbox credentials), a run, a call through GraphQL, and what was recorded.
 */
export interface Tenant {
  orgId: string;
  specialistId: string;
  keys: Record<Role, string>;
}

export type ToolCallView = ExecutorToolCallQuery['toolCall'];
type LedgerView = ToolCallView['ledgerEvents'][number];

const TOOL_CALL = graphql(`
  query ExecutorToolCall($id: ID!) {
    toolCall(id: $id) {
      status errorCode errorText vendorStatusCode retryCount durationMs costCents
      ledgerEvents { type metadata }
    }
  }
`);

/** The sandbox's fault bodies carry this; it must never leave the executor. */
export const SANDBOX_SECRET_DETAIL = 'vendor-internal-trace-xyz';
export const VENDOR_FAILURE_TEXT = 'Tool execution failed due to a temporary service issue';
export const NOT_CONFIGURED_TEXT = 'Tool execution failed: integration not configured';

/** Fails the test with the GraphQL errors when there are any. */
export function dataOf<T>(response: { body: { data?: T | null; errors?: unknown[] } }): T {
  if (response.body.errors?.length || !response.body.data) {
    throw new Error(`GraphQL errors: ${JSON.stringify(response.body.errors)}`);
  }
  return response.body.data;
}

/** The demo org (its seed enables every tool, the flag and the sandbox credentials). */
export async function demoTenant(app: TestApp): Promise<Tenant> {
  const seeded = await seedDemo(app.em(), app.masterKey);
  return { orgId: seeded.orgId, specialistId: seeded.specialistId, keys: seeded.keys };
}

/**
 * A fresh org set up through the admin API: the tool-calling flag, every catalog tool of
 * the given vendors (or only the `tool.action`s listed) enabled and bound to its
 * specialist, the sandbox credentials of those vendors (or the given configs).
 */
export async function newTenant(
  app: TestApp,
  vendors: string[] = ['shopify'],
  credentials: Record<string, Record<string, unknown>> = {},
  only?: string[],
): Promise<Tenant> {
  const wanted = TOOL_CATALOG.filter((t) => vendors.includes(t.vendor) && (!only || only.includes(toolKey(t.toolName, t.action))));
  return tenantWith(
    app,
    wanted.map((t) => ({ toolName: t.toolName, action: t.action })),
    Object.fromEntries(vendors.map((vendor) => [vendor, credentials[vendor] ?? { ...SANDBOX_CREDENTIALS[vendor] }])),
  );
}

/** A fresh org with the tool-calling flag, these tools enabled and bound to its specialist, and these credentials (by integration type). */
export async function tenantWith(
  app: TestApp,
  tools: { toolName: string; action: string }[],
  credentials: Record<string, Record<string, unknown>>,
): Promise<Tenant> {
  const made = await newOrg(app.em());
  const admin = made.keys.admin;
  const gqlOk = async <R, V>(document: TypedDocumentNode<R, V>, variables: V) => dataOf(await app.gql(document, { key: admin, variables }));

  await gqlOk(SetFeatureFlagDocument, { key: 'tool_calling_enabled', enabled: true });
  for (const { toolName, action } of tools) {
    await gqlOk(SET_TOOL_PERMISSION, { tool: toolName, action, enabled: true });
    await gqlOk(BIND_TOOL, { input: { toolName, action, specialistId: made.specialist.id, bound: true } });
  }
  for (const [integrationType, config] of Object.entries(credentials)) await putCredential(app, admin, integrationType, config);
  return { orgId: made.org.id, specialistId: made.specialist.id, keys: made.keys };
}

export async function putCredential(app: TestApp, adminKey: string, integrationType: string, config: Record<string, unknown>): Promise<void> {
  dataOf(await app.gql(PUT_CREDENTIAL, { key: adminKey, variables: { type: integrationType, config } }));
}

/** An external run of the tenant's specialist (agent key); its id. */
export async function startRun(app: TestApp, tenant: Tenant): Promise<string> {
  const data = dataOf(
    await app.gql(START_AGENT_RUN, {
      key: tenant.keys.agent,
      variables: { input: { specialistId: tenant.specialistId, driver: 'EXTERNAL' } },
    }),
  );
  expect(data.startAgentRun.status).toBe('running');
  return data.startAgentRun.id;
}

export interface CallOutcome {
  /** What executeToolCall answered. */
  answer: CallAnswerFragment;
  /** The raw GraphQL response body, for leak checks. */
  raw: string;
}

export async function callTool(app: TestApp, tenant: Tenant, runId: string, tool: string, params: Record<string, unknown>): Promise<CallOutcome> {
  const [toolName, action] = tool.split('.');
  const response = await app.gql(EXECUTE_TOOL_CALL, {
    key: tenant.keys.agent,
    variables: { input: { runId, toolName, action, params, correlationId: `test-${randomUUID()}` } },
  });
  return { answer: dataOf(response).executeToolCall, raw: JSON.stringify(response.body) };
}

export async function executeApproved(app: TestApp, tenant: Tenant, toolCallId: string): Promise<CallOutcome> {
  const response = await app.gql(EXECUTE_APPROVED_TOOL_CALL, {
    key: tenant.keys.agent,
    variables: { id: toolCallId },
  });
  return { answer: dataOf(response).executeApprovedToolCall, raw: JSON.stringify(response.body) };
}

/** The recorded call as the admin API shows it. */
export async function inspectCall(app: TestApp, tenant: Tenant, toolCallId: string): Promise<ToolCallView & { raw: string }> {
  const response = await app.gql(TOOL_CALL, { key: tenant.keys.admin, variables: { id: toolCallId } });
  return { ...dataOf(response).toolCall, raw: JSON.stringify(response.body) };
}

export const eventsOf = (call: ToolCallView, type: string): LedgerView[] => call.ledgerEvents.filter((e) => e.type === type);

/** The reason the ledger's tool_call.failed event gives. */
export function failedReason(call: ToolCallView): unknown {
  const failed = eventsOf(call, 'tool_call.failed');
  expect(failed).toHaveLength(1);
  return failed[0].metadata.reason;
}

/** Requests the sandbox saw for a vendor (optionally only paths containing a string). */
export function vendorRequests(app: TestApp, vendor: string, pathIncludes?: string): RecordedRequest[] {
  return app.sandbox!.requests.filter((r) => r.vendor === vendor && (!pathIncludes || r.path.includes(pathIncludes)));
}

export function resetSandbox(app: TestApp): void {
  app.sandbox!.clearFaults();
  app.sandbox!.requests.length = 0;
}

/** Raw SQL on the app's database (`?` placeholders). */
export async function sql<T = Record<string, unknown>>(app: TestApp, query: string, params: unknown[] = []): Promise<T[]> {
  return app.em().getConnection().execute<T[]>(query, params);
}

/** The stored tool_calls row and every ledger event of the call, as text. */
export async function storedTextOf(app: TestApp, toolCallId: string): Promise<string> {
  const rows = await sql(app, 'select row_to_json(t)::text as row from tool_calls t where id = ?', [toolCallId]);
  const events = await sql(app, 'select row_to_json(e)::text as row from ledger_events e where resource_id = ?', [toolCallId]);
  expect(rows).toHaveLength(1);
  return [...rows, ...events].map((r) => String(r.row)).join('\n');
}
