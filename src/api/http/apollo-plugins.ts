import { HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import type { DocumentNode, FormattedExecutionResult, GraphQLError, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import type { Caller } from '../../auth/caller';
import type { RequestContext } from '../../graphql/context';
import { AppError } from '../../errors/app-error';
import { ERROR_CATALOG } from '../../errors/error-codes';
import { errorCodeOf, isExpectedError, toGraphQLError } from '../../graphql/format-error';
import { UNAVAILABLE_RETRY_AFTER_SECONDS, describeUnavailable, isDatabaseUnavailable } from '../../db/unavailable';
import type { OperationGuard } from '../operation-guard';
import { isRateLimited, rateLimitHeaders, refusalHeaders } from '../rate-limits';
import { APPLICATION_JSON, statusForErrors, type ResponseMediaType } from './media';
import type { Logger } from '../../support/logger';

declare module '../../graphql/context' {
  interface RequestServices {
    logger: Logger;
  }
}

/**
 * Limits and rate limit after Apollo Server parsed and validated the operation and before
 * it executes (didResolveOperation: variables are known, so `first` sizes the cost).
 * Errors thrown here become the whole response, with the status of their code. Every
 * answer to a key carries the RateLimit header fields; a request refused before it could
 * be costed (parsing, validation, a limit) is charged one point.
 */
export function operationGuardPlugin(guard: OperationGuard): ApolloServerPlugin<RequestContext> {
  return {
    async requestDidStart() {
      let charged = false;
      return {
        async didResolveOperation({ schema, document, operation, request, response, contextValue }) {
          if (!operation || !contextValue.caller) return; // execution reports the unresolved operation
          // A subscription lives on graphql-ws; over HTTP it is refused with its code, never run (a 500 before).
          if (operation.operation === 'subscription') {
            throw withHttpStatus(new AppError('SUBSCRIPTION_OVER_HTTP', 'Subscriptions are served over graphql-ws (wss://…/graphql), not HTTP'));
          }
          const admission = await admitOverHttp(guard, schema, document, operation, request.variables, contextValue.caller);
          charged = admission.charged;
          if ('refused' in admission) throw admission.refused;
          setHeaders(response.http.headers, admission.headers);
        },
        async didEncounterErrors({ contextValue, response }) {
          if (charged || !contextValue?.caller) return;
          charged = true;
          const headers = await chargeRefusedOverHttp(guard, contextValue.caller);
          if (headers) setHeaders(response.http.headers, headers);
        },
      };
    },
  };
}

/** An operation's admission over HTTP: its RateLimit header fields, or the refusal as answered (status, 429's fields). */
export type HttpAdmission = { charged: true; headers: Record<string, string> } | { charged: boolean; refused: GraphQLError };

/** The guard's `admit` as both HTTP paths answer it (Apollo's plugin above, and ./tool-call-route.ts). */
export async function admitOverHttp(
  guard: OperationGuard,
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | null | undefined,
  caller: Caller,
): Promise<HttpAdmission> {
  try {
    const { verdict } = await guard.admit(schema, document, operation, variables, caller);
    return { charged: true, headers: rateLimitHeaders(verdict) };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { charged: isRateLimited(error), refused: withHttpStatus(error) };
  }
}

/** A request refused before it was charged: one point, and the RateLimit header fields (null once the budget is spent). */
export async function chargeRefusedOverHttp(guard: OperationGuard, caller: Caller): Promise<Record<string, string> | null> {
  try {
    return rateLimitHeaders(await guard.chargeRefused(caller));
  } catch (error) {
    if (!isRateLimited(error)) throw error;
    return null;
  }
}

function setHeaders(headers: HeaderMap, values: Record<string, string>): void {
  for (const [name, value] of Object.entries(values)) headers.set(name, value);
}

/** The AppError as Apollo Server answers it, with its code's HTTP status (and a 429's header fields). */
function withHttpStatus(error: AppError): GraphQLError {
  const headers = new HeaderMap();
  if (isRateLimited(error)) setHeaders(headers, refusalHeaders(error));
  return toGraphQLError(error, { http: { status: ERROR_CATALOG[error.code].httpStatus, headers } });
}

/**
 * Status codes by media type (see ./media.ts). The graphql-over-http middleware set the
 * request's Accept to the negotiated type, which Apollo Server then also serves.
 *
 * One exception to "a field error in a response with data stays 200": an error formatted
 * as `SERVICE_UNAVAILABLE` (the database is unreachable) makes the whole response a 503
 * with `Retry-After` and that one error, on both media types — the request as a whole is
 * to be retried, not its partial data trusted.
 */
export function mediaTypeStatusPlugin(): ApolloServerPlugin<RequestContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ request, response }) {
          if (response.body.kind !== 'single') return;
          const mediaType: ResponseMediaType =
            request.http?.headers.get('accept') === APPLICATION_JSON ? APPLICATION_JSON : 'application/graphql-response+json';
          const settled = settleResponse(mediaType, response.http.status, response.body.singleResult);
          response.body.singleResult = settled.result;
          response.http.status = settled.status;
          if (settled.retryAfter) response.http.headers.set('retry-after', settled.retryAfter);
        },
      };
    },
  };
}

/** A response's final status and body by the rules above (both HTTP paths); `status` undefined is Apollo's 200. */
export function settleResponse<R extends FormattedExecutionResult>(
  mediaType: ResponseMediaType,
  status: number | undefined,
  result: R,
): { status: number | undefined; result: R | FormattedExecutionResult; retryAfter?: string } {
  const unavailable = result.errors?.find((e) => e.extensions?.code === 'SERVICE_UNAVAILABLE');
  if (unavailable) {
    return {
      status: ERROR_CATALOG.SERVICE_UNAVAILABLE.httpStatus,
      result: { errors: [{ message: unavailable.message, extensions: { code: 'SERVICE_UNAVAILABLE' } }] },
      retryAfter: String(UNAVAILABLE_RETRY_AFTER_SECONDS),
    };
  }
  if (result.data !== undefined) return { status, result }; // execution started: a (partial) GraphQL response, 200
  return { status: statusForErrors(mediaType, status ?? 200, result.errors ?? []), result };
}

/**
 * Apollo Server's default cache-control plugin, without its cost: that plugin computes a
 * cache policy from every resolved field (a hook per field, thousands in a list of runs
 * with their calls) only to answer `no-store`, since no field has a cache hint. Answers
 * are per key and change with every call; this says so once per response.
 * (Installed with ApolloServerPluginCacheControlDisabled, src/app/server.ts.)
 */
export const NO_STORE = ['cache-control', 'no-store'] as const;

export function noStorePlugin(): ApolloServerPlugin<RequestContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          response.http.headers.set(NO_STORE[0], NO_STORE[1]);
        },
      };
    },
  };
}

/**
 * One debug line per operation (name, caller, duration, error codes; never variables or
 * query text, which may carry secrets), and unexpected errors at error level, all under
 * the request's correlation id. Clients see unexpected errors masked. An unreachable
 * database is one warn line per request (the driver's code and message, no stack): an
 * outage is not a bug, and every request would otherwise log a stack.
 */
export function requestLoggingPlugin(): ApolloServerPlugin<RequestContext> {
  return {
    async requestDidStart() {
      const started = performance.now();
      return {
        async didEncounterErrors({ errors, contextValue, operationName }) {
          logOperationErrors(contextValue, errors, operationName);
        },
        async willSendResponse({ contextValue, operationName, errors }) {
          logOperation(contextValue, operationName, started, errors);
        },
      };
    },
  };
}

/** The error lines of an operation's errors (see requestLoggingPlugin); both HTTP paths. */
export function logOperationErrors(
  contextValue: RequestContext | undefined,
  errors: readonly GraphQLError[],
  operationName: string | null | undefined,
): void {
  let unavailable: unknown;
  for (const error of errors) {
    if (isExpectedError(error)) continue;
    if (isDatabaseUnavailable(error)) {
      unavailable ??= error;
      continue;
    }
    contextValue?.logger?.error({ err: error.originalError ?? error, path: error.path, operationName }, 'request failed');
  }
  if (unavailable !== undefined) {
    contextValue?.logger?.warn(
      { operationName: operationName ?? null, during: 'execution', cause: describeUnavailable(unavailable) },
      'database unavailable: answered 503 SERVICE_UNAVAILABLE',
    );
  }
}

/** The operation's debug line (see requestLoggingPlugin); both HTTP paths. */
export function logOperation(
  contextValue: RequestContext | undefined,
  operationName: string | null | undefined,
  started: number,
  errors: readonly GraphQLError[] | undefined,
  /** Which path served it, when not Apollo Server (`tool-call`: ./tool-call-route.ts). */
  route?: string,
): void {
  // The check first: the request's child logger is made on first use, and mostly not needed.
  if (!contextValue?.services.logger.isLevelEnabled('debug')) return;
  contextValue.logger.debug(
    {
      operationName: operationName ?? null,
      orgId: contextValue.caller?.orgId,
      role: contextValue.caller?.role,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      errorCodes: errors?.map((e) => errorCodeOf(e) ?? (isDatabaseUnavailable(e) ? 'SERVICE_UNAVAILABLE' : 'INTERNAL_SERVER_ERROR')),
      ...(route ? { route } : {}),
    },
    'graphql operation',
  );
}
