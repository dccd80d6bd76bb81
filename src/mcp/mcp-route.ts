import { mayUse } from '../auth/access';
import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response, Router } from 'express';
import { createMcpHandler, isInitializeRequest, isLegacyRequest } from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import type { KeyAccess } from '../auth/key-access';
import { parseAuthorization } from '../auth/api-key.service';
import type { Caller } from '../auth/caller';
import { AppError } from '../errors/app-error';
import { ERROR_CATALOG } from '../errors/error-codes';
import { isDatabaseUnavailable } from '../db/unavailable';
import { type McpBinding, type McpTarget, bindRun } from './mcp-binding';
import { APP_ERROR_RPC_CODE, type McpServerDeps, createMcpServer } from './mcp-server';
import { McpSessions } from './mcp-sessions';
import type { RateLimits } from '../api/rate-limits';
import type { FairUseCaps } from '../config';
import { isRateLimited, refusalHeaders } from '../api/rate-limits';
import { chargeMcpRequest, chargeUnauthenticated } from './mcp-rate-limit';
import type { Identity } from '../identity/identity';
import { TokenRefused, looksLikeJwt } from '../identity/access-tokens';
import { bearerChallenge } from '../identity/protected-resource';

export interface McpRoute {
  router: Router;
  /** Ends every 2025-era session (shutdown). */
  close(): Promise<void>;
}

/**
 * `/mcp/specialists/:id` and `/mcp/runs/:id`, Streamable HTTP, both protocol eras. An agent
 * key authenticates every request. 2025-era clients (initialize) get a session bound to one
 * external run; 2026-07-28 requests are stateless and each is bound to its run. Either way
 * the tools are the run's manifest and every call goes through the gateway.
 */
/** What the route uses of the app's services. */
export type McpRouteServices = McpServerDeps & { keys: KeyAccess; identity: Identity };

export function mcpRoute(
  services: McpRouteServices,
  options: { maxBodyBytes: number; allowedOrigins: readonly string[]; limits: RateLimits; caps: FairUseCaps },
): McpRoute {
  const deps: McpServerDeps = {
    orm: services.orm,
    gateway: services.gateway,
    tools: services.tools,
    metrics: services.metrics,
    logger: services.logger.child({ component: 'mcp' }),
  };
  const sessions = new McpSessions(options.caps.mcpSessionsPerKey);
  const maxOpenRuns = options.caps.mcpOpenRunsPerKey;
  const onerror = (error: Error) => deps.logger.warn({ err: error }, 'MCP transport error');
  // The modern leg only: legacy traffic is routed to sessions below, never to a stateless fallback.
  const modern = createMcpHandler(
    ({ authInfo }) => {
      const { binding, correlationId } = authInfo!.extra as { binding: McpBinding; correlationId: string };
      return createMcpServer(deps, binding, { era: 'modern', correlationId });
    },
    { legacy: 'reject', onerror, maxRequestBodySize: options.maxBodyBytes },
  );
  const serveModern = toNodeHandler(modern);

  // A refusal of the credential names the OAuth metadata (RFC 9728), so an MCP client can start its OAuth flow.
  const challenge = (error?: unknown) => bearerChallenge(services.identity, 'mcp', error);

  const serve = async (req: Request, res: Response, target: McpTarget) => {
    const caller = await authenticateKey(services, req.header('authorization')).catch((error: unknown) =>
      chargeUnauthenticated(options.limits, req.socket.remoteAddress, error),
    );
    // The key's budget, as on GraphQL, before anything else is done for it.
    await chargeMcpRequest(options.limits, caller, req.method === 'POST' ? req.body : undefined, res);
    if (!mayUse('MCP./mcp', caller.role)) throw new AppError('FORBIDDEN', 'MCP endpoints are for agent keys');
    const correlationId = res.locals.correlationId as string;
    const parsedBody = req.method === 'POST' ? req.body : undefined;
    if (req.method === 'POST' && !req.is('application/json')) throw new AppError('BAD_USER_INPUT', 'MCP messages are application/json');
    if (await isLegacyRequest(await toWebRequest(req, parsedBody), parsedBody)) {
      const endpoint = `${target.kind}/${target.id}`;
      const sessionId = req.header('mcp-session-id');
      if (sessionId) {
        const session = sessions.find(sessionId, caller.keyId, endpoint);
        if (!session) return void rpcError(res, 404, 'NOT_FOUND', 'Session not found; initialize a new session');
        return session.transport.handleRequest(req, res, parsedBody);
      }
      if (!(req.method === 'POST' && isInitializeRequest(parsedBody))) {
        return void rpcError(res, 400, 'BAD_USER_INPUT', 'Mcp-Session-Id header required (or initialize a session)');
      }
      const release = sessions.reserve(caller.keyId); // MCP_SESSION_LIMIT before any run is opened
      try {
        const binding = await bindRun(deps.orm.em.fork(), deps.gateway, caller, target, { reuse: null, correlationId, maxOpenRuns });
        const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => sessions.add(id, { transport, keyId: caller.keyId, endpoint }),
        });
        transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
        await createMcpServer(deps, binding, { era: 'legacy', correlationId }).connect(transport);
        return await transport.handleRequest(req, res, parsedBody);
      } finally {
        release();
      }
    }
    const reuse = `mcp:${caller.keyId}:${target.id}`;
    const binding = await bindRun(deps.orm.em.fork(), deps.gateway, caller, target, { reuse, correlationId, maxOpenRuns });
    Object.assign(req, { auth: { token: 'agent-key', clientId: caller.keyId ?? '', scopes: [], extra: { binding, correlationId } } });
    await serveModern(req, res, parsedBody);
  };

  const router = Router();
  router.use(checkOrigin(options.allowedOrigins));
  router.use(express.json({ limit: options.maxBodyBytes }));
  for (const [path, kind] of [
    ['/specialists/:id', 'specialist'],
    ['/runs/:id', 'run'],
  ] as const) {
    router.all(path, (req, res, next) => serve(req, res, { kind, id: String(req.params.id) }).catch(next));
  }
  router.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent || isDatabaseUnavailable(error)) return next(error);
    if (isRateLimited(error)) return rpcError(res, 429, error.code, error.message, refusalHeaders(error));
    if (error instanceof TokenRefused || (error instanceof AppError && error.code === 'UNAUTHENTICATED')) {
      return rpcError(res, ERROR_CATALOG[error.code].httpStatus, error.code, error.message, { 'www-authenticate': challenge(error) });
    }
    if (error instanceof AppError) return rpcError(res, ERROR_CATALOG[error.code].httpStatus, error.code, error.message);
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large') return rpcError(res, 413, 'PAYLOAD_TOO_LARGE', 'The request body is too large');
    if (type === 'entity.parse.failed') return rpcError(res, 400, 'BAD_USER_INPUT', 'The request body is not valid JSON');
    next(error);
  });
  return { router, close: () => sessions.close().then(() => modern.close()) };
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * DNS-rebinding protection (MCP, Streamable HTTP: servers must validate Origin): a browser
 * request names its page's origin, which must be a loopback one or in MCP_ALLOWED_ORIGINS,
 * else 403 before anything else. Clients that are not browsers send no Origin.
 */
function checkOrigin(allowed: readonly string[]) {
  return (req: Request, res: Response, next: NextFunction) => {
    const origin = req.header('origin');
    if (origin === undefined) return next();
    let parsed: URL | null = null;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = null;
    }
    if (parsed && (LOOPBACK.has(parsed.hostname) || allowed.includes(parsed.origin))) return next();
    rpcError(res, 403, 'FORBIDDEN', `Origin ${origin} is not allowed (MCP_ALLOWED_ORIGINS)`);
  };
}

/** The request's key; MCP is then for agent keys only (the role that drives external runs, as executeToolCall). */
async function authenticateKey(services: McpRouteServices, header: string | undefined): Promise<Caller> {
  const secret = parseAuthorization(header);
  if (!secret) throw new AppError('UNAUTHENTICATED', 'An API key or an OAuth access token is required: Authorization: Bearer <agent key or token>');
  // An OAuth access token (JWT) for this resource, from a trusted issuer; anything else is a key.
  if (looksLikeJwt(secret)) return (await services.identity.tokens.caller(secret, services.identity.resourceUrl('mcp'), { as: 'agent' })).caller;
  return (await services.keys.authenticate(secret)).caller;
}

/** Refused before MCP began: a JSON-RPC error whose data carries the stable code. */
function rpcError(res: Response, status: number, code: string, message: string, headers: Record<string, string> = {}): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  if (status === 401 && !res.hasHeader('www-authenticate')) res.setHeader('www-authenticate', 'Bearer');
  res.status(status).json({ jsonrpc: '2.0', error: { code: APP_ERROR_RPC_CODE, message, data: { code } }, id: null });
}
