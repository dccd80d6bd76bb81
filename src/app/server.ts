import http from 'node:http';
import { randomUUID } from 'node:crypto';
import express, { type Request, type Response, type NextFunction } from 'express';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import type { GraphQLSchema } from 'graphql';
import type { AppServices } from './services';
import type { RequestContext } from '../graphql/context';
import type { Caller } from '../auth/caller';
import { pendingMigrations } from '../db/orm';
import { UNAVAILABLE_MESSAGE, UNAVAILABLE_RETRY_AFTER_SECONDS, describeUnavailable, isDatabaseUnavailable } from '../db/unavailable';
import { createClientErrorFormatter } from '../api/client-errors';
import { OperationGuard } from '../api/operation-guard';
import { openRateLimits } from '../api/rate-limits';
import { PersistedDocuments, manifestFiles } from '../api/persisted-documents';
import { startGraphQLWebSocket } from '../realtime/websocket';
import type { SubscriptionFanout } from '../realtime/subscription-fanout';
import { graphqlRoute } from '../api/http/graphql-route';
import { toolCallRoute } from '../api/http/tool-call-route';
import { mcpRoute } from '../mcp/mcp-route';
import { mediaTypeStatusPlugin, noStorePlugin, operationGuardPlugin, requestLoggingPlugin } from '../api/http/apollo-plugins';
import { compiledReadsPlugin } from '../api/http/compiled-reads';
import { MAX_VALIDATION_ERRORS } from '../api/limits';
import { LazyRequestContext } from '../api/request-context';
import { createLoaders } from './loaders';
import { METRICS_PATH, apiPortMetricsHandler } from '../telemetry/metrics-endpoint';
import { consoleRoute } from '../api/http/console-route';
import { ideAssetsRoute } from '../api/http/graphql-ide';
import { projectRoot } from '../support/paths';
import { isTracingOn } from '../telemetry/tracing';
import { graphqlTracingPlugin } from '../telemetry/trace-graphql';
import { HttpDrain } from '../api/http/drain';
import { authRoutes } from '../identity/auth-routes';
import { protectedResourceRoutes } from '../identity/protected-resource';
import { isRateLimited } from '../api/rate-limits';

export interface ToolgateServer {
  httpServer: http.Server;
  url: string;
  port: number;
  /**
   * Shutdown's first step: new requests answer 503 SERVICE_UNAVAILABLE (the listener stays
   * open), websockets close; resolves once the requests already running have ended.
   */
  drain(): Promise<void>;
  /** Shutdown's last step: requests still running are answered 503 (with their calls), then the listener closes; does not close the ORM. */
  stop(): Promise<void>;
}

export interface HttpServerOptions {
  /** The trusted documents; default: the manifest file of the configuration, read now. */
  persistedDocuments?: PersistedDocuments;
  /** The app's subscription fan-out (one per composed app). */
  fanout: SubscriptionFanout;
}

const CORRELATION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export async function startHttpServer(
  services: AppServices,
  schema: GraphQLSchema,
  listen: { host: string; port: number },
  options: HttpServerOptions,
): Promise<ToolgateServer> {
  const { config, logger, orm } = services;
  // Loaded and checked against the schema at boot: a missing or stale manifest stops the start.
  const manifest =
    options.persistedDocuments ??
    PersistedDocuments.load(manifestFiles({ firstParty: config.api.persistedDocumentsFile, partner: config.api.partnerDocumentsFile }), schema);
  const rateLimits = await openRateLimits(config.api.rateLimit, config.redisUrl, orm, logger);
  const guard = new OperationGuard(manifest, config.api, schema, rateLimits.limits);
  const format = createClientErrorFormatter(config);
  const includeStacktrace = config.nodeEnv === 'development' && config.fullStacks;

  const app = express();
  app.disable('x-powered-by');
  const httpServer = http.createServer(app);

  const contextFor = (caller: Caller | null, correlationId: string): RequestContext =>
    new LazyRequestContext(orm, logger, services, createLoaders, caller, correlationId);

  const sockets = startGraphQLWebSocket({
    httpServer,
    schema,
    keys: services.keys,
    identity: services.identity,
    guard,
    api: config.api,
    format,
    contextFor,
    fanout: options.fanout,
    metrics: services.metrics,
  });
  let socketsClosed: Promise<void> | null = null;
  const closeSockets = () => (socketsClosed ??= sockets.dispose());
  const drain = new HttpDrain(orm, logger);

  const apollo = new ApolloServer<RequestContext>({
    schema,
    formatError: format,
    includeStacktraceInErrorResponses: includeStacktrace,
    // Production profile (NODE_ENV=production): no introspection, no field suggestions.
    introspection: config.api.introspection,
    hideSchemaDetailsFromClientErrors: !config.api.fieldSuggestions,
    validationOptions: { hideSuggestions: !config.api.fieldSuggestions, maxErrors: MAX_VALIDATION_ERRORS },
    // GET (and simple-content-type POST) requests need a non-simple header, e.g. apollo-require-preflight.
    csrfPrevention: true,
    allowBatchedHttpRequests: false,
    // Shutdown is ours (cli start): Apollo's own handler would re-raise the signal mid-drain.
    stopOnTerminationSignals: false,
    plugins: [
      // No Apollo drain plugin: it closes the listener at once (clients would meet "connection refused"); HttpDrain drains instead.
      { serverWillStart: async () => ({ drainServer: closeSockets }) },
      // Browsers get the bundled GraphiQL (graphql-route.ts), never Apollo's CDN-loaded page.
      ApolloServerPluginLandingPageDisabled(),
      // No per-field cache policy (no field has a cache hint); every answer is no-store.
      ApolloServerPluginCacheControlDisabled(),
      noStorePlugin(),
      operationGuardPlugin(guard),
      // Hot read queries run compiled (graphql-jit) when they answer without an error.
      compiledReadsPlugin(),
      mediaTypeStatusPlugin(),
      requestLoggingPlugin(),
      ...(isTracingOn() ? [graphqlTracingPlugin()] : []),
    ],
  });
  await apollo.start();

  app.use(correlationIdMiddleware);
  app.use(drain.middleware());
  // On this port only with METRICS_TOKEN (else refused); METRICS_PORT serves it apart instead.
  if (config.metrics.port === undefined) app.all(METRICS_PATH, apiPortMetricsHandler(services.metrics, config.metrics, logger));
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    try {
      await orm.em.fork().getConnection().execute('select 1');
      const pending = await pendingMigrations(orm);
      if (pending.length > 0) {
        res.status(503).json({ status: 'migrations_pending', pending });
        return;
      }
      // Redis lost: the node still serves (rate limits in memory, events from the ledger), so it stays ready and says what is degraded.
      const bus = services.realtime.bus;
      const redisDown = (bus.kind === 'redis' && bus.connected?.() === false) || !rateLimits.connected();
      res.json(redisDown ? { status: 'ready', degraded: ['redis'] } : { status: 'ready' });
    } catch (error) {
      // Polled every few seconds by orchestrators: an outage is one short line, not a stack each time.
      if (isDatabaseUnavailable(error)) logger.warn({ cause: describeUnavailable(error) }, 'readiness check failed');
      else logger.warn({ err: error }, 'readiness check failed');
      res.setHeader('retry-after', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
      res.status(503).json({ status: 'database_unreachable' });
    }
  });
  app.use('/console', consoleRoute(projectRoot()));
  // People: the console's single sign-on, and the OAuth metadata of /mcp and /graphql (README, "Identity").
  app.use(
    '/auth',
    authRoutes({
      orm,
      identity: services.identity,
      logger: logger.child({ component: 'auth' }),
      admitAnonymous: (address) =>
        rateLimits.limits.chargeAnonymous(address).then(
          () => true,
          (error: unknown) => {
            if (isRateLimited(error)) return false;
            throw error;
          },
        ),
    }),
  );
  app.use('/.well-known/oauth-protected-resource', protectedResourceRoutes(services.identity, orm));
  if (config.api.ide) app.use(ideAssetsRoute());
  app.use(
    '/graphql',
    graphqlRoute({
      apollo,
      guard,
      keys: services.keys,
      identity: services.identity,
      logger,
      format,
      maxBodyBytes: config.api.maxBodyBytes,
      ide: config.api.ide,
      contextFor,
      toolCallRoute: config.api.toolCallRoute ? toolCallRoute({ schema, guard, format, includeStacktrace, contextFor }) : undefined,
    }),
  );
  // MCP over Streamable HTTP: a run's manifest as tools, every call through the same gateway.
  const mcp = mcpRoute(services, {
    maxBodyBytes: config.api.maxBodyBytes,
    allowedOrigins: config.api.mcpAllowedOrigins,
    limits: rateLimits.limits,
    caps: config.api.caps,
  });
  app.use('/mcp', mcp.router);
  app.use(internalErrorHandler(services));

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(listen.port, listen.host, () => resolve());
  });
  const address = httpServer.address();
  const port = typeof address === 'object' && address ? address.port : listen.port;
  services.identity.listeningOn(port);
  const shownHost = listen.host === '0.0.0.0' || listen.host === '::' ? 'localhost' : listen.host;
  logger.debug({ persistedDocuments: manifest.size }, 'trusted documents loaded');
  return {
    httpServer,
    port,
    url: `http://${shownHost}:${port}/graphql`,
    drain: async () => {
      drain.begin(httpServer);
      await Promise.all([closeSockets(), mcp.close()]);
      await drain.idle();
    },
    stop: async () => {
      if (!drain.isDraining) drain.begin(httpServer);
      await Promise.all([closeSockets(), mcp.close()]);
      await drain.cut();
      await apollo.stop();
      await rateLimits.close();
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
    },
  };
}

function correlationIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  const sent = req.header('x-correlation-id');
  const correlationId = sent && CORRELATION_ID.test(sent) ? sent : randomUUID();
  res.locals.correlationId = correlationId;
  res.setHeader('x-correlation-id', correlationId);
  next();
}

/**
 * Anything that escaped a route: logged, answered as a masked internal error; an
 * unreachable database is the retryable 503 SERVICE_UNAVAILABLE with Retry-After.
 */
function internalErrorHandler(services: AppServices) {
  return (error: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    if (isDatabaseUnavailable(error)) {
      services.logger.warn(
        { correlationId: res.locals.correlationId, during: 'request', cause: describeUnavailable(error) },
        'database unavailable: answered 503 SERVICE_UNAVAILABLE',
      );
      res.setHeader('retry-after', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
      res.status(503).json({ errors: [{ message: UNAVAILABLE_MESSAGE, extensions: { code: 'SERVICE_UNAVAILABLE' } }] });
      return;
    }
    services.logger.error({ err: error, correlationId: res.locals.correlationId }, 'unhandled HTTP error');
    res.status(500).json({ errors: [{ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] });
  };
}
