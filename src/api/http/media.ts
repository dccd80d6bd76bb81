import type { Response } from 'express';
import type { GraphQLFormattedError } from 'graphql';

/**
 * GraphQL over HTTP (graphql/graphql-over-http): responses are
 * `application/graphql-response+json` unless the client asks for `application/json`; a
 * request without Accept (or with only wildcards) gets the former, as the specification
 * prescribes since its 2025 watershed.
 *
 * Status codes: with `application/graphql-response+json`, a response without `data` is 4xx
 * (400 for a request that fails parsing, validation, the limits or the persisted-document
 * checks); with legacy `application/json`, such GraphQL request errors answer 200, as the
 * specification asks, and only HTTP-level refusals keep their status (401, 405, 406, 413,
 * 415, 429, and 400 for a body that is not a GraphQL request). On both, an unreachable
 * database is 503 `SERVICE_UNAVAILABLE` with `Retry-After`, even after execution started.
 */
export const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json';
export const APPLICATION_JSON = 'application/json';
export type ResponseMediaType = typeof GRAPHQL_RESPONSE_JSON | typeof APPLICATION_JSON;

/** Error codes of GraphQL request errors (as opposed to HTTP-level refusals). */
export const GRAPHQL_REQUEST_ERROR_CODES: ReadonlySet<string> = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'OPERATION_RESOLUTION_FAILURE',
  'BAD_USER_INPUT',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_ALLOWED',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'QUERY_TOO_DEEP',
  'QUERY_TOO_COSTLY',
  'TOO_MANY_ALIASES',
  'TOO_MANY_DIRECTIVES',
  'TOO_MANY_TOKENS',
]);

/** The status a response without data gets, given the media type it is served as. */
export function statusForErrors(mediaType: ResponseMediaType, status: number, errors: readonly GraphQLFormattedError[]): number {
  if (mediaType === APPLICATION_JSON) {
    const requestErrors = errors.length > 0 && errors.every((e) => GRAPHQL_REQUEST_ERROR_CODES.has(String(e.extensions?.code)));
    return requestErrors && status >= 400 && status < 500 ? 200 : status;
  }
  return Math.max(status, 400);
}

export function responseMediaType(res: Response): ResponseMediaType {
  return res.locals.mediaType === APPLICATION_JSON ? APPLICATION_JSON : GRAPHQL_RESPONSE_JSON;
}

/** Writes a GraphQL response that carries errors only, in the negotiated media type. */
export function sendErrors(res: Response, status: number, errors: GraphQLFormattedError[], headers: Record<string, string> = {}): void {
  const mediaType = responseMediaType(res);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res
    .status(statusForErrors(mediaType, status, errors))
    .type(`${mediaType}; charset=utf-8`)
    .send(JSON.stringify({ errors }));
}
