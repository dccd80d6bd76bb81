import { createHash } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { type CallToolResult, type InputRequiredResult, ProtocolError, ProtocolErrorCode, TRACEPARENT_META_KEY } from '@modelcontextprotocol/server';
import { canonicalJson } from '../ledger/canonical-json';
import { resolveApprovalByElicitation } from '../approvals/approval.service';
import type { ToolGateway } from '../gateway/gateway.service';
import type { ToolCallOutcome } from '../gateway/gateway.types';
import { AppError } from '../errors/app-error';
import { errorFor } from '../gateway/call-outcome';
import type { Logger } from '../support/logger';
import type { McpBinding } from './mcp-binding';
import { type ApprovalRef, type ClientApprovalChannel, callOutcome, findApproval } from './mcp-approval';
import { META, toolResult } from './mcp-result';
import { parseMcpToolName } from './mcp-tools';
import type { ToolgateMetrics } from '../telemetry/metrics';

/** One `tools/call` as the MCP server hands it over, whatever the era. */
export interface McpCall {
  binding: McpBinding;
  name: string;
  args: Record<string, unknown> | undefined;
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
  const toolUseId = idempotencyKey(call);
  deps.logger.debug({ correlationId, runId: call.binding.runId, tool: call.name, toolUseId }, 'mcp tools/call');
  let beat = 0;
  await call.progress(beat, 'sent to the gateway');
  // Progress while the call runs (a vendor call, an elicitation): the client sees it is alive.
  const heartbeat = setInterval(() => void call.progress(++beat, 'running').catch(() => undefined), HEARTBEAT_MS);
  heartbeat.unref();
  try {
    const em = deps.orm.em.fork();
    const { caller } = call.binding;
    let outcome: ToolCallOutcome;
    try {
      // Without a key of its own, a repeat of a call that needs approval joins it (the gateway
      // finds it by its content, under a lock); any other keyless request is a new call.
      outcome = await deps.gateway.execute({
        runId: call.binding.runId,
        toolName,
        action,
        params,
        correlationId,
        toolUseId,
        joinRepeats: toolUseId === null,
        caller,
      });
    } catch (error) {
      // The client's key names another call: the refusal (recorded) is the tool's answer, as for a block.
      if (error instanceof AppError && error.code === 'IDEMPOTENCY_KEY_REUSED') return toolResult(keyReused(error));
      throw error;
    }
    const approval = outcome.approvalRequestId ? await findApproval(em, caller.orgId, outcome.approvalRequestId) : null;
    return await followApproval(deps, call, outcome, approval, params);
  } finally {
    clearInterval(heartbeat);
  }
}

/** The refusal of a reused key as a blocked call's answer (the refusal is a call of its own). */
function keyReused(error: AppError): ToolCallOutcome {
  const toolCallId = String(error.details.toolCallId ?? '');
  return { status: 'blocked', toolCallId, result: null, error: errorFor(error.code), approvalRequestId: null, replayed: false, editedParams: null };
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
    const channel = call.clientApproval.name;
    deps.metrics?.approvalResolved(await resolveApprovalByElicitation(em, caller, { ...approval, runId, decision: answer.decision, channel }));
    outcome = await callOutcome(em, caller.orgId, outcome.toolCallId);
  }
  if (outcome.status === 'approved') {
    await call.progress(1, 'approved; running');
    outcome = await deps.gateway.executeApproved(outcome.toolCallId, caller);
  }
  // A repeat that finds the call running (another request runs it) answers its outcome once it settles.
  if (outcome.status === 'running' && outcome.replayed) outcome = await settled(deps, caller.orgId, outcome);
  return toolResult(outcome, approval?.kind ?? null);
}

/** How long a repeat waits for the call it joined to settle (a vendor call with its retries). */
const SETTLE_WAIT_MS = 30_000;
const SETTLE_POLL_MS = 100;

async function settled(deps: McpCallDeps, orgId: string, outcome: ToolCallOutcome): Promise<ToolCallOutcome> {
  const deadline = Date.now() + SETTLE_WAIT_MS;
  let current = outcome;
  while (current.status === 'running' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
    current = await callOutcome(deps.orm.em.fork(), orgId, outcome.toolCallId);
  }
  return current;
}

/**
 * The gateway's toolUseId for this call: the client's own key from `_meta`, scoped to its API
 * key, or none. Never derived from JSON-RPC ids or anything else two clients can share: every
 * client numbers its requests from the start, so a derived key would answer one client's call
 * with another's result.
 */
function idempotencyKey(call: McpCall): string | null {
  const sent = call.meta?.[META.idempotencyKey];
  if (sent === undefined) return null;
  if (typeof sent !== 'string' || sent.length < 1 || sent.length > 256) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `_meta["${META.idempotencyKey}"] must be a string of 1 to 256 characters`, {
      code: 'BAD_USER_INPUT',
    });
  }
  // 47 characters of [A-Za-z0-9_-], what toolUseId accepts.
  return `mcp_${createHash('sha256')
    .update(canonicalJson(['client', call.binding.caller.keyId, sent]))
    .digest('base64url')}`;
}
