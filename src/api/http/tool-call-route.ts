import type { RequestHandler, Response } from 'express';
import { LRUCache } from 'lru-cache';
import {
  type GraphQLError,
  Kind,
  execute,
  getVariableValues,
  parse,
  validate,
  visit,
  type DocumentNode,
  type GraphQLFormattedError,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { RequestContext } from '../../graphql/context';
import type { Caller } from '../../auth/caller';
import type { OperationGuard } from '../operation-guard';
import type { ClientErrorFormatter } from '../client-errors';
import { activeOperationSpan, markOperationSpanFailed, nameOperationSpan } from '../../telemetry/trace-graphql';
import { NO_STORE, admitOverHttp, chargeRefusedOverHttp, logOperation, logOperationErrors, settleResponse } from './apollo-plugins';
import { asGraphQLError, formatErrorsAsApollo } from './apollo-errors';
import { responseMediaType } from './media';

/** The one root field this route serves. */
export const ROUTED_ROOT_FIELD = 'executeToolCall';

/** Document texts remembered (routed or not); past this, the least recently used is forgotten. */
export const MAX_ROUTED_DOCUMENTS = 500;

export interface ToolCallRouteOptions {
  schema: GraphQLSchema;
  guard: OperationGuard;
  format: ClientErrorFormatter;
  /** Apollo Server's includeStacktraceInErrorResponses, so that errors read the same. */
  includeStacktrace: boolean;
  contextFor(caller: Caller, correlationId: string): RequestContext;
}

interface RoutedDocument {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  operationName: string | null;
}

/**
 * `executeToolCall` over HTTP without Apollo Server's pipeline (issue 34, item 1; the
 * measurement: docs/benchmarks.md, "Gateway route"). Mounted in the /graphql router after
 * every edge check (media type, content type, body and its limit, batches, authentication,
 * trusted documents, tracing), just before Apollo Server, so those stay one code path. It
 * serves a POST whose document holds one mutation of the one root field `executeToolCall`,
 * parsed and validated once per text; it runs what Apollo Server's plugins run, through the
 * same functions (the operation guard, status by media type, no-store, request logging,
 * the operation's span) and graphql-js `execute` on the same schema and context. Anything
 * else — another document, an invalid one, APQ, variables graphql-js would refuse, an
 * operation name that does not match — goes on to Apollo Server, which answers it as before.
 */
export function toolCallRoute(options: ToolCallRouteOptions): RequestHandler {
  const documents = new RoutedDocuments(options.schema);
  return (req, res, next) => {
    const caller = res.locals.caller as Caller | undefined;
    const request = routableRequest(req.method, req.body);
    if (!caller || !request) return next();
    const routed = documents.get(request.query);
    if (!routed || (request.operationName !== undefined && request.operationName !== routed.operationName)) return next();
    // Variables graphql-js would refuse: Apollo Server reports them in its words (BAD_USER_INPUT), before any charge.
    if (getVariableValues(options.schema, routed.operation.variableDefinitions ?? [], request.variables ?? {}, { maxErrors: 1 }).errors)
      return next();
    serve(options, routed, request.variables, caller, res).catch(next);
  };
}

/** What Apollo Server's pipeline does for the operation after validation, in its order. */
async function serve(
  options: ToolCallRouteOptions,
  routed: RoutedDocument,
  variables: Record<string, unknown> | undefined,
  caller: Caller,
  res: Response,
): Promise<void> {
  const started = performance.now();
  const contextValue = options.contextFor(caller, String(res.locals.correlationId));
  const span = activeOperationSpan();
  if (span) nameOperationSpan(span, routed.operation.operation, routed.operationName, caller.orgId);
  const headers: Record<string, string> = {};

  // A failure of the guard itself (its store unreachable) is answered as Apollo Server answers a plugin's throw.
  const admission = await admitOverHttp(options.guard, options.schema, routed.document, routed.operation, variables, caller).catch(
    (error: unknown) => ({ charged: false, refused: asGraphQLError(error) }),
  );
  if ('refused' in admission) {
    const errors = [admission.refused];
    if (!admission.charged) Object.assign(headers, await chargeRefusedOverHttp(options.guard, caller));
    encountered(contextValue, span, errors, routed.operationName);
    const formatted = formatErrorsAsApollo(errors, options.format, options.includeStacktrace);
    Object.assign(headers, formatted.headers);
    return send(res, formatted.status ?? 500, headers, { errors: formatted.errors }, () =>
      logOperation(contextValue, routed.operationName, started, errors, 'tool-call'),
    );
  }
  Object.assign(headers, admission.headers);

  const result = await execute({
    schema: options.schema,
    document: routed.document,
    variableValues: variables,
    operationName: routed.operationName,
    contextValue,
  });
  const errors = result.errors;
  if (errors) encountered(contextValue, span, errors, routed.operationName);
  const formatted = errors ? formatErrorsAsApollo(errors, options.format, options.includeStacktrace) : undefined;
  if (formatted) Object.assign(headers, formatted.headers);
  send(res, formatted?.status, headers, { errors: formatted?.errors, data: result.data, extensions: result.extensions }, () =>
    logOperation(contextValue, routed.operationName, started, errors, 'tool-call'),
  );
}

/** Apollo Server's didEncounterErrors hooks: the guard's charge is settled by then; logging and the span. */
function encountered(
  contextValue: RequestContext,
  span: ReturnType<typeof activeOperationSpan>,
  errors: readonly GraphQLError[],
  operationName: string | null,
): void {
  logOperationErrors(contextValue, errors, operationName);
  if (span) markOperationSpanFailed(span, errors);
}

/** willSendResponse (no-store, status by media type, the log line), then the answer as Apollo's Express integration writes it. */
function send(
  res: Response,
  status: number | undefined,
  headers: Record<string, string>,
  body: { errors?: GraphQLFormattedError[]; data?: unknown; extensions?: unknown },
  logLine: () => void,
): void {
  const mediaType = responseMediaType(res);
  headers[NO_STORE[0]] = NO_STORE[1];
  const settled = settleResponse(mediaType, status, body as Parameters<typeof settleResponse>[2]);
  if (settled.retryAfter) headers['retry-after'] = settled.retryAfter;
  logLine();
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('content-type', `${mediaType}; charset=utf-8`);
  res.statusCode = settled.status ?? 200;
  const { errors, data, extensions } = settled.result as typeof body;
  // Apollo Server's field order and trailing newline (its prettyJSONStringify).
  res.send(`${JSON.stringify({ errors, data, extensions })}\n`);
}

/** The request's GraphQL fields when the route may serve it: a POST body of the usual shape, no APQ. */
function routableRequest(method: string, body: unknown): { query: string; variables?: Record<string, unknown>; operationName?: string } | null {
  if (method !== 'POST' || !isRecord(body) || typeof body.query !== 'string') return null;
  const { query, variables, operationName, extensions } = body;
  if (variables !== undefined && variables !== null && !isRecord(variables)) return null;
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return null;
  if (extensions !== undefined && extensions !== null && (!isRecord(extensions) || 'persistedQuery' in extensions)) return null;
  return { query, variables: variables ?? undefined, operationName: operationName ?? undefined };
}

/**
 * Which document texts the route serves, decided once per text: one operation, a mutation
 * whose only selection is `executeToolCall` (no directive on it), no introspection field,
 * valid against the schema. Bounded: the least recently used text is forgotten first.
 */
class RoutedDocuments {
  /** Each text's decision (`false`: not routed), the least recently used forgotten first. */
  private readonly seen = new LRUCache<string, RoutedDocument | false>({ max: MAX_ROUTED_DOCUMENTS });

  constructor(private readonly schema: GraphQLSchema) {}

  get(text: string): RoutedDocument | null {
    let routed = this.seen.get(text);
    if (routed === undefined) {
      routed = this.decide(text) ?? false;
      this.seen.set(text, routed);
    }
    return routed || null;
  }

  private decide(text: string): RoutedDocument | null {
    let document: DocumentNode;
    try {
      document = parse(text);
    } catch {
      return null; // Apollo Server reports it
    }
    const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
    if (operations.length !== 1) return null;
    const [operation] = operations;
    const [root, ...others] = operation.selectionSet.selections;
    if (operation.operation !== 'mutation' || others.length > 0 || root?.kind !== Kind.FIELD) return null;
    if (root.name.value !== ROUTED_ROOT_FIELD || root.alias || root.directives?.length || operation.directives?.length) return null;
    if (mentionsIntrospection(document) || validate(this.schema, document).length > 0) return null;
    return { document, operation, operationName: operation.name?.value ?? null };
  }
}

/** Apollo Server refuses `__schema` and `__type` with introspection off: such a document is left to it. */
function mentionsIntrospection(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value === '__schema' || node.name.value === '__type') found = true;
    },
  });
  return found;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
