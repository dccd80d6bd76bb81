// Each model request as a `chat {model}` span (GenAI semantic conventions).
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { TurnReply } from '../llm/model-turn';
import { isTracingOn } from './tracing';
import { GEN_AI, TOOLGATE, tracer } from './trace-attributes';

interface ChatSubject {
  model: string;
  maxTokens: number;
  runId: string;
  orgId: string;
  correlationId: string;
}

/**
 * One streamed turn inside a `chat {model}` client span: the request's model and limit, the
 * answer's token usage and stop reason. The HTTP request under it is the fetch
 * instrumentation's. Prompts and replies are never attributes.
 */
export function traceChat(subject: ChatSubject, request: () => Promise<TurnReply>): Promise<TurnReply> {
  if (!isTracingOn()) return request();
  return tracer().startActiveSpan(
    `chat ${subject.model}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [GEN_AI.operationName]: 'chat',
        [GEN_AI.providerName]: 'anthropic',
        [GEN_AI.system]: 'anthropic',
        [GEN_AI.requestModel]: subject.model,
        [GEN_AI.requestMaxTokens]: subject.maxTokens,
        [GEN_AI.conversationId]: subject.runId,
        [TOOLGATE.runId]: subject.runId,
        [TOOLGATE.orgId]: subject.orgId,
        [TOOLGATE.correlationId]: subject.correlationId,
      },
    },
    async (span) => {
      try {
        const reply = await request();
        span.setAttributes({
          [GEN_AI.usageInputTokens]: reply.usage.input_tokens + reply.usage.cache_read_input_tokens + reply.usage.cache_creation_input_tokens,
          [GEN_AI.usageCacheReadInputTokens]: reply.usage.cache_read_input_tokens,
          [GEN_AI.usageCacheCreationInputTokens]: reply.usage.cache_creation_input_tokens,
          [GEN_AI.usageOutputTokens]: reply.usage.output_tokens,
          ...(reply.stopReason ? { [GEN_AI.responseFinishReasons]: [reply.stopReason] } : {}),
        });
        return reply;
      } catch (error) {
        const status = (error as { status?: unknown }).status;
        span.setAttribute('error.type', typeof status === 'number' ? String(status) : error instanceof Error ? error.name : 'Error');
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
