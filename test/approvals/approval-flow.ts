import { randomUUID } from 'node:crypto';
import { startTestApp, errorCode, type TestApp } from '../support/app';
import { useDemoApp } from '../support/demo-fixture';
import { EXECUTE_APPROVED_TOOL_CALL, EXECUTE_TOOL_CALL, START_AGENT_RUN, UPSERT_POLICY_RULE } from '../support/documents';
import { graphql } from '../gql';
import { ViewerDocument } from '../../gql/graphql';
import type { CallAnswerFragment, PolicyRuleInput } from '../gql/graphql';
import { seedDemo, type SeedResult } from '../../src/seed/demo-seed';
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
 * invoice.send is high risk, so it waits for an expert by default; a policy rule
 * (CLIENT_APPROVAL_RULE) sends invoices above CLIENT_APPROVAL_ABOVE to the client instead,
 * so one org holds both kinds.
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

/** Invoices above CLIENT_APPROVAL_ABOVE wait for the client, the others for an expert. */
export const CLIENT_APPROVAL_RULE: PolicyRuleInput = {
  name: 'Large invoices need the client',
  position: 0,
  toolPattern: 'invoice',
  actionPattern: 'send',
  conditions: [{ path: 'amount', op: 'gt', value: CLIENT_APPROVAL_ABOVE }],
  risk: 'high',
  decision: 'require_client_approval',
};

/** The api key id of each role's key, and the rule that sends large invoices to the client. */
async function prepareFlow(app: TestApp, seed: SeedResult): Promise<Record<Role, string>> {
  const keyIds = {} as Record<Role, string>;
  for (const role of ROLES) {
    const res = await app.gql(ViewerDocument, { key: seed.keys[role] });
    keyIds[role] = res.body.data!.viewer.apiKeyId;
  }
  const rule = await app.gql(UPSERT_POLICY_RULE, { key: seed.keys.admin, variables: { input: CLIENT_APPROVAL_RULE } });
  if (rule.body.errors) throw new Error(`upsertPolicyRule failed: ${JSON.stringify(rule.body.errors)}`);
  return keyIds;
}

/**
 * The suite's flow (the demo fixture with the vendor sandboxes and the flow's rule), started
 * in a beforeAll and closed in an afterAll. Read it inside hooks and tests.
 */
export function useFlow(): Flow {
  let keyIds: Record<Role, string> | undefined;
  const demo = useDemoApp(
    {},
    {
      sandboxes: true,
      prepare: async (app, seed) => {
        keyIds = await prepareFlow(app, seed);
      },
    },
  );
  return {
    get app() {
      return demo.app;
    },
    get orgId() {
      return demo.seed.orgId;
    },
    get specialistId() {
      return demo.seed.specialistId;
    },
    get keys() {
      return demo.seed.keys;
    },
    get keyIds() {
      if (!keyIds) throw new Error('useFlow: the flow is prepared in beforeAll; read it inside hooks and tests');
      return keyIds;
    },
  };
}

/** A flow of its own (e.g. with other settings), for one test; the caller closes `app`. */
export async function startFlow(env: Record<string, string> = {}, options: Parameters<typeof startTestApp>[1] = {}): Promise<Flow> {
  const app = await startTestApp(env, { sandboxes: true, ...options });
  try {
    const seed = await seedDemo(app.em(), app.masterKey);
    const keyIds = await prepareFlow(app, seed);
    return { app, orgId: seed.orgId, specialistId: seed.specialistId, keys: seed.keys, keyIds };
  } catch (error) {
    await app.close();
    throw error;
  }
}

export async function startRun(flow: Flow): Promise<string> {
  const res = await flow.app.gql(START_AGENT_RUN, {
    key: flow.keys.agent,
    variables: { input: { specialistId: flow.specialistId, driver: 'EXTERNAL' } },
  });
  if (!res.body.data) throw new Error(`startAgentRun failed: ${JSON.stringify(res.body.errors)}`);
  expect(res.body.data.startAgentRun.status).toBe('running');
  return res.body.data.startAgentRun.id;
}

export async function requestInvoice(
  flow: Flow,
  runId: string,
  params: Record<string, unknown> = { customerId: QBO_DEMO_CUSTOMERS.amys, amount: EXPERT_AMOUNT },
): Promise<CallAnswerFragment> {
  const res = await flow.app.gql(EXECUTE_TOOL_CALL, {
    key: flow.keys.agent,
    variables: { input: { runId, toolName: 'invoice', action: 'send', params, correlationId: `corr-${randomUUID()}` } },
  });
  if (!res.body.data) throw new Error(`executeToolCall failed: ${JSON.stringify(res.body.errors)}`);
  return res.body.data.executeToolCall;
}

/** The ledger of a run whose first call waits for approval, in order: what every approval story starts with. */
export const WAITING_TRAIL = ['run.created', 'run.started', 'tool_call.requested', 'tool_call.approval_requested', 'run.waiting_approval'];

/** A run waiting for one approval of the given kind. */
export async function waitingCall(flow: Flow, kind: 'expert' | 'client' = 'expert') {
  const runId = await startRun(flow);
  const amount = kind === 'expert' ? EXPERT_AMOUNT : CLIENT_AMOUNT;
  const call = await requestInvoice(flow, runId, { customerId: QBO_DEMO_CUSTOMERS.amys, amount });
  expect(call.status).toBe('waiting_approval');
  expect(call.approvalRequestId).toEqual(expect.any(String));
  return { runId, toolCallId: call.toolCallId, approvalId: call.approvalRequestId!, amount };
}

/** resolveApproval with what the approval records about its resolution. */
const RESOLVE = graphql(`
  mutation DecideApproval($id: ID!, $decision: ApprovalDecision!, $reason: String) {
    resolveApproval(id: $id, decision: $decision, reason: $reason) { id status kind resolvedBy reason resolvedAt }
  }
`);

export function resolve(flow: Flow, key: string, id: string, decision: 'APPROVE' | 'REJECT', reason: string | null = null) {
  return flow.app.gql(RESOLVE, { key, variables: { id, decision, reason } });
}

export function executeApproved(flow: Flow, toolCallId: string, key = flow.keys.agent) {
  return flow.app.gql(EXECUTE_APPROVED_TOOL_CALL, { key, variables: { id: toolCallId } });
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
