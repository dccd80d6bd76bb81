// Each GraphQL operation over HTTP as a span, continuing the caller's `traceparent`.
import type { ApolloServerPlugin } from '@apollo/server';
import type { RequestHandler } from 'express';
import { SpanKind, SpanStatusCode, context, propagation, trace, type Span } from '@opentelemetry/api';
import type { RequestContext } from '../graphql/context';
import { isTracingOn } from './tracing';
import { TOOLGATE, tracer } from './trace-attributes';

/** The spans this module opened: the plugin names only those, never an HTTP server span. */
const operationSpans = new WeakSet<Span>();

/**
 * Express middleware just before Apollo Server (the request is parsed and authenticated):
 * the rest of the request runs inside a `graphql` span, renamed `{type} {name}` once the
 * operation is known. Its parent is the HTTP server span when HTTP is instrumented, else the
 * request's own `traceparent`. Null with tracing off: nothing is mounted.
 */
export function graphqlTracing(): RequestHandler | null {
  if (!isTracingOn()) return null;
  return (req, res, next) => {
    const active = context.active();
    const parent = trace.getSpan(active) ? active : propagation.extract(active, req.headers);
    const span = tracer().startSpan(
      'graphql',
      {
        kind: trace.getSpan(active) ? SpanKind.INTERNAL : SpanKind.SERVER,
        attributes: { [TOOLGATE.correlationId]: String(res.locals.correlationId) },
      },
      parent,
    );
    operationSpans.add(span);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    res.once('finish', end);
    res.once('close', end);
    context.with(trace.setSpan(parent, span), next);
  };
}

/** Names the operation's span and notes its org and first error code (never variables). */
export function graphqlTracingPlugin(): ApolloServerPlugin<RequestContext> {
  return {
    async requestDidStart() {
      const span = trace.getActiveSpan();
      if (!span || !operationSpans.has(span)) return;
      return {
        async didResolveOperation({ operation, operationName, contextValue }) {
          const type = operation?.operation ?? 'query';
          span.updateName(operationName ? `${type} ${operationName}` : type);
          span.setAttributes({
            'graphql.operation.type': type,
            ...(operationName ? { 'graphql.operation.name': operationName } : {}),
            ...(contextValue.caller ? { [TOOLGATE.orgId]: contextValue.caller.orgId } : {}),
          });
        },
        async didEncounterErrors({ errors }) {
          const code = errors[0]?.extensions?.code;
          if (typeof code === 'string') span.setAttribute(TOOLGATE.errorCode, code);
          span.setStatus({ code: SpanStatusCode.ERROR });
        },
      };
    },
  };
}
