import type { Request } from 'express';
import { AppError } from '../errors/app-error';
import { CSRF_HEADER, type ValidSession } from './sessions';

/** The request's origin is this deployment's: the public address, or the Host it was sent to. */
function sameOrigin(origin: string, publicUrl: string, host: string | undefined): boolean {
  if (origin === new URL(publicUrl).origin) return true;
  return host !== undefined && (origin === `http://${host}` || origin === `https://${host}`);
}

/**
 * A request authenticated by the session cookie must show it comes from the console: the
 * session's CSRF token (header, or graphql-ws connection parameter), which a page of another
 * site cannot read, and — when the browser names one — this deployment's Origin.
 * SameSite=Lax already keeps the cookie off cross-site POSTs; this holds without it too.
 */
export function checkCookieRequest(
  session: ValidSession,
  request: { origin: string | undefined; host: string | undefined; csrfToken: unknown },
  publicUrl: string,
): void {
  if (request.origin !== undefined && !sameOrigin(request.origin, publicUrl, request.host)) {
    throw new AppError('CSRF_REFUSED', `A request from ${request.origin} may not use the console's session`);
  }
  if (!session.csrfMatches(request.csrfToken)) {
    throw new AppError('CSRF_REFUSED', `A request made with the session cookie must carry the session's ${CSRF_HEADER} header`);
  }
}

/** What checkCookieRequest reads of an HTTP request. */
export const cookieRequestOf = (req: Request) => ({ origin: req.header('origin'), host: req.header('host'), csrfToken: req.header(CSRF_HEADER) });
