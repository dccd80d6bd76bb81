import { AppError } from '../errors/app-error';

/**
 * A tenant URL Toolgate will not send to: its host's address is not allowed by the egress
 * policy, its name does not resolve, or it answered with a redirect (never followed). The
 * reason is for logs and tests only; what a tenant sees is one code and one sentence,
 * whichever it was, so the API answers no questions about the operator's network.
 */
export class EgressRefusedError extends Error {
  readonly code = 'EGRESS_REFUSED';

  constructor(readonly reason: 'address' | 'unresolved' | 'redirect') {
    super('egress refused');
    this.name = 'EgressRefusedError';
  }

  /** A redirect is an answer: the request reached the server (it may have acted on it). */
  get requestSent(): boolean {
    return this.reason === 'redirect';
  }
}

/** The EgressRefusedError in an error's cause chain (fetch wraps what the connector threw), if any. */
export function egressRefusalIn(error: unknown): EgressRefusedError | null {
  for (let cause = error, depth = 0; cause && depth < 6; depth++) {
    if (cause instanceof EgressRefusedError) return cause;
    cause = (cause as { cause?: unknown }).cause;
  }
  return null;
}

/**
 * The one answer a tenant gets for a URL Toolgate will not reach, whatever the reason (a
 * refused address, a name that does not resolve, a redirect, no connection): the API is no
 * port scanner.
 */
export const egressRefused = (field = 'url') =>
  new AppError('EGRESS_REFUSED', "The URL's host cannot be reached under this server's egress policy (public addresses only, no redirects)", {
    field,
  });
