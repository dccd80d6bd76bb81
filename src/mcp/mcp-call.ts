import { createHash } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { type CallToolResult, type InputRequiredResult, ProtocolError, ProtocolErrorCode, TRACEPARENT_META_KEY } from '@modelcontextprotocol/server';
import { canonicalJson } from '../ledger/canonical-json';
import { resolveApprovalByElicitation } from '../approvals/approval.service';
import type { ToolGateway } from '../gateway/gateway.service';
import type { ToolCallOutcome } from '../gateway/gateway.types';
import { loadRunForCall } from '../gateway/run-for-call';
import type { Logger } from '../logger';
import type { McpBinding } from './mcp-binding';
import { type ApprovalRef, type ClientApprovalChannel, callOutcome, findApproval, findBoundCall } from './mcp-approval';
import { META, toolResult } from './mcp-result';
import { parseMcpToolName } from './mcp-tools';
import type { ToolgateMetrics } from '../telemetry/metrics';

/** One `tools/call` as the MCP server hands it over, whatever the era. */
export interface McpCall {
  binding: McpBinding;
  name: string;
  args: Record<string, unknown> | undefined;
  /** The 2025-era session, or null (2026 era: stateless). */
  sessionId: string | null;
  requestId: string | number;
  meta: Record<string, unknown> | undefined;
  /** The HTTP request's x-correlation-id (a W3C traceparent in `_meta` wins). */
  correlationId: string;
  /** Sends notifications/progress when the client asked for them (a progressToken). */
  progress(progress: number, message: string): Promise<void>;
  /** Null when the client cannot be asked (no elicitation capability): it waits like an expert approval. */
  clientApproval: ClientApprovalChannel | null;
}

export interface McpCallDeps {
  orm: MikroORM;
  gateway: ToolGateway;
  logger: Logger;
  metrics?: ToolgateMetrics;
}

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;
const HEARTBEAT_MS = 2000;

/**
 * Every MCP tool call goes through the one gateway, as `executeToolCall` does — flag,
 * manifest, schema, policy, ledger, approval or executor — with an idempotency key, so a
 * retried request never runs twice.
 */
export async function callTool(deps: McpCallDeps, call: McpCall): Promise<CallToolResult | InputRequiredResult> {
  const { toolName, action } = parseMcpToolName(call.name);
  const params = call.args ?? {};
  const traceparent = call.meta?.[TRACEPARENT_META_KEY];
  const correlationId = typeof traceparent === 'string' && TRACEPARENT.test(traceparent) ? traceparent : call.correlationId;
  const toolUseId = idempotencyKey(call, params);
  deps.logger.debug({ correlationId, runId: call.binding.runId, tool: call.name, toolUseId }, 'mcp tools/call');
  let beat = 0;
  await call.progress(beat, 'sent to the gateway');
  // Progress while the call runs (a vendor call, an elicitation): the client sees it is alive.
  const heartbeat = setInterval(() => void call.progress(++beat, 'running').catch(() => undefined), HEARTBEAT_MS);
  heartbeat.unref();
  try {
    const em = deps.orm.em.fork();
    const { caller } = call.binding;
    const run = await loadRunForCall(em, caller.orgId, call.binding.runId, null);
    const bound = await findBoundCall(em, { orgId: run.orgId, runId: run.id, toolName, action, params, policyVersion: run.policyVersion });
    if (bound) return await followApproval(deps, call, bound.outcome, bound.approval, params);
    const outcome = await deps.gateway.execute({ runId: run.id, toolName, action, params, correlationId, toolUseId, caller });
    const approval = outcome.approvalRequestId ? await findApproval(em, caller.orgId, outcome.approvalRequestId) : null;
    return await followApproval(deps, call, outcome, approval, params);
  } finally {
    clearInterval(heartbeat);
  }
}

/** An approved call runs now (once); a client approval is asked where the client can be. */
async function followApproval(
  deps: McpCallDeps,
  call: McpCall,
  outcome: ToolCallOutcome,
  approval: ApprovalRef | null,
  params: unknown,
): Promise<CallToolResult | InputRequiredResult> {
  const { caller, runId } = call.binding;
  if (outcome.status === 'waiting_approval' && approval?.kind === 'client' && call.clientApproval) {
    const answer = await call.clientApproval.ask({ ...approval, toolName: call.name, params });
    if ('deferred' in answer) return answer.deferred;
    if (answer.decision === null) return toolResult(outcome, 'client');
    const em = deps.orm.em.fork();
    deps.metrics?.approvalResolved(await resolveApprovalByElicitation(em, caller, { ...approval, runId, decision: answer.decision }));
    outcome = await callOutcome(em, caller.orgId, outcome.toolCallId);
  }
  if (outcome.status === 'approved') {
    await call.progress(1, 'approved; running');
    return toolResult(await deps.gateway.executeApproved(outcome.toolCallId, caller));
  }
  return toolResult(outcome, approval?.kind ?? null);
}

/**
 * The gateway's toolUseId for this call: from the client's `_meta` key when it sends one,
 * else derived from the session (or, stateless, the key and run), the JSON-RPC id and the
 * call itself — a retried request repeats all of them; a new request with a reused id does not.
 */
function idempotencyKey(call: McpCall, params: unknown): string {
  const sent = call.meta?.[META.idempotencyKey];
  if (sent !== undefined && (typeof sent !== 'string' || sent.length < 1 || sent.length > 256)) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `_meta["${META.idempotencyKey}"] must be a string of 1 to 256 characters`, {
      code: 'BAD_USER_INPUT',
    });
  }
  const source =
    sent !== undefined
      ? ['client', sent]
      : ['derived', call.sessionId ?? `stateless:${call.binding.caller.keyId}`, call.binding.runId, call.requestId, call.name, params];
  // 47 characters of [A-Za-z0-9_-], what toolUseId accepts.
  return `mcp_${createHash('sha256').update(canonicalJson(source)).digest('base64url')}`;
}
