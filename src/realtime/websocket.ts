import type http from 'node:http';
import { randomUUID } from 'node:crypto';
import { WebSocketServer } from 'ws';
import type { SubscribePayload } from 'graphql-ws';
import {
  GraphQLError,
  NoSchemaIntrospectionCustomRule,
  getOperationAST,
  execute,
  getVariableValues,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionArgs,
  type GraphQLSchema,
} from 'graphql';
import type { RequestContext } from '../graphql/context';
import type { Caller } from '../auth/caller';
import { parseAuthorization } from '../auth/api-key.service';
import type { KeyAccess } from '../auth/key-access';
import type { ValidKey } from '../auth/api-key.service';
import type { Identity } from '../identity/identity';
import { checkCookieRequest } from '../identity/cookie-requests';
import { AppError } from '../errors/app-error';
import { toGraphQLError } from '../graphql/format-error';
import type { ApiConfig } from '../config';
import { formatForSocket, type ClientErrorFormatter } from '../api/client-errors';
import { UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from '../db/unavailable';
import type { OperationGuard } from '../api/operation-guard';
import { socketResult, type SubscriptionFanout } from './subscription-fanout';
import { serveGraphQLWs } from './graphql-ws-server';
import { MAX_VALIDATION_ERRORS } from '../api/limits';
import { isRateLimited } from '../api/rate-limits';
import { CLOSE_REASONS, OpenSockets } from './socket-access';
import { SubscriptionCaps } from './subscription-caps';
import type { ToolgateMetrics } from '../telemetry/metrics';
import { traceSocketOperation } from '../telemetry/trace-graphql';

export interface GraphQLWebSocketOptions {
  httpServer: http.Server;
  schema: GraphQLSchema;
  keys: KeyAccess;
  /** People: a console session (cookie on the upgrade, CSRF token in the connection parameters). */
  identity: Identity;
  guard: OperationGuard;
  api: ApiConfig;
  format: ClientErrorFormatter;
  contextFor(caller: Caller, correlationId: string): RequestContext;
  /** The app's subscription fan-out (its groups and shared results). */
  fanout: SubscriptionFanout;
  metrics?: ToolgateMetrics;
}

type Extra = { caller?: Caller };

/**
 * graphql-ws on `/graphql`, with the protections of the HTTP transport: the key is checked
 * at connection_init (4403 when missing, unknown, revoked, expired or of a suspended org)
 * and again on every operation (query, mutation or subscription: an invalid key gets the
 * operation refused and the socket closed with 4403). A revocation or suspension closes the
 * key's sockets with 4403 at once, and an expiry when it comes (OpenSockets). Each
 * subscribe message then goes through trusted documents, the lexical limits, parsing and
 * validation (production profile included), the limits and the rate limit before it runs.
 * An operation refused by those gets an `error` message with the stable code; the socket
 * stays open. A message larger than the
 * body limit closes the socket with 1009 (Message Too Big); graphql-ws has no batching,
 * and an array payload closes it with 4400. While the database is unreachable, the key
 * lookup closes the socket with 1013 (Try Again Later) and an operation fails with
 * `SERVICE_UNAVAILABLE` (the shared formatter).
 *
 * Subscriptions go through the app's fan-out (`SubscriptionFanout`) by graphql-ws's own
 * hooks: `subscribe` (a group's shared results), `onOperation` (a ledger subscription joins
 * its group) and `onNext` (a shared result is sent as the group's JSON); the transport is
 * ours by graphql-ws's design (src/realtime/graphql-ws-server.ts).
 */
export function startGraphQLWebSocket(options: GraphQLWebSocketOptions) {
  const { schema, keys, identity, guard, api, format } = options;
  const { caps } = api;
  const sockets = new OpenSockets(keys, { perKey: caps.socketsPerKey, perOrg: caps.socketsPerOrg });
  const subscriptions = new SubscriptionCaps({ perKey: caps.subscriptionsPerKey, perOrg: caps.subscriptionsPerOrg });
  const wsServer = new WebSocketServer({ server: options.httpServer, path: '/graphql', maxPayload: api.maxBodyBytes });
  const rules = api.introspection ? specifiedRules : [...specifiedRules, NoSchemaIntrospectionCustomRule];
  const hideSuggestions = !api.fieldSuggestions;
  const validDocuments = new Map<string, { document: DocumentNode; query: string }>();
  const { fanout } = options;
  const subscribe = fanout.subscriber((ctx) => options.contextFor(ctx.caller!, ctx.correlationId), format, options.metrics);
  /** A subscribe message's `extensions` (a `traceparent` there is continued), by its operation's context. */
  const extensionsOf = new WeakMap<object, Record<string, unknown>>();

  /** The operation's execution arguments, or the errors that refuse it. */
  const prepare = async (caller: Caller, payload: SubscribePayload): Promise<ExecutionArgs | readonly GraphQLError[]> => {
    try {
      const resolved = guard.resolve(payload as typeof payload & { documentId?: unknown }, caller);
      let query: string;
      if (resolved.kind === 'manifest') query = resolved.document.text;
      else if (resolved.kind === 'text') query = resolved.query;
      else if (resolved.kind === 'apq' && resolved.query !== undefined) query = resolved.query;
      else if (resolved.kind === 'apq') return [codedError('No persisted operation has this id', 'PERSISTED_QUERY_NOT_FOUND')];
      else return [codedError('The operation has no query and no documentId', 'BAD_REQUEST')];

      // A dashboard fleet sends the same few documents: parsed and validated once, and one
      // AST (with its token list) held for all their subscriptions instead of one each.
      const known = validDocuments.get(query);
      let document = known?.document;
      // graphql-ws holds the subscribe message for the subscription's life: one copy of the text for all.
      if (known && payload.query === query) (payload as { query: string }).query = known.query;
      if (!document) {
        try {
          document = parse(query);
        } catch (error) {
          return [codedError((error as Error).message, 'GRAPHQL_PARSE_FAILED', error)];
        }
        const invalid = validate(schema, document, rules, { hideSuggestions, maxErrors: MAX_VALIDATION_ERRORS });
        if (invalid.length > 0) return invalid.map((e) => codedError(e.message, 'GRAPHQL_VALIDATION_FAILED', e));
        validDocuments.set(query, { document, query });
        if (validDocuments.size > MAX_CACHED_DOCUMENTS) validDocuments.delete(validDocuments.keys().next().value as string);
      }
      const operation = getOperationAST(document, payload.operationName);
      if (!operation) return [codedError('Unable to identify the operation to run', 'OPERATION_RESOLUTION_FAILURE')];
      // Variables of the wrong type are the client's error, as on HTTP (Apollo: BAD_USER_INPUT).
      const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], payload.variables ?? {}, {
        maxErrors: MAX_VALIDATION_ERRORS,
      });
      if (coerced.errors) return coerced.errors.map((e) => codedError(e.message, 'BAD_USER_INPUT', e));

      await guard.admit(schema, document, operation, payload.variables, caller);
      return {
        schema,
        document,
        operationName: payload.operationName,
        variableValues: payload.variables,
        hideSuggestions,
      };
    } catch (error) {
      if (error instanceof GraphQLError) return [error];
      if (error instanceof AppError) return [toGraphQLError(error)];
      throw error;
    }
  };

  const server = serveGraphQLWs<Record<string, unknown> | undefined, Extra>(
    {
      schema,
      onConnect: async (ctx) => {
        // Without a valid key a connection is charged to its address; a spent budget closes it 4429.
        const refused = async () => {
          try {
            await guard.limits.chargeAnonymous(ctx.extra.request.socket.remoteAddress ?? 'unknown');
          } catch (error) {
            if (!isRateLimited(error)) throw error;
            ctx.extra.socket.close(TOO_MANY_REQUESTS, 'Too many requests without a valid API key');
          }
          return false; // graphql-ws closes with 4403 Forbidden (a no-op when closed above)
        };
        const secret = parseAuthorization(ctx.connectionParams?.authorization ?? ctx.connectionParams?.Authorization);
        const cookie = secret ? null : identity.sessionCookie(ctx.extra.request.headers.cookie);
        if (!secret && !cookie) return refused();
        try {
          let valid: ValidKey;
          if (secret) valid = await keys.authenticate(secret);
          else {
            // The console signed in with single sign-on: its cookie came with the upgrade; the CSRF
            // token in the connection parameters proves the page is the console's (cross-site websocket hijacking).
            const session = await identity.session(cookie!);
            const { headers } = ctx.extra.request;
            checkCookieRequest(
              session,
              { origin: headers.origin, host: headers.host, csrfToken: ctx.connectionParams?.csrfToken },
              identity.publicUrl,
            );
            valid = session;
          }
          // A cap on sockets held open (per key, per org, on this node): 4429 with the code in the reason.
          const over = sockets.refusal(valid.caller);
          if (over !== null) {
            ctx.extra.socket.close(TOO_MANY_REQUESTS, over);
            return false;
          }
          ctx.extra.caller = valid.caller;
          sockets.add(ctx.extra.socket, valid.caller, valid.expiresAt);
          // Needed no more, and not held for the socket's life: the upgrade request (headers
          // and all) and the connection parameters (the key's secret).
          (ctx.extra as { request?: unknown }).request = undefined;
          (ctx as { connectionParams?: unknown }).connectionParams = undefined;
          return true;
        } catch (error) {
          if (isDatabaseUnavailable(error)) {
            // Not the key's fault: 1013 Try Again Later, which graphql-ws clients retry (4403
            // would tell them the key is bad). graphql-ws's own 4403 close, on `false`, is then
            // a no-op: the socket is already closing.
            ctx.extra.socket.close(TRY_AGAIN_LATER, TRY_AGAIN_LATER_REASON);
            return false;
          }
          return refused();
        }
      },
      onSubscribe: async (ctx, id, payload) => {
        // The key as it is now: revoked, expired or suspended since the connection opened
        // means this operation does not run and the socket closes.
        let caller: Caller;
        try {
          caller = (await identity.recheck(ctx.extra.caller!)).caller;
        } catch (error) {
          if (isDatabaseUnavailable(error)) return [codedError(UNAVAILABLE_MESSAGE, 'SERVICE_UNAVAILABLE')];
          if (!(error instanceof AppError)) throw error;
          sockets.close(ctx.extra.socket, error.code === 'ORG_SUSPENDED' ? CLOSE_REASONS.suspended : CLOSE_REASONS.revoked);
          return [toGraphQLError(error)];
        }
        const prepared = await prepare(caller, payload);
        if (Array.isArray(prepared) && !prepared.some((e) => e.extensions.code === 'RATE_LIMITED')) {
          // Refused before it could run (parsing, validation, a limit): one point of the key's budget.
          try {
            await guard.chargeRefused(caller);
          } catch (error) {
            if (error instanceof GraphQLError) return [error];
            if (error instanceof AppError) return [toGraphQLError(error)];
            throw error;
          }
        }
        if ('document' in prepared && getOperationAST(prepared.document, prepared.operationName)?.operation === 'subscription') {
          // Admitted and charged: it holds one of the key's and org's subscription slots until it completes.
          const refused = subscriptions.take(ctx, id, caller);
          if (refused) return [refused];
        }
        return prepared;
      },
      onComplete: (ctx, id) => subscriptions.release(ctx, id),
      onClose: (ctx) => subscriptions.releaseAll(ctx),
      context: (ctx, _id, payload) => {
        const contextValue = options.contextFor(ctx.extra.caller!, flatUuid());
        if (payload.extensions) extensionsOf.set(contextValue, payload.extensions);
        return contextValue;
      },
      execute: (args) => traceSocketOperation(args, extensionsOf.get(args.contextValue as object), () => execute(args)),
      subscribe: (args) => traceSocketOperation(args, extensionsOf.get(args.contextValue as object), () => subscribe(args)),
      // A ledger subscription is delivered by its group, which writes to this socket under this id.
      onOperation: (ctx, id, _payload, _args, result) => fanout.deliver(result, { writer: ctx.extra.connection.writer, id }),
      // A result shared by a group is sent as the group's JSON text, not serialized again.
      onNext: (ctx, _id, _payload, _args, result) => {
        const json = fanout.sharedJson(result);
        return json === undefined ? socketResult(result, format) : ctx.extra.connection.sharedPayload(json);
      },
      onError: (_ctx, _id, _payload, errors) => errors.map((e) => formatForSocket(format, e)),
    },
    wsServer,
  );
  return {
    dispose: async () => {
      sockets.dispose();
      await server.dispose();
    },
  };
}

const MAX_CACHED_DOCUMENTS = 500;

/**
 * A random UUID as one flat string. Node builds `randomUUID()` by concatenating its hex
 * pairs, a rope of about 20 string objects (≈ 0.6 KB) that a subscription's context would
 * hold for its whole life.
 */
function flatUuid(): string {
  return Buffer.from(randomUUID(), 'latin1').toString('latin1');
}

/** graphql-ws's close code for "too many requests" (HTTP 429 in its 4xxx range). */
export const TOO_MANY_REQUESTS = 4429;

/** The standard WebSocket close code for "the server is temporarily unable; reconnect later". */
export const TRY_AGAIN_LATER = 1013;
const TRY_AGAIN_LATER_REASON = 'Try again later: the service is temporarily unavailable';

function codedError(message: string, code: string, original?: unknown): GraphQLError {
  const source = original instanceof GraphQLError ? original : undefined;
  return new GraphQLError(message, {
    nodes: source?.nodes,
    source: source?.source,
    positions: source?.positions,
    extensions: { ...source?.extensions, code },
  });
}
