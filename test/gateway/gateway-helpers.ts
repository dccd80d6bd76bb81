import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { parse } from 'graphql';
import { errorCode, type GraphQLResponse, type TestApp } from '../support/app';
import type { SeedResult } from '../../src/seed/demo-seed';
import { SetFeatureFlagDocument } from '../../gql/graphql';

/**
 * Shared GraphQL documents and helpers of the gateway suites. Every suite seeds the demo
 * org (all catalog tools enabled and bound, tool_calling_enabled on, sandbox credentials)
 * into its own database and drives the gateway only through the API.
 *
 * Where operations/ has the operation, the suites use its typed document from gql/
 * (SetFeatureFlagDocument); the documents below select what the gateway suites pin, which
 * no product operation does, so they are typed here by hand.
 */
const typed = <R, V>(source: string) => parse(source) as TypedDocumentNode<R, V>;

export interface StartedRun {
  id: string;
  status: string;
  allowedTools: string[];
  policyVersion: number;
}

export interface RunView {
  id: string;
  status: string;
  allowedTools: string[];
  policyVersion: number;
  pendingApprovalCount: number;
  toolCostCents: number;
  toolCalls: { id: string; status: string; costCents: number }[];
  ledgerEvents: { type: string; resourceId: string | null; metadata: Record<string, any> }[];
}

export const START_RUN = typed<
  { startAgentRun: StartedRun },
  { input: { specialistId: string; driver?: 'EXTERNAL' | 'INTERNAL'; message?: string; correlationId?: string } }
>(`mutation($input: StartAgentRunInput!) {
  startAgentRun(input: $input) { id status allowedTools policyVersion }
}`);

export const EXECUTE = typed<
  { executeToolCall: ToolCallResult },
  { input: { runId: string; toolName: string; action: string; params: unknown; correlationId: string; toolUseId?: string } }
>(`mutation($input: ExecuteToolCallInput!) {
  executeToolCall(input: $input) { status toolCallId result error { code message } approvalRequestId replayed }
}`);

export const TOOL_CALL = typed<{ toolCall: ToolCallNode }, { id: string }>(`query($id: ID!) {
  toolCall(id: $id) {
    id runId toolName action correlationId status errorCode errorText riskLevel reviewRequired
    input output durationMs costCents retryCount vendorStatusCode
    ledgerEvents { type actorRole resourceId runId metadata }
    policyDecision { outcome shadowOutcome risk matchedRuleId policyVersion callerRole reason toolName action runId }
    approvalRequest { id kind status }
  }
}`);

export const RUN = typed<{ run: RunView }, { id: string }>(`query($id: ID!) {
  run(id: $id) {
    id status allowedTools policyVersion pendingApprovalCount toolCostCents
    toolCalls { id status costCents }
    ledgerEvents { type resourceId metadata }
  }
}`);

export const ORG = typed<{ viewer: { org: { policyVersion: number; policyShadowMode: boolean } } }, Record<string, never>>(
  '{ viewer { org { policyVersion policyShadowMode } } }',
);

export const SET_PERMISSION = typed<
  { setToolPermission: { toolName: string; action: string; enabled: boolean } },
  { tool: string; action: string; enabled: boolean }
>(`mutation($tool: String!, $action: String!, $enabled: Boolean!) {
  setToolPermission(toolName: $tool, action: $action, enabled: $enabled) { toolName action enabled }
}`);
export const BIND = typed<
  { bindToolToSpecialist: { specialistId: string; toolName: string; action: string; bound: boolean } },
  { input: { specialistId: string; toolName: string; action: string; bound: boolean } }
>(`mutation($input: BindToolInput!) { bindToolToSpecialist(input: $input) { specialistId toolName action bound } }`);

export interface ToolCallResult {
  status: string;
  toolCallId: string;
  result: any;
  error: { code: string; message: string } | null;
  approvalRequestId: string | null;
  replayed: boolean;
}

export interface LedgerNode {
  type: string;
  actorRole: string | null;
  resourceId: string | null;
  runId: string | null;
  metadata: Record<string, any>;
}

export interface PolicyDecisionNode {
  outcome: string;
  shadowOutcome: string | null;
  risk: string;
  matchedRuleId: string | null;
  policyVersion: number;
  callerRole: string;
  reason: string;
  toolName: string;
  action: string;
  runId: string;
}

export interface ToolCallNode {
  id: string;
  runId: string;
  toolName: string;
  action: string;
  correlationId: string;
  status: string;
  errorCode: string | null;
  errorText: string | null;
  riskLevel: string | null;
  reviewRequired: boolean;
  input: any;
  output: any;
  durationMs: number | null;
  costCents: number;
  retryCount: number;
  vendorStatusCode: number | null;
  ledgerEvents: LedgerNode[];
  policyDecision: PolicyDecisionNode | null;
  approvalRequest: { id: string; kind: string; status: string } | null;
}

/** The model sentences of ARCHITECTURE.md ("What the model is told") and the error catalog. */
export const SAY = {
  FEATURE_DISABLED: 'Tool execution is not enabled for this organization',
  NOT_IN_MANIFEST: 'The requested tool is not available in this conversation context',
  INVALID_TOOL_INPUT: 'The tool input was invalid',
  POLICY_BLOCKED: 'Tool execution was blocked by policy',
  VENDOR_FAILURE: 'Tool execution failed due to a temporary service issue',
} as const;

export class GatewayClient {
  private sequence = 0;

  constructor(
    readonly app: TestApp,
    readonly seed: Pick<SeedResult, 'orgId' | 'specialistId' | 'keys'>,
  ) {}

  /** A GraphQL request that must succeed; answers `data` (typed by a typed document). */
  async ok<R, V>(document: TypedDocumentNode<R, V>, variables?: V, key?: string): Promise<R>;
  async ok<T = any>(query: string, variables?: Record<string, unknown>, key?: string): Promise<T>;
  async ok(query: string | TypedDocumentNode<unknown, unknown>, variables: unknown = {}, key = this.seed.keys.admin): Promise<unknown> {
    const res = await this.app.gql(query as string, { key, variables: variables as Record<string, unknown> });
    if (res.body.errors) throw new Error(`unexpected errors: ${JSON.stringify(res.body.errors)}`);
    return res.body.data!;
  }

  async startRun(options: { specialistId?: string; key?: string } = {}): Promise<StartedRun> {
    const data = await this.ok(
      START_RUN,
      { input: { specialistId: options.specialistId ?? this.seed.specialistId, driver: 'EXTERNAL' } },
      options.key ?? this.seed.keys.agent,
    );
    return data.startAgentRun;
  }

  nextCorrelationId(): string {
    this.sequence += 1;
    return `corr-${this.sequence}`;
  }

  /** executeToolCall as the agent, whatever it answers. */
  executeRaw(
    runId: string,
    toolName: string,
    action: string,
    params: unknown,
    options: { toolUseId?: string; correlationId?: string; key?: string } = {},
  ): Promise<GraphQLResponse<{ executeToolCall: ToolCallResult }>> {
    const input = {
      runId,
      toolName,
      action,
      params,
      correlationId: options.correlationId ?? this.nextCorrelationId(),
      ...(options.toolUseId ? { toolUseId: options.toolUseId } : {}),
    };
    return this.app.gql(EXECUTE, { key: options.key ?? this.seed.keys.agent, variables: { input } });
  }

  /** executeToolCall as the agent; a GraphQL error fails the test. */
  async execute(
    runId: string,
    toolName: string,
    action: string,
    params: unknown,
    options: { toolUseId?: string; correlationId?: string } = {},
  ): Promise<ToolCallResult> {
    const res = await this.executeRaw(runId, toolName, action, params, options);
    if (res.body.errors) throw new Error(`executeToolCall failed: ${JSON.stringify(res.body.errors)}`);
    return res.body.data!.executeToolCall;
  }

  /** The recorded call with its decision and ledger events, read as an admin. */
  async call(id: string): Promise<ToolCallNode> {
    return (await this.ok(TOOL_CALL, { id })).toolCall;
  }

  async run(id: string): Promise<RunView> {
    return (await this.ok(RUN, { id })).run;
  }

  async org(): Promise<{ policyVersion: number; policyShadowMode: boolean }> {
    return (await this.ok(ORG)).viewer.org;
  }

  async setFlag(enabled: boolean): Promise<void> {
    await this.ok(SetFeatureFlagDocument, { key: 'tool_calling_enabled', enabled });
  }

  async setPermission(tool: string, action: string, enabled: boolean): Promise<void> {
    await this.ok(SET_PERMISSION, { tool, action, enabled });
  }

  async bind(specialistId: string, toolName: string, action: string, bound: boolean): Promise<void> {
    await this.ok(BIND, { input: { specialistId, toolName, action, bound } });
  }

  /** Requests the vendor sandbox received so far. */
  vendorRequests(vendor: string): number {
    return this.app.sandbox!.requests.filter((r) => r.vendor === vendor).length;
  }

  /** Rows of a table for this org, straight from the database. */
  async count(table: string, where = '', params: unknown[] = []): Promise<number> {
    const [row] = await this.app
      .em()
      .execute<{ n: string }[]>(`select count(*) as n from ${table} where org_id = ?${where ? ` and ${where}` : ''}`, [this.seed.orgId, ...params]);
    return Number(row.n);
  }
}

/** The fields of a ToolCall row the tests pin exactly. */
export function rowOf(call: ToolCallNode) {
  return {
    status: call.status,
    errorCode: call.errorCode,
    errorText: call.errorText,
    riskLevel: call.riskLevel,
    reviewRequired: call.reviewRequired,
    input: call.input,
    output: call.output,
    costCents: call.costCents,
  };
}

/** Ledger event types in order, each with its metadata.reason (undefined when it has none). */
export function eventTrail(call: ToolCallNode): { type: string; reason: unknown }[] {
  return call.ledgerEvents.map((e) => ({ type: e.type, reason: e.metadata.reason }));
}

/** What the agent is answered when its call did not succeed (`result` null, nothing replayed). */
export function refusedOutcome(status: 'blocked' | 'failed', code: string, message: string) {
  return { status, toolCallId: expect.any(String), result: null, error: { code, message }, approvalRequestId: null, replayed: false };
}

/** The row of a call stopped before policy (flag, manifest, input): no risk level, nothing run. */
export function blockedBeforePolicy(code: 'FEATURE_DISABLED' | 'NOT_IN_MANIFEST' | 'INVALID_TOOL_INPUT', input: unknown) {
  return { status: 'blocked', errorCode: code, errorText: SAY[code], riskLevel: null, reviewRequired: false, input, output: null, costCents: 0 };
}

/** The ledger trail of such a call: requested, then blocked for `reason`. */
export function blockedTrail(reason: string): { type: string; reason: unknown }[] {
  return [
    { type: 'tool_call.requested', reason: undefined },
    { type: 'tool_call.blocked', reason },
  ];
}

/** Statements recorded while `work` ran. */
export async function recordStatements<T>(app: TestApp, work: () => Promise<T>): Promise<{ value: T; statements: string[] }> {
  app.statements.length = 0;
  const value = await work();
  return { value, statements: [...app.statements] };
}

export const transactionsIn = (statements: string[]) => statements.filter((s) => /^\[query\] begin\b/.test(s)).length;
export const touching = (statements: string[], table: string) =>
  statements.filter((s) => new RegExp(`\\b(from|into|update)\\s+"?${table}"?\\b`, 'i').test(s));

export { errorCode };
