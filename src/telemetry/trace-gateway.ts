// The gateway's stages as `execute_tool` spans (GenAI semantic conventions), one call per stage.
import { SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import { AppError } from '../errors/app-error';
import type { ToolCallOutcome, ToolCallRequest } from '../gateway/gateway.types';
import type { ToolCall } from '../gateway/tool-call.entity';
import type { ExecutionOutcome } from '../executor/executor.types';
import type { PolicyVerdict } from '../policy/policy-evaluator';
import { toolKey } from '../catalog/tool-key';
import { isTracingOn } from './tracing';
import { GEN_AI, TOOLGATE, tracer } from './trace-attributes';

/**
 * decide: transaction 1 (flag, manifest, input schema, policy, the call recorded);
 * execute: the executor (vendor request, retries); record: transaction 2 (the outcome and
 * its ledger event). An approved call resumes at execute.
 */
type GatewayStage = 'decide' | 'execute' | 'record';

/** What a stage knows about its call before it runs: the request, or the recorded call. */
type StageSubject = ToolCallRequest | ToolCall;

/** What a stage's result says about the call, for its span. */
type Describe<T> = (result: T) => Attributes;

/**
 * Runs one gateway stage inside an `execute_tool {tool}` span with the GenAI attributes
 * and `toolgate.stage`; `describe` adds what the result says (status, code). With tracing
 * off it only calls `work`.
 */
export function traceStage<T>(stage: GatewayStage, subject: StageSubject, work: () => Promise<T>, describe?: Describe<T>): Promise<T> {
  if (!isTracingOn()) return work();
  const attributes = subjectAttributes(subject);
  return tracer().startActiveSpan(
    `execute_tool ${attributes[GEN_AI.toolName]}`,
    { attributes: { [GEN_AI.operationName]: 'execute_tool', [GEN_AI.toolType]: 'function', [TOOLGATE.stage]: stage, ...attributes } },
    async (span) => {
      try {
        const result = await work();
        if (describe) described(span, describe(result));
        return result;
      } catch (error) {
        failed(span, error);
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** The policy's verdict on the call being decided (called inside the decide stage). */
export function traceDecision(verdict: PolicyVerdict): void {
  if (!isTracingOn()) return;
  trace.getActiveSpan()?.setAttributes({ [TOOLGATE.decision]: verdict.outcome, [TOOLGATE.risk]: verdict.risk });
}

function subjectAttributes(subject: StageSubject): Attributes {
  if ('caller' in subject) {
    return {
      [GEN_AI.toolName]: toolKey(subject.toolName, subject.action),
      ...(subject.toolUseId ? { [GEN_AI.toolCallId]: subject.toolUseId } : {}),
      [TOOLGATE.runId]: subject.runId,
      [TOOLGATE.orgId]: subject.caller.orgId,
      [TOOLGATE.correlationId]: subject.correlationId,
    };
  }
  return callAttributes(subject);
}

function callAttributes(call: ToolCall): Attributes {
  return {
    [GEN_AI.toolName]: toolKey(call.toolName, call.action),
    [GEN_AI.toolCallId]: call.toolUseId ?? call.id,
    [TOOLGATE.toolCallId]: call.id,
    [TOOLGATE.runId]: call.runId,
    [TOOLGATE.orgId]: call.orgId,
    [TOOLGATE.correlationId]: call.correlationId,
    ...(call.riskLevel ? { [TOOLGATE.risk]: call.riskLevel } : {}),
  };
}

function described(span: Span, attributes: Attributes): void {
  span.setAttributes(attributes);
  if (attributes[TOOLGATE.errorCode] !== undefined) span.setStatus({ code: SpanStatusCode.ERROR });
}

/** A thrown stage: its stable code when it has one; never the message (it may quote input). */
function failed(span: Span, error: unknown): void {
  span.setAttribute(TOOLGATE.errorCode, error instanceof AppError ? error.code : 'INTERNAL_SERVER_ERROR');
  span.setAttribute('error.type', error instanceof Error ? error.name : 'Error');
  span.setStatus({ code: SpanStatusCode.ERROR });
}

function outcomeAttributes(outcome: ToolCallOutcome): Attributes {
  return {
    [TOOLGATE.toolCallId]: outcome.toolCallId,
    [TOOLGATE.status]: outcome.status,
    ...(outcome.replayed ? { [TOOLGATE.replayed]: true } : {}),
    ...(outcome.error ? { [TOOLGATE.errorCode]: outcome.error.code } : {}),
  };
}

/** decide: a call to run now, an answer already (blocked, waiting for approval), or a replay. */
export function describeDecided(result: { call: ToolCall } | ToolCallOutcome | { replayOf: string } | { keyReused: ToolCall }): Attributes {
  if ('replayOf' in result) return { [TOOLGATE.toolCallId]: result.replayOf, [TOOLGATE.replayed]: true };
  if ('keyReused' in result) return { ...callAttributes(result.keyReused), [TOOLGATE.errorCode]: 'IDEMPOTENCY_KEY_REUSED' };
  if ('call' in result) return { ...callAttributes(result.call), [TOOLGATE.status]: result.call.status };
  return outcomeAttributes(result);
}

/** execute: the executor's outcome (a vendor failure is an outcome, not an exception). */
export function describeExecution(outcome: ExecutionOutcome): Attributes {
  return {
    [TOOLGATE.retries]: outcome.retries.length,
    ...(outcome.vendorStatusCode !== null ? { [TOOLGATE.vendorStatusCode]: outcome.vendorStatusCode } : {}),
    ...(outcome.ok ? {} : { [TOOLGATE.errorCode]: outcome.code }),
  };
}

/** record: the settled call, or null when reconciliation took it over meanwhile. */
export function describeRecorded(call: ToolCall | null): Attributes {
  if (!call) return { [TOOLGATE.status]: 'taken_over' };
  return { [TOOLGATE.status]: call.status, ...(call.errorCode ? { [TOOLGATE.errorCode]: call.errorCode } : {}) };
}
