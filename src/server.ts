import http from 'node:http';
import { randomUUID } from 'node:crypto';
import express, { type Request, type Response, type NextFunction } from 'express';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { WebSocketServer } from 'ws';
import { useServer } from 'graphql-ws/use/ws';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import type { AppServices } from './app-services';
import type { RequestContext } from './graphql/context';
import { createLoaders } from './graphql/loaders';
import { authenticate, parseAuthorization } from './auth/api-key.service';
import type { Caller } from './auth/caller';
import { AppError } from './errors/app-error';
import { createErrorFormatter, isExpectedError } from './errors/format-error';
import { pendingMigrations } from './db/orm';

export interface ToolgateServer {
  httpServer: http.Server;
  url: string;
  port: number;
  /** Stops accepting, drains HTTP requests and websockets; does not close the ORM. */
  stop(): Promise<void>;
}

const CORRELATION_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const MAX_BODY = '1mb';

export async function startHttpServer(
  services: AppServices,
  schema: GraphQLSchema,
  listen: { host: string; port: number },
): Promise<ToolgateServer> {
  const { config, logger, orm } = services;
  const app = express();
  app.disable('x-powered-by');
  const httpServer = http.createServer(app);

  const contextFor = (caller: Caller | null, correlationId: string): RequestContext => {
    const em = orm.em.fork();
    return {
      em,
      caller,
      loaders: createLoaders(em, caller?.orgId ?? null),
      correlationId,
      logger: logger.child({ correlationId }),
      services,
    };
  };

  const wsServer = new WebSocketServer({ server: httpServer, path: '/graphql' });
  const wsCleanup = useServer<Record<string, unknown> | undefined, { caller?: Caller }>(
    {
      schema,
      onConnect: async (ctx) => {
        const secret = parseAuthorization(ctx.connectionParams?.authorization);
        if (!secret) return false;
        try {
          ctx.extra.caller = await authenticate(orm.em.fork(), secret);
          return true;
        } catch {
          return false; // graphql-ws closes with 4403 Forbidden
        }
      },
      context: (ctx) => contextFor(ctx.extra.caller ?? null, randomUUID()),
    },
    wsServer,
  );

  const apollo = new ApolloServer<RequestContext>({
    schema,
    formatError: createErrorFormatter({ includeStack: config.nodeEnv === 'development' }),
    includeStacktraceInErrorResponses: config.nodeEnv === 'development',
    introspection: config.nodeEnv !== 'production',
    // Shutdown is ours (cli start): Apollo's own handler would re-raise the signal mid-drain.
    stopOnTerminationSignals: false,
    plugins: [
      ApolloServerPluginDrainHttpServer({ httpServer, stopGracePeriodMillis: Math.max(500, config.shutdownTimeoutMs - 2000) }),
      { serverWillStart: async () => ({ drainServer: async () => wsCleanup.dispose() }) },
      requestLoggingPlugin(),
    ],
  });
  await apollo.start();

  app.use(correlationIdMiddleware);
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
      res.json({ status: 'ready' });
    } catch (error) {
      logger.warn({ err: error }, 'readiness check failed');
      res.status(503).json({ status: 'database_unreachable' });
    }
  });
  app.use(
    '/graphql',
    express.json({ limit: MAX_BODY }),
    expressMiddleware(apollo, {
      context: async ({ req }) => {
        const correlationId = String(req.res?.locals.correlationId ?? randomUUID());
        const secret = parseAuthorization(req.headers.authorization);
        if (!secret) throw unauthenticated('An API key is required (Authorization: Bearer <key>)');
        try {
          return contextFor(await authenticate(orm.em.fork(), secret), correlationId);
        } catch (error) {
          if (error instanceof AppError && error.code === 'UNAUTHENTICATED') throw unauthenticated(error.message);
          throw error;
        }
      },
    }),
  );
  app.use(jsonErrorHandler(services));

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(listen.port, listen.host, () => resolve());
  });
  const address = httpServer.address();
  const port = typeof address === 'object' && address ? address.port : listen.port;
  const shownHost = listen.host === '0.0.0.0' || listen.host === '::' ? 'localhost' : listen.host;
  return {
    httpServer,
    port,
    url: `http://${shownHost}:${port}/graphql`,
    stop: () => apollo.stop(),
  };
}

/** A whole-request auth failure: HTTP 401 with the stable code. */
function unauthenticated(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } } });
}

function correlationIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  const sent = req.header('x-correlation-id');
  const correlationId = sent && CORRELATION_ID.test(sent) ? sent : randomUUID();
  res.locals.correlationId = correlationId;
  res.setHeader('x-correlation-id', correlationId);
  next();
}

/** Body-parser failures (malformed JSON, too large) answered in GraphQL's error shape. */
function jsonErrorHandler(services: AppServices) {
  return (error: unknown, _req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) return next(error);
    const status = (error as { status?: number }).status ?? 500;
    const type = (error as { type?: string }).type;
    if (status === 413 || type === 'entity.too.large') {
      res.status(413).json({ errors: [{ message: `Request body is larger than ${MAX_BODY}`, extensions: { code: 'BAD_REQUEST' } }] });
      return;
    }
    if (status === 400) {
      res.status(400).json({ errors: [{ message: 'Request body is not valid JSON', extensions: { code: 'BAD_REQUEST' } }] });
      return;
    }
    services.logger.error({ err: error, correlationId: res.locals.correlationId }, 'unhandled HTTP error');
    res.status(500).json({ errors: [{ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] });
  };
}

/**
 * One debug line per operation (name, caller, duration, error codes; never variables or
 * query text, which may carry secrets), and unexpected errors at error level, all under
 * the request's correlation id. Clients see unexpected errors masked.
 */
function requestLoggingPlugin(): ApolloServerPlugin<RequestContext> {
  return {
    async requestDidStart() {
      const started = performance.now();
      return {
        async didEncounterErrors({ errors, contextValue, operationName }) {
          for (const error of errors) {
            if (isExpectedError(error)) continue;
            contextValue?.logger?.error({ err: error.originalError ?? error, path: error.path, operationName }, 'request failed');
          }
        },
        async willSendResponse({ contextValue, operationName, errors }) {
          contextValue?.logger?.debug(
            {
              operationName: operationName ?? null,
              orgId: contextValue.caller?.orgId,
              role: contextValue.caller?.role,
              durationMs: Math.round((performance.now() - started) * 10) / 10,
              errorCodes: errors?.map((e) => e.extensions?.code ?? 'INTERNAL_SERVER_ERROR'),
            },
            'graphql operation',
          );
        },
      };
    },
  };
}
