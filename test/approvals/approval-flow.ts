import { randomUUID } from 'node:crypto';
import { startTestApp, errorCode, type GraphQLResponse, type TestApp } from '../support/app';
import { seedDemo } from '../../src/seed/demo-seed';
import { QBO_DEMO_CUSTOMERS } from '../../src/vendors/nango/nango.sandbox-data';
import { ToolCall } from '../../src/gateway/tool-call.entity';
import { ApprovalRequest } from '../../src/approvals/approval-request.entity';
import { AgentRun } from '../../src/runs/agent-run.entity';
import { LedgerEvent } from '../../src/ledger/ledger-event.entity';
import { ROLES, type Role } from '../../src/auth/roles';

/**
 * The approval flow as an external agent runtime drives it, over HTTP against a real
 * Toolgate with the in-process vendor sandboxes: the demo org (every tool enabled and
 * bound, tool calling on, sandbox credentials), one key per role.
 *
 * invoice.send is high risk, so it waits for an expert by default. With
 * `clientApprovalAbove`, a policy rule sends invoices above that amount to the client
 * instead, so one org holds both kinds.
 */
export interface Flow {
  app: TestApp;
  orgId: string;
  specialistId: string;
  keys: Record<Role, string>;
  keyIds: Record<Role, string>;
}

export const CLIENT_APPROVAL_ABOVE = 1000;
export const EXPERT_AMOUNT = 120.5;
export const CLIENT_AMOUNT = 5000;

export async function startFlow(env: Record<string, string> = {}): Promise<Flow> {
  const app = await startTestApp(env, { sandboxes: true });
  try {
    const seed = await seedDemo(app.em(), app.masterKey);
    const keyIds = {} as Record<Role, string>;
    for (const role of ROLES) {
      const res = await app.gql<{ viewer: { apiKeyId: string } }>('{ viewer { apiKeyId } }', { key: seed.keys[role] });
      keyIds[role] = res.body.data!.viewer.apiKeyId;
    }
    const flow: Flow = { app, orgId: seed.orgId, specialistId: seed.specialistId, keys: seed.keys, keyIds };
    const rule = await app.gql(`mutation($input: PolicyRuleInput!) { upsertPolicyRule(input: $input) { id decision } }`, {
      key: seed.keys.admin,
      variables: {
        input: {
          name: 'Large invoices need the client',
          position: 0,
          toolPattern: 'invoice',
          actionPattern: 'send',
          conditions: [{ path: 'amount', op: 'gt', value: CLIENT_APPROVAL_ABOVE }],
          risk: 'high',
          decision: 'require_client_approval',
        },
      },
    });
    if (rule.body.errors) throw new Error(`upsertPolicyRule failed: ${JSON.stringify(rule.body.errors)}`);
    return flow;
  } catch (error) {
    await app.close();
    throw error;
  }
}

export async function startRun(flow: Flow): Promise<string> {
  const res = await flow.app.gql<{ startAgentRun: { id: string; status: string } }>(
    `mutation($input: StartAgentRunInput!) { startAgentRun(input: $input) { id status } }`,
    { key: flow.keys.agent, variables: { input: { specialistId: flow.specialistId, driver: 'EXTERNAL' } } },
  );
  if (!res.body.data) throw new Error(`startAgentRun failed: ${JSON.stringify(res.body.errors)}`);
  expect(res.body.data.startAgentRun.status).toBe('running');
  return res.body.data.startAgentRun.id;
}

export interface CallResult {
  status: string;
  toolCallId: string;
  result: Record<string, unknown> | null;
  error: { code: string; message: string } | null;
  approvalRequestId: string | null;
  replayed: boolean;
}

const RESULT_FIELDS = 'status toolCallId result error { code message } approvalRequestId replayed';

export async function requestInvoice(
  flow: Flow,
  runId: string,
  params: Record<string, unknown> = { customerId: QBO_DEMO_CUSTOMERS.amys, amount: EXPERT_AMOUNT },
): Promise<CallResult> {
  const res = await flow.app.gql<{ executeToolCall: CallResult }>(
    `mutation($input: ExecuteToolCallInput!) { executeToolCall(input: $input) { ${RESULT_FIELDS} } }`,
    {
      key: flow.keys.agent,
      variables: { input: { runId, toolName: 'invoice', action: 'send', params, correlationId: `corr-${randomUUID()}` } },
    },
  );
  if (!res.body.data) throw new Error(`executeToolCall failed: ${JSON.stringify(res.body.errors)}`);
  return res.body.data.executeToolCall;
}

/** A run waiting for one approval of the given kind. */
export async function waitingCall(flow: Flow, kind: 'expert' | 'client' = 'expert') {
  const runId = await startRun(flow);
  const amount = kind === 'expert' ? EXPERT_AMOUNT : CLIENT_AMOUNT;
  const call = await requestInvoice(flow, runId, { customerId: QBO_DEMO_CUSTOMERS.amys, amount });
  expect(call.status).toBe('waiting_approval');
  expect(call.approvalRequestId).toEqual(expect.any(String));
  return { runId, toolCallId: call.toolCallId, approvalId: call.approvalRequestId!, amount };
}

export interface ResolvedApproval {
  id: string;
  status: string;
  kind: string;
  resolvedBy: string | null;
  reason: string | null;
  resolvedAt: string | null;
}

export function resolve(
  flow: Flow,
  key: string,
  id: string,
  decision: 'APPROVE' | 'REJECT',
  reason: string | null = null,
): Promise<GraphQLResponse<{ resolveApproval: ResolvedApproval }>> {
  return flow.app.gql<{ resolveApproval: ResolvedApproval }>(
    `mutation($id: ID!, $decision: ApprovalDecision!, $reason: String) {
       resolveApproval(id: $id, decision: $decision, reason: $reason) { id status kind resolvedBy reason resolvedAt }
     }`,
    { key, variables: { id, decision, reason } },
  );
}

export async function executeApproved(
  flow: Flow,
  toolCallId: string,
  key = flow.keys.agent,
): Promise<GraphQLResponse<{ executeApprovedToolCall: CallResult }>> {
  return flow.app.gql<{ executeApprovedToolCall: CallResult }>(
    `mutation($id: ID!) { executeApprovedToolCall(toolCallId: $id) { ${RESULT_FIELDS} } }`,
    { key, variables: { id: toolCallId } },
  );
}

/** Invoices created in the QuickBooks sandbox (POST …/invoice), not the e-mail sends. */
export function invoicePosts(app: TestApp): number {
  return app.sandbox!.requests.filter((r) => r.vendor === 'nango' && r.method === 'POST' && r.path.endsWith('/invoice')).length;
}

export function nangoRequests(app: TestApp): number {
  return app.sandbox!.requests.filter((r) => r.vendor === 'nango').length;
}

/** The rows as stored now, read on a fresh EntityManager. */
export async function rowsOf(app: TestApp, toolCallId: string) {
  const em = app.em();
  const call = await em.findOneOrFail(ToolCall, { id: toolCallId });
  const approval = await em.findOne(ApprovalRequest, { toolCallId });
  const run = await em.findOneOrFail(AgentRun, { id: call.runId });
  return { call, approval, run };
}

export async function ledgerOf(app: TestApp, runId: string): Promise<LedgerEvent[]> {
  return app.em().find(LedgerEvent, { runId }, { orderBy: { sequence: 'asc' } });
}

export async function ledgerTypes(app: TestApp, runId: string): Promise<string[]> {
  return (await ledgerOf(app, runId)).map((e) => e.type);
}

/** Raw SQL on the app's database (bypasses the ORM's identity map). */
export async function sql(app: TestApp, query: string, params: unknown[] = []): Promise<void> {
  await app.em().getConnection().execute(query, params);
}

export { errorCode };
