import type { GraphQLError, GraphQLFormattedError } from 'graphql';
import type { Config } from '../config';
import { createErrorFormatter } from '../graphql/format-error';

export type ClientErrorFormatter = (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;

/**
 * What clients see of an error on either transport: the shared formatter (codes kept,
 * internals masked, stack traces only in development with TOOLGATE_FULL_STACKS) and, in the production profile, no
 * "Did you mean …?" hints, which would spell out the schema with introspection off.
 * Validation hides them at the source (graphql-js `hideSuggestions`); this also covers
 * variable coercion, whose messages suggest enum values.
 */
export function createClientErrorFormatter(config: Config): ClientErrorFormatter {
  const format = createErrorFormatter({ includeStack: config.nodeEnv === 'development' && config.fullStacks });
  if (config.api.fieldSuggestions) return format;
  return (formatted, error) => {
    const result = format(formatted, error);
    return { ...result, message: withoutSuggestions(result.message) };
  };
}

export function withoutSuggestions(message: string): string {
  return message.replace(/ ?Did you mean .+\?$/s, '');
}

/** The client's view of an error for the websocket transport (no `http` extension). */
export function formatForSocket(format: ClientErrorFormatter, error: GraphQLError): GraphQLFormattedError {
  const json = error.toJSON();
  if (json.extensions && 'http' in json.extensions) {
    const { http: _http, ...extensions } = json.extensions;
    return format({ ...json, extensions }, error);
  }
  return format(json, error);
}
