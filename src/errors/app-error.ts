import type { ErrorCode } from './error-codes';

/**
 * The one error type services throw: a stable `code` and the `details` a client may see
 * next to the message. It knows no transport: the GraphQL edge turns it into a
 * GraphQLError (src/graphql/format-error.ts), MCP into a JSON-RPC error (src/mcp/).
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.code = code;
    this.details = details ?? {};
    this.name = 'AppError';
  }
}

/** What a client sees of an AppError besides its message, on every transport: the code, then the details. */
export const errorFields = (error: AppError): Record<string, unknown> => ({ code: error.code, ...error.details });

export const notFound = (what: string) => new AppError('NOT_FOUND', `${what} not found`);
export const badInput = (message: string, details?: Record<string, unknown>) => new AppError('BAD_USER_INPUT', message, details);
