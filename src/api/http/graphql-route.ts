import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import { GraphQLError } from 'graphql';
import type { RequestContext } from '../../graphql/context';
import type { Caller } from '../../auth/caller';
import { parseAuthorization } from '../../auth/api-key.service';
import type { KeyAccess } from '../../auth/key-access';
import { AppError } from '../../errors/app-error';
import { toGraphQLError } from '../../graphql/format-error';
import { ERROR_CATALOG } from '../../errors/error-codes';
import { UNAVAILABLE_MESSAGE, UNAVAILABLE_RETRY_AFTER_SECONDS, describeUnavailable, isDatabaseUnavailable } from '../../db/unavailable';
import type { Logger } from '../../support/logger';
import type { ClientErrorFormatter } from '../client-errors';
import type { OperationGuard } from '../operation-guard';
import { isRateLimited, refusalHeaders } from '../rate-limits';
import type { DocumentRequest } from '../persisted-documents';
import { APPLICATION_JSON, GRAPHQL_RESPONSE_JSON, sendErrors } from './media';
import { serveIdePage } from './graphql-ide';
import { graphqlTracing } from '../../telemetry/trace-graphql';
import type { Identity } from '../../identity/identity';
import { looksLikeJwt, TokenRefused } from '../../identity/access-tokens';
import { bearerChallenge } from '../../identity/protected-resource';
import { checkCookieRequest, cookieRequestOf } from '../../identity/cookie-requests';
import type { ValidKey } from '../../auth/api-key.service';

export interface GraphQLRouteOptions {
  apollo: ApolloServer<RequestContext>;
  guard: OperationGuard;
  keys: KeyAccess;
  identity: Identity;
  logger: Logger;
  format: ClientErrorFormatter;
  maxBodyBytes: number;
  /** Serve the bundled GraphiQL to browsers (GRAPHQL_IDE; ./graphql-ide.ts). */
  ide: boolean;
  contextFor(caller: Caller, correlationId: string): RequestContext;
  /** The lighter route of executeToolCall (./tool-call-route.ts), just before Apollo Server; absent when turned off. */
  toolCallRoute?: RequestHandler;
}

/**
 * `/graphql` over HTTP. Everything a request can be refused for without parsing GraphQL
 * happens here, in order, before Apollo Server sees it:
 *   media type (406) → POST content type (415) → JSON body and its size (400, 413) →
 *   batches (400) → API key (401, authenticated once; Apollo's context reuses it) →
 *   trusted documents and the token limit (400).
 * executeToolCall then takes the lighter route of ./tool-call-route.ts (GRAPHQL_TOOL_CALL_ROUTE);
 * for anything else Apollo Server then applies CSRF prevention, GET-for-queries-only (405), parsing,
 * validation, and the operation guard plugin (limits, rate limit).
 * An unreachable database anywhere on the way (the key lookup, a resolver) answers 503
 * `SERVICE_UNAVAILABLE` with `Retry-After` (resolvers: see mediaTypeStatusPlugin).
 */
export function graphqlRoute(options: GraphQLRouteOptions): express.Router {
  const router = express.Router();
  const apollo = expressMiddleware(options.apollo, {
    context: async ({ res }) => {
      const caller = res.locals.caller as Caller | undefined;
      if (!caller) throw new GraphQLError('An API key is required', { extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } } });
      return options.contextFor(caller, String(res.locals.correlationId));
    },
  });
  const refuse = refusal(options);

  if (options.ide) router.use(idePage);
  router.use(negotiateMediaType);
  router.use(requireJsonPost(refuse));
  router.use(express.json({ limit: options.maxBodyBytes }));
  router.use(refuseBatches(refuse));
  router.use(authenticateKey(options, refuse));
  router.use(trustedDocuments(options, refuse));
  const tracing = graphqlTracing();
  if (tracing) router.use(tracing);
  if (options.toolCallRoute) router.use(options.toolCallRoute);
  router.use(apollo);
  router.use(bodyErrors(options, refuse));
  return router;
}

type Refuse = (res: Response, refused: GraphQLError | AppError, status?: number, headers?: Record<string, string>) => void;

function refusal(options: GraphQLRouteOptions): Refuse {
  return (res, refused, status, headers) => {
    const error = refused instanceof AppError ? toGraphQLError(refused) : refused;
    const code = String(error.extensions.code ?? 'INTERNAL_SERVER_ERROR');
    const httpStatus = status ?? (code in ERROR_CATALOG ? ERROR_CATALOG[code as keyof typeof ERROR_CATALOG].httpStatus : 400);
    options.logger.debug(
      { correlationId: res.locals.correlationId, role: (res.locals.caller as Caller | undefined)?.role, errorCodes: [code] },
      'graphql request refused',
    );
    sendErrors(res, httpStatus, [options.format(error.toJSON(), error)], headers);
  };
}

/** The database is unreachable: 503 SERVICE_UNAVAILABLE with Retry-After, one warn line. */
function unavailable(options: GraphQLRouteOptions, refuse: Refuse, res: Response, error: unknown, during: string): void {
  options.logger.warn(
    { correlationId: res.locals.correlationId, during, cause: describeUnavailable(error) },
    'database unavailable: answered 503 SERVICE_UNAVAILABLE',
  );
  refuse(res, new AppError('SERVICE_UNAVAILABLE', UNAVAILABLE_MESSAGE), ERROR_CATALOG.SERVICE_UNAVAILABLE.httpStatus, {
    'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS),
  });
}

const badRequest = (message: string) => new GraphQLError(message, { extensions: { code: 'BAD_REQUEST' } });

/**
 * A browser asking for HTML, with no operation in the URL: the GraphQL IDE. Any other GET
 * (a persisted `?documentId=…`, a client asking for JSON) goes on to the API.
 */
const idePage: RequestHandler = (req, res, next) => {
  const wantsHtml =
    req.method === 'GET' && !req.url.includes('?') && req.accepts([GRAPHQL_RESPONSE_JSON, APPLICATION_JSON, 'text/html']) === 'text/html';
  if (!wantsHtml) return next();
  return serveIdePage(req, res, next);
};

/**
 * The response media type, from Accept; none or only wildcards → graphql-response+json.
 * Accept is rewritten to the choice so that Apollo Server answers with the same type.
 */
function negotiateMediaType(req: Request, res: Response, next: NextFunction): void {
  const chosen = req.accepts([GRAPHQL_RESPONSE_JSON, APPLICATION_JSON]);
  if (!chosen) {
    res.locals.mediaType = GRAPHQL_RESPONSE_JSON;
    sendErrors(res, 406, [{ message: `Accept ${GRAPHQL_RESPONSE_JSON} or ${APPLICATION_JSON}`, extensions: { code: 'BAD_REQUEST' } }]);
    return;
  }
  req.headers.accept = chosen;
  res.locals.mediaType = chosen;
  next();
}

function requireJsonPost(refuse: Refuse): RequestHandler {
  return (req, res, next) => {
    if (req.method === 'POST' && !req.is(APPLICATION_JSON)) {
      return refuse(res, badRequest(`POST requests must have content-type ${APPLICATION_JSON}`), 415);
    }
    next();
  };
}

function refuseBatches(refuse: Refuse): RequestHandler {
  return (req, res, next) => {
    if (Array.isArray(req.body)) {
      return refuse(res, new AppError('BATCHING_NOT_SUPPORTED', 'Batched requests are not supported: send one operation per request'));
    }
    next();
  };
}

/** Answers a refused request RATE_LIMITED (429) when `charging` finds its budget spent, else runs `otherwise`. */
async function chargedOr(charging: Promise<unknown>, refuse: Refuse, res: Response, otherwise: () => void): Promise<void> {
  try {
    await charging;
  } catch (error) {
    if (!isRateLimited(error)) throw error;
    return refuse(res, error, 429, refusalHeaders(error));
  }
  otherwise();
}

/**
 * Who is calling, from one of: `Authorization: Bearer <API key>`; `Authorization: Bearer
 * <OAuth access token>` (a JWT for `<PUBLIC_URL>/graphql` from a configured issuer: a
 * person, in the role `x-toolgate-role` asks for when they have several); or the console's
 * session cookie, with its CSRF token (src/identity/).
 */
async function authenticate(options: GraphQLRouteOptions, req: Request, secret: string | null): Promise<ValidKey> {
  const { identity } = options;
  if (secret !== null && looksLikeJwt(secret)) {
    return identity.tokens.caller(secret, identity.resourceUrl('graphql'), { as: 'person', role: req.header('x-toolgate-role') ?? null });
  }
  if (secret !== null) return options.keys.authenticate(secret);
  const cookie = identity.sessionCookie(req.headers.cookie);
  if (!cookie) throw new AppError('UNAUTHENTICATED', 'An API key is required (Authorization: Bearer <key>), or sign in to the console');
  const session = await identity.session(cookie);
  checkCookieRequest(session, cookieRequestOf(req), identity.publicUrl);
  return session;
}

function authenticateKey(options: GraphQLRouteOptions, refuse: Refuse): RequestHandler {
  // Requests without a valid key are limited per client address (the socket's peer).
  const unauthenticated = (req: Request, res: Response, error: AppError) =>
    chargedOr(options.guard.limits.chargeAnonymous(req.socket.remoteAddress ?? 'unknown'), refuse, res, () =>
      refuse(res, error, 401, { 'www-authenticate': bearerChallenge(options.identity, 'graphql', error) }),
    );
  return async (req, res, next) => {
    const secret = parseAuthorization(req.headers.authorization);
    try {
      res.locals.caller = (await authenticate(options, req, secret)).caller;
    } catch (error) {
      if (error instanceof AppError && error.code === 'UNAUTHENTICATED') return unauthenticated(req, res, error);
      if (error instanceof TokenRefused) return refuse(res, error, 403, { 'www-authenticate': bearerChallenge(options.identity, 'graphql', error) });
      if (error instanceof AppError && (error.code === 'ORG_SUSPENDED' || error.code === 'CSRF_REFUSED' || error.code === 'FORBIDDEN'))
        return refuse(res, error);
      if (error instanceof AppError && error.code === 'SERVICE_UNAVAILABLE') return refuse(res, error);
      if (isDatabaseUnavailable(error)) return unavailable(options, refuse, res, error, 'authentication');
      return next(error);
    }
    next();
  };
}

/**
 * Trusted documents, before anything is parsed: a request naming a manifest document (by
 * `documentId` or by Apollo's `extensions.persistedQuery`) is rewritten to carry its text;
 * text from a trusted role, or an id the manifest lacks, is refused (persisted-documents.ts).
 */
function trustedDocuments(options: GraphQLRouteOptions, refuse: Refuse): RequestHandler {
  return async (req, res, next) => {
    const caller = res.locals.caller as Caller;
    const isGet = req.method === 'GET';
    const [pathname, search = ''] = req.url.split(/\?(.*)/s, 2);
    const params = new URLSearchParams(search);
    const body: Record<string, unknown> = !isGet && isRecord(req.body) ? req.body : {};
    const extensions = isGet ? jsonParam(params.get('extensions')) : body.extensions;
    const request: DocumentRequest = isGet
      ? { query: params.get('query') ?? undefined, documentId: params.get('documentId') ?? undefined, extensions }
      : { query: body.query, documentId: body.documentId, extensions };

    let resolved: ReturnType<OperationGuard['resolve']>;
    try {
      resolved = options.guard.resolve(request, caller);
    } catch (error) {
      // Refused before parsing (text from a partner, an unknown id, a lexical limit): one point.
      if (error instanceof GraphQLError || error instanceof AppError)
        return chargedOr(options.guard.chargeRefused(caller), refuse, res, () => refuse(res, error));
      return next(error);
    }

    let newExtensions: Record<string, unknown> | undefined;
    if (resolved.kind === 'manifest') {
      // The manifest's text runs; the request's id and APQ hash have done their job.
      newExtensions = isRecord(extensions) ? withoutKey(extensions, 'persistedQuery') : undefined;
      if (isGet) {
        params.delete('documentId');
        params.set('query', resolved.document.text);
      } else {
        const { documentId: _id, ...rest } = body;
        req.body = { ...rest, query: resolved.document.text };
      }
    } else if (resolved.kind === 'apq' && isRecord(extensions)) {
      // Apollo's APQ cache is keyed by the bare hex; accept the `sha256:` form too.
      newExtensions = { ...extensions, persistedQuery: { ...(extensions.persistedQuery as object), sha256Hash: resolved.sha256Hash } };
    } else {
      return next();
    }
    if (isGet) {
      if (newExtensions && Object.keys(newExtensions).length > 0) params.set('extensions', JSON.stringify(newExtensions));
      else params.delete('extensions');
      req.url = `${pathname}?${params.toString()}`;
    } else if (newExtensions && Object.keys(newExtensions).length > 0) {
      req.body = { ...req.body, extensions: newExtensions };
    } else {
      const { extensions: _extensions, ...rest } = req.body as Record<string, unknown>;
      req.body = rest;
    }
    next();
  };
}

/**
 * Body-parser failures (malformed JSON, too large) in GraphQL's error shape; an unreachable
 * database is a 503; the rest is a 500.
 */
function bodyErrors(options: GraphQLRouteOptions, refuse: Refuse) {
  return (error: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    const status = (error as { status?: number }).status ?? 500;
    const type = (error as { type?: string }).type;
    if (status === 413 || type === 'entity.too.large') {
      return refuse(res, new AppError('PAYLOAD_TOO_LARGE', `The request body is larger than ${options.maxBodyBytes} bytes`));
    }
    if (status === 400 || status === 415) {
      return refuse(res, badRequest(status === 415 ? 'Unsupported request body encoding' : 'The request body is not valid JSON'), status);
    }
    if (isDatabaseUnavailable(error)) return unavailable(options, refuse, res, error, 'request');
    options.logger.error({ err: error, correlationId: res.locals.correlationId }, 'unhandled HTTP error');
    refuse(res, new GraphQLError('Internal server error', { extensions: { code: 'INTERNAL_SERVER_ERROR' } }), 500);
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withoutKey(record: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _removed, ...rest } = record;
  return rest;
}

/** A JSON query-string parameter, or undefined when absent or not JSON (Apollo reports that). */
function jsonParam(value: string | null): unknown {
  if (value === null) return undefined;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}
