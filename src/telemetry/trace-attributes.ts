// Span attribute names: the OpenTelemetry GenAI semantic conventions (Development status, so
// spelled out here rather than taken from the incubating entry point) and Toolgate's own.
import { trace, type Tracer } from '@opentelemetry/api';

export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  /** The older name of the provider attribute, still read by many backends. */
  system: 'gen_ai.system',
  requestModel: 'gen_ai.request.model',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  responseFinishReasons: 'gen_ai.response.finish_reasons',
  usageInputTokens: 'gen_ai.usage.input_tokens',
  // Part of input_tokens, as the conventions count it (the Messages API reports them apart).
  usageCacheReadInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  usageCacheCreationInputTokens: 'gen_ai.usage.cache_creation.input_tokens',
  usageOutputTokens: 'gen_ai.usage.output_tokens',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  conversationId: 'gen_ai.conversation.id',
} as const;

/** Ids, codes and decisions only: never parameters, results or vendor text. */
export const TOOLGATE = {
  stage: 'toolgate.stage',
  decision: 'toolgate.decision',
  risk: 'toolgate.risk',
  status: 'toolgate.tool_call.status',
  toolCallId: 'toolgate.tool_call.id',
  errorCode: 'toolgate.error.code',
  runId: 'toolgate.run.id',
  orgId: 'toolgate.org.id',
  correlationId: 'toolgate.correlation_id',
  replayed: 'toolgate.replayed',
  retries: 'toolgate.retries',
  vendorStatusCode: 'toolgate.vendor.status_code',
} as const;

/** Looked up per span: a test that restarts tracing gets the new provider's tracer. */
export function tracer(): Tracer {
  return trace.getTracer('toolgate');
}
