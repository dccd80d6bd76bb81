import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { errorCode, type GraphQLResponse, type TestApp } from '../support/app';
import type { SeedResult } from '../../src/seed/demo-seed';
import { SetFeatureFlagDocument } from '../../gql/graphql';
import { graphql } from '../gql';
import type { CallAnswerFragment, GatewayOrgPolicyQuery, GatewayRunQuery, GatewayToolCallQuery, StartAgentRunMutation } from '../gql/graphql';
import { BIND_TOOL, EXECUTE_TOOL_CALL, SET_TOOL_PERMISSION, START_AGENT_RUN, jsonAs } from '../support/documents';

/**
 * Shared GraphQL documents and helpers of the gateway suites. Every suite seeds the demo
 * org (all catalog tools enabled and bound, tool_calling_enabled on, sandbox credentials)
 * into its own database and drives the gateway only through the API.
 *
 * Where operations/ has the operation, the suites use its typed document from gql/
 * (SetFeatureFlagDocument); the documents below select what the gateway suites pin, typed
 * by `npm run codegen` into test/gql/.
 */
export type StartedRun = StartAgentRunMutation['startAgentRun'];
export type ToolCallResult = CallAnswerFragment;
export type ToolCallNode = GatewayToolCallQuery['toolCall'];

const TOOL_CALL = graphql(`
  query GatewayToolCall($id: ID!) {
    toolCall(id: $id) {
      id runId toolName action correlationId status errorCode errorText riskLevel reviewRequired input output durationMs
      costCents retryCount vendorStatusCode
      ledgerEvents { type actorRole resourceId runId metadata }
      policyDecision { outcome shadowOutcome risk matchedRuleId policyVersion callerRole reason toolName action runId }
      approvalRequest { id kind status }
    }
  }
`);

const RUN = graphql(`
  query GatewayRun($id: ID!) {
    run(id: $id) {
      id status allowedTools policyVersion pendingApprovalCount toolCostCents
      toolCalls { id status costCents }
      ledgerEvents { type resourceId metadata }
    }
  }
`);

const ORG = graphql(`
  query GatewayOrgPolicy {
    viewer { org { policyVersion policyShadowMode } }
  }
`);

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

  /**
   * A GraphQL request that must succeed; answers `data`, typed by the typed document. A
   * string document answers untyped data (for callers that have no typed document).
   */
  async ok<R, V>(document: TypedDocumentNode<R, V>, variables?: V, key?: string): Promise<R>;
  async ok(query: string, variables?: Record<string, unknown>, key?: string): Promise<Record<string, any>>;
  async ok(query: string | TypedDocumentNode<unknown, unknown>, variables: unknown = {}, key = this.seed.keys.admin): Promise<unknown> {
    const res = await this.app.gql(query as string, { key, variables: variables as Record<string, unknown> });
    if (res.body.errors) throw new Error(`unexpected errors: ${JSON.stringify(res.body.errors)}`);
    return res.body.data!;
  }

  async startRun(options: { specialistId?: string; key?: string } = {}): Promise<StartedRun> {
    const data = await this.ok(
      START_AGENT_RUN,
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
    return this.app.gql(EXECUTE_TOOL_CALL, { key: options.key ?? this.seed.keys.agent, variables: { input } });
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

  async run(id: string): Promise<GatewayRunQuery['run']> {
    return (await this.ok(RUN, { id })).run;
  }

  async org(): Promise<GatewayOrgPolicyQuery['viewer']['org']> {
    return (await this.ok(ORG)).viewer.org;
  }

  async setFlag(enabled: boolean): Promise<void> {
    await this.ok(SetFeatureFlagDocument, { key: 'tool_calling_enabled', enabled });
  }

  async setPermission(tool: string, action: string, enabled: boolean): Promise<void> {
    await this.ok(SET_TOOL_PERMISSION, { tool, action, enabled });
  }

  async bind(specialistId: string, toolName: string, action: string, bound: boolean): Promise<void> {
    await this.ok(BIND_TOOL, { input: { specialistId, toolName, action, bound } });
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

/** A call's result as the tool's action types it (e.g. OrderLookupResult): the schema carries it as JSON. */
export const resultOf = <T>(answer: Pick<ToolCallResult, 'result'>): T => jsonAs<T>(answer.result);

/** What the agent is answered when its call did not succeed (`result` null, nothing replayed). */
export function refusedOutcome(status: 'blocked' | 'failed', code: string, message: string) {
  return { status, toolCallId: expect.any(String), result: null, error: { code, message }, approvalRequestId: null, replayed: false };
}

/** The row of a call stopped before policy (flag, manifest, input): no risk level, nothing run. */
export function blockedBeforePolicy(code: 'FEATURE_DISABLED' | 'NOT_IN_MANIFEST' | 'INVALID_TOOL_INPUT', input: unknown) {
  return { status: 'blocked', errorCode: code, errorText: SAY[code], riskLevel: null, reviewRequired: false, input, output: null, costCents: 0 };
}

/**
 * The ledger events of such a call, in full: requested with `requested` as metadata, then
 * blocked with that and `blocked`; both by the agent.
 */
export function blockedEvents(call: ToolCallNode, runId: string, requested: Record<string, unknown>, blocked: Record<string, unknown>) {
  const by = { actorRole: 'agent', resourceId: call.id, runId };
  return [
    { type: 'tool_call.requested', ...by, metadata: requested },
    { type: 'tool_call.blocked', ...by, metadata: { ...requested, ...blocked } },
  ];
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
