import { GraphQLError } from 'graphql';
import type { ErrorCode } from './error-codes';

/**
 * The one error type services throw. It is a GraphQLError so that resolvers can let it
 * propagate untouched; `extensions.code` carries the stable code.
 */
export class AppError extends GraphQLError {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message, { extensions: { code, ...(details ?? {}) } });
    this.code = code;
    this.name = 'AppError';
  }
}

export const notFound = (what: string) => new AppError('NOT_FOUND', `${what} not found`);
export const badInput = (message: string, details?: Record<string, unknown>) => new AppError('BAD_USER_INPUT', message, details);
