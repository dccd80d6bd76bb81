// A run's trace: kept on the run, carried in its job payloads, continued by every step on any node.
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace, type Link } from '@opentelemetry/api';
import { isTracingOn } from './tracing';
import { GEN_AI, TOOLGATE, tracer } from './trace-attributes';

/** W3C trace context (`traceparent`, maybe `tracestate`), as the propagator writes it. */
type TraceCarrier = Record<string, string>;

/** The active trace context, or undefined when tracing is off or nothing is traced now. */
function activeCarrier(): TraceCarrier | undefined {
  if (!isTracingOn() || !trace.getActiveSpan()) return undefined;
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? carrier : undefined;
}

/**
 * The run's metadata with the trace of the request that started its current turn
 * (startAgentRun, postMessage): every step of the turn continues it, also a step that runs
 * after an approval, on another node. Unchanged when nothing is traced.
 */
export function withRunTrace<T extends Record<string, unknown>>(metadata: T): T {
  const traceContext = activeCarrier();
  return traceContext ? { ...metadata, traceContext } : metadata;
}

/**
 * The job payload's trace fields, as SQL for graphile_worker.add_job: `trace`, the run's
 * stored context (read in the enqueuing statement), and `cause`, the context of whoever
 * enqueued the step (an approval, a reconciliation), which the step links to. Null when off.
 */
export function jobTraceFields(): { sql: string; cause: string | null } | null {
  if (!isTracingOn()) return null;
  const cause = activeCarrier();
  return {
    sql: `'trace', (select metadata->'traceContext' from agent_runs where id = ?::uuid), 'cause', ?::json`,
    cause: cause ? JSON.stringify(cause) : null,
  };
}

/**
 * One step of a run as an `invoke_agent` span: a child of the run's trace from the payload
 * (so the turn is one trace across pauses and nodes), linked to the step's cause when that
 * is another trace.
 */
export function traceRunStep(payload: { trace?: unknown; cause?: unknown }, runId: string, step: () => Promise<void>): Promise<void> {
  if (!isTracingOn()) return step();
  const parent = isCarrier(payload.trace) ? propagation.extract(ROOT_CONTEXT, payload.trace) : ROOT_CONTEXT;
  const parentSpan = trace.getSpanContext(parent);
  const cause = isCarrier(payload.cause) ? trace.getSpanContext(propagation.extract(ROOT_CONTEXT, payload.cause)) : undefined;
  const links: Link[] = cause && cause.traceId !== parentSpan?.traceId ? [{ context: cause }] : [];
  return tracer().startActiveSpan(
    'invoke_agent',
    {
      kind: SpanKind.CONSUMER,
      links,
      attributes: { [GEN_AI.operationName]: 'invoke_agent', [GEN_AI.conversationId]: runId, [TOOLGATE.runId]: runId },
    },
    parent,
    async (span) => {
      try {
        await step();
      } catch (error) {
        span.setAttribute('error.type', error instanceof Error ? error.name : 'Error');
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

function isCarrier(value: unknown): value is TraceCarrier {
  return typeof value === 'object' && value !== null && typeof (value as TraceCarrier).traceparent === 'string';
}
