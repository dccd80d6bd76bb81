// Each GraphQL operation, over HTTP or graphql-ws, as a span, continuing the caller's `traceparent`.
import type { ApolloServerPlugin } from '@apollo/server';
import type { RequestHandler } from 'express';
import { SpanKind, SpanStatusCode, context, propagation, trace, type Span } from '@opentelemetry/api';
import { getOperationAST, type ExecutionArgs, type GraphQLError } from 'graphql';
import type { RequestContext } from '../graphql/context';
import { errorCodeOf } from '../graphql/format-error';
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
      const span = activeOperationSpan();
      if (!span) return;
      return {
        async didResolveOperation({ operation, operationName, contextValue }) {
          nameOperationSpan(span, operation?.operation, operationName, contextValue.caller?.orgId);
        },
        async didEncounterErrors({ errors }) {
          markOperationSpanFailed(span, errors);
        },
      };
    },
  };
}

/** The span graphqlTracing() opened for this request, if it runs inside one. */
export function activeOperationSpan(): Span | undefined {
  const span = trace.getActiveSpan();
  return span && operationSpans.has(span) ? span : undefined;
}

/** `{type} {name}` and the operation's attributes (both HTTP paths). */
export function nameOperationSpan(span: Span, type: string | undefined, operationName: string | null | undefined, orgId: string | undefined): void {
  const kind = type ?? 'query';
  span.updateName(operationName ? `${kind} ${operationName}` : kind);
  span.setAttributes({
    'graphql.operation.type': kind,
    ...(operationName ? { 'graphql.operation.name': operationName } : {}),
    ...(orgId ? { [TOOLGATE.orgId]: orgId } : {}),
  });
}

/** The first error's code and the error status (both HTTP paths). */
export function markOperationSpanFailed(span: Span, errors: readonly GraphQLError[]): void {
  const code = errors[0] && errorCodeOf(errors[0]);
  if (typeof code === 'string') span.setAttribute(TOOLGATE.errorCode, code);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/**
 * A GraphQL operation over graphql-ws as a span `{type} {name}`: a query or mutation for its
 * whole execution, a subscription for its start (access checks, replay set-up; the events it
 * later sends are not spans). A `traceparent` in the subscribe message's `extensions` is
 * continued. With tracing off the operation runs as is.
 */
export function traceSocketOperation<T>(
  args: ExecutionArgs,
  extensions: Record<string, unknown> | undefined,
  run: () => T | Promise<T>,
): T | Promise<T> {
  if (!isTracingOn()) return run();
  const operation = getOperationAST(args.document, args.operationName);
  const type = operation?.operation ?? 'query';
  const name = operation?.name?.value ?? args.operationName ?? undefined;
  const ctx = args.contextValue as RequestContext | undefined;
  const carrier = typeof extensions?.traceparent === 'string' ? { traceparent: extensions.traceparent } : {};
  const parent = propagation.extract(context.active(), carrier);
  const span = tracer().startSpan(
    name ? `${type} ${name}` : type,
    {
      kind: SpanKind.SERVER,
      attributes: {
        'graphql.operation.type': type,
        'network.transport': 'websocket',
        ...(name ? { 'graphql.operation.name': name } : {}),
        ...(ctx?.caller ? { [TOOLGATE.orgId]: ctx.caller.orgId } : {}),
        ...(ctx?.correlationId ? { [TOOLGATE.correlationId]: ctx.correlationId } : {}),
      },
    },
    parent,
  );
  const finish = (result: unknown) => {
    const errors = (result as { errors?: readonly { extensions?: Record<string, unknown> }[] } | null)?.errors;
    const code = errors?.[0] && errorCodeOf(errors[0]);
    if (typeof code === 'string') span.setAttribute(TOOLGATE.errorCode, code);
    if (errors?.length) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
    return result as T;
  };
  try {
    const result = context.with(trace.setSpan(parent, span), run);
    return result instanceof Promise ? result.then(finish, (error) => fail(span, error)) : finish(result);
  } catch (error) {
    return fail(span, error);
  }
}

function fail(span: Span, error: unknown): never {
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
  throw error;
}
