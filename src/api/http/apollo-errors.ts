import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import type { ClientErrorFormatter } from '../client-errors';

/**
 * Errors as Apollo Server 5 formats them for a response (its errorNormalize.ts, which it
 * does not export): each a GraphQLError, `extensions.code` INTERNAL_SERVER_ERROR when it has
 * none, an `extensions.http` taken out into the response's status and header fields, the
 * stack when stack traces are on, then our formatter; a formatter that throws answers a
 * masked internal error. For ./tool-call-route.ts, whose answers must read as Apollo's:
 * test/api/gateway-route.test.ts compares both paths and fails if an upgrade changes this.
 */
export function formatErrorsAsApollo(
  errors: readonly unknown[],
  format: ClientErrorFormatter,
  includeStacktrace: boolean,
): { errors: GraphQLFormattedError[]; status?: number; headers: Record<string, string> } {
  let status: number | undefined;
  const headers: Record<string, string> = {};
  const enrich = (maybeError: unknown): GraphQLFormattedError => {
    const error = asGraphQLError(maybeError);
    const extensions: Record<string, unknown> = { ...error.extensions, code: error.extensions.code ?? 'INTERNAL_SERVER_ERROR' };
    const http = extensions.http as { status?: unknown; headers?: unknown } | undefined;
    if (
      http &&
      typeof http === 'object' &&
      (http.status === undefined || typeof http.status === 'number') &&
      (http.headers === undefined || http.headers instanceof Map)
    ) {
      if (http.status) status = http.status as number;
      for (const [name, value] of (http.headers as Map<string, string> | undefined) ?? []) headers[name] = value;
      delete extensions.http;
    }
    if (includeStacktrace) extensions.stacktrace = error.stack?.split('\n');
    return { ...error.toJSON(), extensions };
  };
  const formatted = errors.map((error) => {
    try {
      return format(enrich(error), error);
    } catch (formattingError) {
      if (includeStacktrace) return enrich(formattingError);
      return { message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } };
    }
  });
  return { errors: formatted, status, headers };
}

/** Apollo Server's ensureGraphQLError: any thrown value as a GraphQLError. */
export function asGraphQLError(maybeError: unknown): GraphQLError {
  const error = maybeError instanceof Error ? maybeError : new GraphQLError(`Unexpected error value: ${String(maybeError)}`);
  return error instanceof GraphQLError ? error : new GraphQLError(error.message, { originalError: error });
}
