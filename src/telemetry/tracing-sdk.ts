// The OpenTelemetry SDK and its instrumentations: loaded only when tracing is on (about 2 s of requires).
import type { IncomingMessage } from 'node:http';
import type { Span } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import type { TracingConfig } from '../config';

export interface TracingSdk {
  /** Flushes what is buffered and stops exporting; the instrumentations are taken off. */
  shutdown(): Promise<void>;
}

/** Health probes every few seconds would be traces of their own; they are not traced. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz']);

/**
 * OTLP export as the OTEL_* variables say (the SDK reads them), W3C trace context, and spans
 * for incoming HTTP, outgoing HTTP and fetch (vendor calls, the model) and SQL (`pg`, under
 * the ORM and the gateway's raw transactions). Only traces: metrics and logs have their own
 * paths. `spanProcessors` replaces the exporter (tests: an in-memory one).
 * @public loaded with `require` by src/telemetry/tracing.ts, which knip does not follow
 */
export function startTracingSdk(settings: TracingConfig, spanProcessors: SpanProcessor[] | undefined): TracingSdk {
  const instrumentations = [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has((request.url ?? '').split('?')[0]),
      // Requests outside any trace (the exporter's own, probes) stay untraced.
      requireParentforOutgoingSpans: true,
      requestHook: (span, request) => {
        if ('headers' in request) scrubIncomingQuery(span, request as IncomingMessage);
      },
    }),
    new UndiciInstrumentation({
      requireParentforSpans: true,
      requestHook: (span, request) => scrubOutgoingUrl(span, request.origin, request.path),
    }),
    // Heartbeats, job polling and LISTEN run outside any trace: only SQL of a traced request or step is recorded.
    new PgInstrumentation({
      requireParentSpan: true,
      ignoreConnectSpans: true,
      // The ORM inlines values into its statements (messages, tool input): spans keep the statement's shape only.
      requestHook: (span, query) => span.setAttribute('db.query.text', scrubSql(query.query.text)),
    }),
  ];
  const sdk = new NodeSDK({
    serviceName: settings.serviceName,
    spanProcessors,
    instrumentations,
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  return {
    shutdown: async () => {
      for (const instrumentation of instrumentations) instrumentation.disable();
      await sdk.shutdown();
    },
  };
}

/**
 * A statement with its literals replaced by `?`: string constants (the ORM's inlined values,
 * JSON documents) and numbers; `$n` placeholders and identifiers stay.
 */
export function scrubSql(text: string): string {
  return text.replace(/\b[Ee]'(?:[^'\\]|\\.|'')*'|'(?:[^']|'')*'/g, '?').replace(/(?<![\w$."])-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g, '?');
}

/**
 * Query strings may carry parameters (a GraphQL GET carries its variables): spans keep the
 * path and say only that there was a query.
 */
function scrubIncomingQuery(span: Span, request: IncomingMessage): void {
  if ((request.url ?? '').includes('?')) span.setAttribute('url.query', 'REDACTED');
}

function scrubOutgoingUrl(span: Span, origin: string, path: string): void {
  const at = path.indexOf('?');
  if (at < 0) return;
  span.setAttribute('url.full', `${origin}${path.slice(0, at)}?REDACTED`);
  span.setAttribute('url.query', 'REDACTED');
}
