import { ConnectionException } from '@mikro-orm/core';

/**
 * Whether an error means "the database cannot be reached right now" — a transient outage
 * that a retry can outlive — as opposed to a bug or a bad query. Requests failing this way
 * answer 503 `SERVICE_UNAVAILABLE` with `Retry-After` instead of an internal error.
 *
 * Looks through everything that wraps a driver error on its way up: `cause` chains,
 * GraphQL's `originalError` (and `thrownValue`, when what was thrown is not an Error of this
 * realm), AggregateError's `errors` (a host name resolving to several addresses), and
 * MikroORM's DriverException, which copies the driver error's `code` and message onto itself.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return unavailableCause(error) !== undefined;
}

/** The error (the given one or one it wraps) that says the database is unreachable. */
export function unavailableCause(error: unknown): object | undefined {
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length > 0 && seen.size < MAX_VISITED) {
    const current = pending.shift();
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    if (isUnavailableItself(current)) return current;
    const wrapper = current as { cause?: unknown; originalError?: unknown; thrownValue?: unknown; errors?: unknown };
    const { cause, originalError, thrownValue, errors } = wrapper;
    pending.push(originalError, cause, thrownValue);
    if (Array.isArray(errors)) pending.push(...errors.slice(0, MAX_VISITED));
  }
  return undefined;
}

/** How many wrapped errors are looked at, at most (cycles are skipped anyway). */
const MAX_VISITED = 32;

/**
 * Socket-level failures to reach or keep a connection to the server (Node's error codes).
 * Not ECONNABORTED: body-parser gives it to a client's aborted request.
 */
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN', // temporary DNS failure
]);

/**
 * PostgreSQL SQLSTATEs: class 08 (connection exception) is matched by its prefix;
 * 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up,
 * shutting down, recovering), 53300 too_many_connections.
 */
const SQLSTATES: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03', '53300']);
const SQLSTATE_CLASS_08 = /^08[0-9A-Z]{3}$/;

/**
 * Messages of errors that carry no code, from node-postgres and knex's pool. knex puts the
 * failed statement in front (`<sql> - <driver message>`, the parameters inlined) and
 * MikroORM may append `\n - detail: …` lines: a message matches when the driver's text is
 * all of it or ends it after " - ", so text inside the SQL (user data) never matches.
 */
const DRIVER_MESSAGE = new RegExp(
  '(?:^| - )(?:' +
    [
      'Connection terminated(?: unexpectedly| due to connection timeout)?', // pg (pg-pool: the timeout)
      'Client has encountered a connection error and is not queryable', // pg: a client used after its socket failed
      'timeout expired', // pg: connectionTimeoutMillis passed while connecting
      'Knex: Timeout acquiring a connection\\. .*', // knex: no pooled connection within the acquire timeout
    ].join('|') +
    ')$',
);

function isUnavailableItself(error: object): boolean {
  if (error instanceof ConnectionException) return true;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SQLSTATES.has(code) || SQLSTATE_CLASS_08.test(code))) {
    return true;
  }
  if (typeof message !== 'string') return false;
  return DRIVER_MESSAGE.test(withoutDetails(message));
}

/** Seconds a client should wait before retrying a request refused for an outage. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

/** What clients are told (never the driver's text: it names hosts and SQL). */
export const UNAVAILABLE_MESSAGE = 'The service is temporarily unavailable; retry later';

/**
 * For the log: the code and the driver's own message, without the stack and without the
 * statement knex puts in front of it (its parameters are inlined: key hashes, user data).
 */
export function describeUnavailable(error: unknown): { code?: string; message?: string } {
  const cause = unavailableCause(error) as { code?: unknown; message?: unknown } | undefined;
  if (!cause) return {};
  const described: { code?: string; message?: string } = {};
  if (typeof cause.code === 'string') described.code = cause.code;
  if (typeof cause.message === 'string') {
    const message = withoutDetails(cause.message);
    const statementEnd = message.lastIndexOf(' - ');
    described.message = (statementEnd < 0 ? message : message.slice(statementEnd + 3)).slice(0, 200);
  }
  return described;
}

function withoutDetails(message: string): string {
  return message.replace(/\n - (?:detail|hint): [\s\S]*$/, '');
}
