import { randomUUID } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { loadConfig, type Config } from '../../src/config';
import { createLogger } from '../../src/support/logger';
import { initOrm } from '../../src/db/orm';
import { ENTITIES } from '../../src/app/entities';
import type { AppServices } from '../../src/app/services';
import type { SubscriptionFanout } from '../../src/realtime/subscription-fanout';
import { composeToolgate, type ComposedToolgate } from '../../src/app/compose';
import type { ToolExecutor } from '../../src/executor/executor.types';
import type { Clock } from '../../src/support/clock';
import type { VendorRegistration } from '../../src/vendors';
import { MasterKeyring } from '../../src/credentials/keyring';
import type { SandboxServer } from '../../src/vendors/sandbox/sandbox-server';
import type { OfflineModelServer } from '../../src/llm/dev-double/offline-model.server';
import type { ScriptedModel } from './scripted-model';
import type { NodeLiveness } from '../../src/recovery/node-liveness';
import type { EventBus } from '../../src/realtime/event-bus';
import { InProcessBus } from '../../src/realtime/in-process-bus';
import { PostgresBus } from '../../src/realtime/postgres-bus';
import { RedisBus } from '../../src/realtime/redis-bus';
import { createTestDatabase, type TestDatabase } from './database';
import type { EgressResolver } from '../../src/egress/egress';

export const TEST_MASTER_KEY_HEX = '5f'.repeat(32);

export interface GraphQLResponse<T = Record<string, any>> {
  status: number;
  headers: Headers;
  body: { data?: T | null; errors?: { message: string; path?: string[]; extensions?: { code?: string } & Record<string, unknown> }[] };
}

/** Options of one `TestApp.gql` request; `V` is the document's variables. */
export interface GqlOptions<V = Record<string, unknown>> {
  key?: string | null;
  variables?: V;
  headers?: Record<string, string>;
}

/**
 * A real Toolgate server on its own database and an ephemeral port. `statements` records
 * every SQL statement the ORM sends, for tests that count queries.
 */
export interface TestApp {
  url: string;
  wsUrl: string;
  db: TestDatabase;
  orm: MikroORM;
  config: Config;
  /** The master keyring (MASTER_ENCRYPTION_KEY of the test config). */
  masterKey: MasterKeyring;
  services: AppServices;
  /** The app's subscription fan-out (its groups and counts). */
  fanout: SubscriptionFanout;
  /** The vendor sandboxes, when started with `sandboxes: true`. */
  sandbox: SandboxServer | null;
  /** The offline model, when started with `offlineModel: true`. */
  model: OfflineModelServer | null;
  /** This app as a node, when started with `liveness: true`. */
  liveness: NodeLiveness | null;
  /** Node ids told they were declared dead while alive (onFenced). */
  fenced: string[];
  /** Where `/metrics` is served (the API port unless METRICS_PORT is set). */
  metricsUrl: string;
  statements: string[];
  /** JSON log lines, when started with `captureLogs`. */
  logs: string[];
  em(): EntityManager;
  /**
   * One POST of a GraphQL document. A typed document (from gql/, or typed by a suite's
   * helpers) types its variables and its `data`; a string answers `T`.
   */
  gql<R, V>(document: TypedDocumentNode<R, V>, options?: GqlOptions<V>): Promise<GraphQLResponse<R>>;
  gql<T = Record<string, any>>(query: string, options?: GqlOptions): Promise<GraphQLResponse<T>>;
  close(): Promise<void>;
}

export async function startTestApp(
  env: Record<string, string> = {},
  options: {
    captureLogs?: boolean;
    executor?: ToolExecutor;
    /** Time for vendor token caches and the breaker (a ManualClock of test/support/clock.ts). */
    clock?: Clock;
    /** Time for API-key expiry and the `lastUsedAt` flush (a ManualClock). */
    accessClock?: Clock;
    /** Time for the model stream's idle timeout and turn retries (a ManualClock). */
    modelClock?: Clock;
    /** Time for the presence heartbeat and the expiry of other nodes' viewers (a ManualClock). */
    presenceClock?: Clock;
    sandboxes?: boolean;
    /** Serve the offline model and point the runtime at it. */
    offlineModel?: boolean;
    /** Point the runtime at this scripted model instead (started here, stopped on close). */
    scriptedModel?: ScriptedModel;
    /** Run the job worker (agent runtime steps, approval expiry). */
    worker?: boolean;
    /**
     * Register as a node (src/recovery/node-liveness.ts). The heartbeat loop is set to an
     * hour unless NODE_HEARTBEAT_MS is given: tests call `liveness.sweep()` themselves.
     */
    liveness?: boolean;
    /** The vendors (default VENDORS): a test may register one of its own. */
    vendors?: readonly VendorRegistration[];
    /** How tenant hosts resolve for the egress policy (a name may resolve to loopback, or change its answer). */
    resolver?: EgressResolver;
    /** Use this database instead of a new one (e.g. a "restarted" server); it is not dropped on close. */
    database?: TestDatabase;
    /** The realtime bus (default in-process; postgres or redis for several nodes). */
    eventBus?: 'in-process' | 'postgres' | 'redis';
    /**
     * Enforce trusted documents for partner keys (the production default). Off unless asked
     * for (or TRUSTED_DOCUMENT_ROLES is set) so that suites about roles can send a partner
     * key's queries as text; test/api/persisted.test.ts covers the enforcement.
     */
    trustedDocuments?: boolean;
  } = {},
): Promise<TestApp> {
  const db = options.database ?? (await createTestDatabase());
  const ownsDatabase = !options.database;
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    LOG_LEVEL: options.captureLogs ? 'trace' : 'silent',
    MASTER_ENCRYPTION_KEY: TEST_MASTER_KEY_HEX,
    HOST: '127.0.0.1',
    PORT: '0',
    // The suites' receivers and sandboxes listen on loopback: opened explicitly, as an operator would.
    EGRESS_ALLOW_CIDRS: '127.0.0.1/32',
    ...(options.trustedDocuments ? {} : { TRUSTED_DOCUMENT_ROLES: 'none' }),
    // CI runs the embedded pass with the lighter executeToolCall route off (.ci/run): both HTTP paths meet the gateway suites.
    ...(process.env.GRAPHQL_TOOL_CALL_ROUTE ? { GRAPHQL_TOOL_CALL_ROUTE: process.env.GRAPHQL_TOOL_CALL_ROUTE } : {}),
    ...(options.liveness ? { NODE_HEARTBEAT_MS: '3600000', NODE_DEAD_AFTER_MS: '7200000' } : {}),
    ...env,
  });
  const statements: string[] = [];
  const logs: string[] = [];
  const logSink = options.captureLogs ? { write: (line: string) => void logs.push(line) } : undefined;
  const orm = await initOrm({ entities: ENTITIES, clientUrl: db.url, poolMax: 5, onQuery: (sql) => statements.push(sql) });
  const logger = createLogger(config, logSink);
  const fenced: string[] = [];
  let composed: ComposedToolgate;
  try {
    const scriptedUrl = options.scriptedModel ? await options.scriptedModel.start() : undefined;
    const eventBus = options.eventBus ?? 'in-process';
    const bus: EventBus =
      eventBus === 'postgres'
        ? new PostgresBus(db.url, logger)
        : eventBus === 'redis'
          ? await RedisBus.connect(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', logger)
          : new InProcessBus();
    composed = await composeToolgate(
      { config, logger, orm, keyring: new MasterKeyring(config.masterKeys), databaseUrl: db.url },
      {
        executor: options.executor,
        clock: options.clock,
        accessClock: options.accessClock,
        modelClock: options.modelClock,
        presenceClock: options.presenceClock,
        vendors: options.vendors,
        resolver: options.resolver,
        bus,
        sandboxes: options.sandboxes ?? false,
        offlineModel: options.offlineModel ?? false,
        offlineModelUrl: scriptedUrl,
        worker: options.worker ?? false,
        liveness: options.liveness ?? false,
        nodeName: `test-${randomUUID()}`,
        onFenced: () => fenced.push(composed.services.nodeId),
      },
    );
  } catch (error) {
    await options.scriptedModel?.stop();
    await orm.close(true);
    if (ownsDatabase) await db.drop();
    throw error;
  }
  const { services, server, liveness } = composed;
  const url = `http://127.0.0.1:${server.port}/graphql`;
  return {
    url,
    wsUrl: `ws://127.0.0.1:${server.port}/graphql`,
    db,
    orm,
    config,
    masterKey: services.keyring,
    services,
    fanout: composed.fanout,
    sandbox: composed.sandboxes,
    model: composed.offlineModel,
    liveness,
    fenced,
    metricsUrl: composed.metricsUrl,
    statements,
    logs,
    em: () => orm.em.fork(),
    async gql(document: string | TypedDocumentNode<unknown, unknown>, options: GqlOptions<unknown> = {}) {
      const query = typeof document === 'string' ? document : print(document);
      const headers: Record<string, string> = { 'content-type': 'application/json', ...(options.headers ?? {}) };
      if (options.key) headers.authorization = `Bearer ${options.key}`;
      const response = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query, variables: options.variables ?? {} }),
      });
      return { status: response.status, headers: response.headers, body: (await response.json()) as never } as GraphQLResponse<never>;
    },
    async close() {
      await composed.stop();
      await options.scriptedModel?.stop();
      await orm.close(true);
      if (ownsDatabase) await db.drop();
    },
  };
}

/** The first error's code, or undefined. */
export function errorCode(response: GraphQLResponse<unknown>): string | undefined {
  return response.body.errors?.[0]?.extensions?.code;
}
