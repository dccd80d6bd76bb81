import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { AppError, errorFields } from '../errors/app-error';
import { isErrorCode } from '../errors/error-codes';
import { isDatabaseUnavailable, UNAVAILABLE_MESSAGE } from '../db/unavailable';

/** Codes Apollo Server itself produces for malformed requests; safe to pass through. */
const APOLLO_REQUEST_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
]);

/**
 * The AppError behind a GraphQL error, if any: a resolver's, which graphql-js wraps as the
 * `originalError` of a located error, or one the edge converted (`toGraphQLError`), which
 * Apollo Server may wrap once more.
 */
export function appErrorOf(error: unknown): AppError | undefined {
  for (let current = error; current !== undefined; current = current instanceof GraphQLError ? current.originalError : undefined) {
    if (current instanceof AppError) return current;
  }
  return undefined;
}

/**
 * An AppError as the GraphQL edge answers it: its message, and `extensions` of its code
 * and details (`extra`: what only the transport reads, e.g. Apollo's `http`). For the
 * places that hand graphql-js or graphql-ws an error themselves; a resolver's AppError is
 * converted by the formatter.
 */
export function toGraphQLError(error: AppError, extra?: Record<string, unknown>): GraphQLError {
  return new GraphQLError(error.message, { originalError: error, extensions: { ...errorFields(error), ...extra } });
}

/** The code a GraphQL error (not yet formatted) answers with, if it has one. */
export function errorCodeOf(error: GraphQLError | { extensions?: Record<string, unknown> }): unknown {
  return appErrorOf(error)?.code ?? error.extensions?.code;
}

/**
 * Decides what a client sees of an error: AppErrors and Apollo's request errors keep
 * their code and message; an unreachable database (src/db/unavailable.ts) is the retryable
 * `SERVICE_UNAVAILABLE`, with a fixed message; anything else is an internal error whose
 * details stay in the log (see `requestLoggingPlugin`). Stack traces only in development.
 */
export function createErrorFormatter(options: { includeStack: boolean }) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const appError = appErrorOf(error);
    if (appError) {
      // The AppError's fields first, in its order, then what the transport added (a stack trace).
      const { code: _code, ...added } = formatted.extensions ?? {};
      const extensions = { ...errorFields(appError), ...added };
      return withoutStack({ ...formatted, message: appError.message, extensions }, options.includeStack);
    }
    const original = unwrapResolverError(error);
    if (isDatabaseUnavailable(original)) {
      // Never the driver's text (host names, SQL) nor a stack: the request is to be retried.
      return {
        message: UNAVAILABLE_MESSAGE,
        locations: formatted.locations,
        path: formatted.path,
        extensions: { code: 'SERVICE_UNAVAILABLE' },
      };
    }
    const code = formatted.extensions?.code;
    if (typeof code === 'string' && (APOLLO_REQUEST_CODES.has(code) || isErrorCode(code)) && code !== 'INTERNAL_SERVER_ERROR') {
      return withoutStack(formatted, options.includeStack);
    }
    return {
      message: 'Internal server error',
      locations: formatted.locations,
      path: formatted.path,
      extensions: {
        code: 'INTERNAL_SERVER_ERROR',
        ...(options.includeStack && original instanceof Error ? { stacktrace: original.stack?.split('\n') } : {}),
      },
    };
  };
}

function withoutStack(formatted: GraphQLFormattedError, includeStack: boolean): GraphQLFormattedError {
  if (includeStack || !formatted.extensions || !('stacktrace' in formatted.extensions)) return formatted;
  const { stacktrace: _stack, ...extensions } = formatted.extensions;
  return { ...formatted, extensions };
}

/** True for errors a client caused or expects; everything else is logged as a failure. */
export function isExpectedError(error: unknown): boolean {
  if (appErrorOf(error)) return true;
  const original = unwrapResolverError(error);
  const code = (original as { extensions?: { code?: unknown } } | undefined)?.extensions?.code;
  return typeof code === 'string' && APOLLO_REQUEST_CODES.has(code);
}
