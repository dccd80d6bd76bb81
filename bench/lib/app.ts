import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { GraphQLSchema } from 'graphql';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { loadConfig, type Config } from '../../src/config';
import { createLogger } from '../../src/support/logger';
import type { AppServices } from '../../src/app/services';
import { composeToolgate, type ComposedToolgate } from '../../src/app/compose';
import type { ToolgateServer } from '../../src/app/server';
import { initOrm } from '../../src/db/orm';
import { ENTITIES } from '../../src/app/entities';
import type { ToolExecutor } from '../../src/executor/executor.types';
import { MasterKeyring } from '../../src/credentials/keyring';
import { seedDemo } from '../../src/seed/demo-seed';
import { createKey, createOrg, createSpecialist, setFeatureFlag } from '../../src/orgs/org.service';
import { bindToolToSpecialist, setToolPermission } from '../../src/catalog/catalog.service';
import { startRun } from '../../src/runs/run-lifecycle.service';
import { TOOL_CALLING_FLAG } from '../../src/orgs/feature-flag.entity';
import type { Caller } from '../../src/auth/caller';
import type { BenchDatabase } from './database';

/**
 * Connections per pool, for the server's ORM and for every raw `pg` baseline alike
 * (the server's default, DB_POOL_MAX=10).
 */
export const POOL_MAX = 10;

/** What the instant sandbox vendor answers: a Shopify order as the handler normalizes it. */
export const VENDOR_RESULT = {
  orderNumber: '#12345',
  financialStatus: 'paid',
  fulfillmentStatus: 'fulfilled',
  trackingNumbers: ['TRACK-001'],
  trackingCompany: 'UPS',
  customerEmail: 'bob.norman@example.com',
  shippingAddress: { name: 'Bob Norman', address1: 'Chestnut Street 92', city: 'Louisville', zip: '40202', country: 'US' },
  lineItems: [
    { title: 'Aerodynamic Cotton Keyboard', quantity: 1, sku: 'IPOD2008GREEN' },
    { title: 'Durable Rubber Gloves', quantity: 2, sku: 'GLOVES-2' },
  ],
};

/** "An instant sandbox vendor" at the process edge: the executor answers at once. */
export const instantExecutor: ToolExecutor = {
  execute: async () => ({ ok: true, data: VENDOR_RESULT, vendorStatusCode: 200, retries: [] }),
};

/** A Toolgate server (services, schema, HTTP on an ephemeral port) on the bench database. */
export interface BenchServer {
  config: Config;
  orm: MikroORM;
  services: AppServices;
  schema: GraphQLSchema;
  server: ToolgateServer;
  url: string;
  /** The graphql-ws endpoint (same path, ws://). */
  wsUrl: string;
  em(): EntityManager;
  close(): Promise<void>;
}

export const BENCH_MASTER_KEY = randomBytes(32).toString('hex');

/**
 * Production settings (NODE_ENV=production, logs silent) with two exceptions: the
 * per-key rate limiter stays on but its bucket never empties (1e9 points, refilled at
 * 1e9/s) — the bench measures capacity, not the limiter's policy — and the vendor is
 * the instant executor. The realtime bus is the production default without REDIS_URL
 * (PostgreSQL NOTIFY after each commit that appended to the ledger), as main.ts wires it.
 */
export async function startBenchServer(
  db: BenchDatabase,
  options: {
    onQuery?: (sql: string) => void;
    /** The vendor executor (default: the instant one). */
    executor?: ToolExecutor;
    /** Base URL of an offline model the agent runtime streams from (runs driven by Toolgate). */
    offlineModelUrl?: string;
    /** Run the job worker (agent run steps), with src/jobs/worker.ts's settings. */
    worker?: boolean;
  } = {},
): Promise<BenchServer> {
  const config = loadConfig({
    NODE_ENV: 'production',
    DATABASE_URL: db.url,
    LOG_LEVEL: 'silent',
    MASTER_ENCRYPTION_KEY: BENCH_MASTER_KEY,
    HOST: '127.0.0.1',
    PORT: '0',
    DB_POOL_MAX: String(POOL_MAX),
    RATE_LIMIT_POINTS: '1000000000',
    RATE_LIMIT_POINTS_PER_SECOND: '1000000000',
    // The subscription scenario holds 10,000 sockets of one key: caps out of the way, as the budget.
    WS_MAX_SOCKETS_PER_KEY: '1000000',
    WS_MAX_SOCKETS_PER_ORG: '1000000',
    WS_MAX_SUBSCRIPTIONS_PER_KEY: '1000000',
    WS_MAX_SUBSCRIPTIONS_PER_ORG: '1000000',
    EVENT_BUS: 'postgres',
    // GRAPHQL_TOOL_CALL_ROUTE=false measures executeToolCall through Apollo Server (docs/benchmarks.md, "Gateway route").
    ...(process.env.GRAPHQL_TOOL_CALL_ROUTE ? { GRAPHQL_TOOL_CALL_ROUTE: process.env.GRAPHQL_TOOL_CALL_ROUTE } : {}),
  });
  const orm = await initOrm({ entities: ENTITIES, clientUrl: db.url, poolMax: config.dbPoolMax, onQuery: options.onQuery });
  const logger = createLogger(config);
  let composed: ComposedToolgate;
  try {
    composed = await composeToolgate(
      { config, logger, orm, keyring: new MasterKeyring(config.masterKeys), databaseUrl: db.url },
      {
        executor: options.executor ?? instantExecutor,
        sandboxes: false,
        ...(options.offlineModelUrl ? { offlineModelUrl: options.offlineModelUrl } : { offlineModel: false }),
        worker: options.worker ?? false,
        liveness: false,
      },
    );
  } catch (error) {
    await orm.close(true);
    throw error;
  }
  const { services, server } = composed;
  return {
    config,
    orm,
    services,
    schema: composed.schema,
    server,
    url: `http://127.0.0.1:${server.port}/graphql`,
    em: () => orm.em.fork(),
    wsUrl: `ws://127.0.0.1:${server.port}/graphql`,
    async close() {
      await composed.stop();
      await orm.close(true);
    },
  };
}

/** A raw `pg` pool for the baselines; `onQuery` sees every statement (the counting pass). */
export function rawPool(db: BenchDatabase, options: { max?: number; onQuery?: (sql: string) => void } = {}): pg.Pool {
  // Idle connections are kept as long as the ORM's pool keeps its own (30 s).
  const pool = new pg.Pool({ connectionString: db.url, max: options.max ?? POOL_MAX, idleTimeoutMillis: 30_000 });
  // pool.end() resolves before its clients' sockets close: the drop at cleanup may end one
  // (57P01) while it closes, and an idle client's error without a listener kills the process.
  pool.on('error', () => undefined);
  const onQuery = options.onQuery;
  if (onQuery) {
    pool.on('connect', (client) => {
      const original = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        const text = args[0];
        onQuery(typeof text === 'string' ? text : String((text as { text?: string })?.text));
        return original(...args);
      };
    });
  }
  return pool;
}

/** An org the gateway accepts calls from: flag on, two tools enabled and bound. */
export interface BenchOrg {
  orgId: string;
  specialistId: string;
  agent: Caller;
  agentKey: string;
  adminKey: string;
}

export const TOOLS = [
  { toolName: 'order_lookup', action: 'lookup', params: { orderId: '12345' } },
  { toolName: 'shopify_query', action: 'get_product', params: { productId: '632910392' } },
] as const;

/** The demo org of `seedDemo` (every catalog tool enabled and bound, the flag on). */
export async function demoOrg(server: BenchServer): Promise<BenchOrg> {
  const seed = await seedDemo(server.em(), server.services.keyring);
  return {
    orgId: seed.orgId,
    specialistId: seed.specialistId,
    agent: (await server.services.keys.authenticate(seed.keys.agent)).caller,
    agentKey: seed.keys.agent,
    adminKey: seed.keys.admin,
  };
}

/** Another tenant, set up through the same services an admin would use. */
export async function newOrg(server: BenchServer, name: string): Promise<BenchOrg> {
  const em = server.em();
  const { org, adminKey } = await createOrg(em, { name });
  const admin: Caller = { orgId: org.id, role: 'admin', keyId: adminKey.id };
  const agentKey = await createKey(em, org.id, 'agent', admin);
  const specialist = await createSpecialist(em, admin, { name: 'Support' });
  await setFeatureFlag(em, admin, TOOL_CALLING_FLAG, true);
  for (const tool of TOOLS) {
    await setToolPermission(em, admin, tool.toolName, tool.action, true);
    await bindToolToSpecialist(em, admin, specialist.id, tool.toolName, tool.action, true);
  }
  return {
    orgId: org.id,
    specialistId: specialist.id,
    agent: { orgId: org.id, role: 'agent', keyId: agentKey.id },
    agentKey: agentKey.secret,
    adminKey: adminKey.secret,
  };
}

/** An external run (status running) the agent drives through executeToolCall. */
export async function newRun(server: BenchServer, org: BenchOrg): Promise<string> {
  const run = await startRun(server.em(), org.agent, { specialistId: org.specialistId, driver: 'external' });
  return run.id;
}
