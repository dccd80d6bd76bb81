import path from 'node:path';
import type { KeyObject } from 'node:crypto';
import type { MasterKey } from './credentials/keyring';
import { boolean, ConfigError, type Env, httpUrl, integer, nonEmpty, oneOf, parseMasterKeys, signingKey } from './config-env';
import { ROLES, type Role } from './auth/roles';
import { VENDOR_URL_VARIABLES } from './vendors';
import { parseCidr } from './egress/address-policy';

export { ConfigError, parseMasterKey } from './config-env';

/**
 * Configuration is read from the environment once, validated, and passed around as
 * this typed object. Nothing else in the code reads `process.env`.
 */
export interface Config {
  nodeEnv: 'development' | 'production' | 'test';
  host: string;
  port: number;
  /** Absent means: start the embedded PostgreSQL under `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  /**
   * Versioned master keys (MASTER_ENCRYPTION_KEYS=v2:…,v1:…, or MASTER_ENCRYPTION_KEY as
   * version 1); empty only outside production, where a development key is generated.
   */
  masterKeys: MasterKey[];
  /** TOOLGATE_LEDGER_SIGNING_KEY: the Ed25519 key `toolgate ledger checkpoint` signs with. */
  ledgerSigningKey: KeyObject | undefined;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** `pretty` (pino-pretty) or `json`; unset: pretty on an interactive terminal in development. */
  logFormat: 'json' | 'pretty' | undefined;
  /** Full stack traces in logs and (in development) API errors; otherwise outside production a short location. */
  fullStacks: boolean;
  shutdownTimeoutMs: number;
  dbPoolMax: number;
  /** Seed the demo org on the first start (default: only on the embedded database). */
  seedOnStart: boolean;
  /** Apply pending migrations on start (under an advisory lock); off: start refuses a database with pending ones. */
  migrateOnStart: boolean;
  /** Global kill switch: when on, every tool call is blocked with FEATURE_DISABLED. */
  toolCallingKillSwitch: boolean;
  /** How long an approval request waits for a human before it expires. */
  approvalTtlMs: number;
  /** Serve the vendor sandboxes in-process and send vendor calls there (default: embedded). */
  vendorSandboxes: boolean;
  /** Endpoint overrides by environment name, e.g. SHOPIFY_ADMIN_URL (see the vendor handlers). */
  vendorUrls: Record<string, string>;
  /**
   * Vendor sandboxes served by another process (`toolgate sandboxes`): each vendor is sent
   * to `<url>/<vendor>`, so vendor state outlives this process. Wins over the in-process ones.
   */
  vendorSandboxUrl: string | undefined;
  /** Node liveness and recovery (docs/reliability.md). */
  node: {
    /** Stable name of this node; a start under the same name recovers its previous incarnation at once. */
    name: string | undefined;
    heartbeatMs: number;
    /** A node whose heartbeat is older than this is dead: its jobs and in-flight calls are taken over. */
    deadAfterMs: number;
    /** Concurrent job workers (agent-run steps) on this node. */
    workerConcurrency: number;
    /** Run steps a node starts itself, on the request that committed them, at once (0: all through the job queue). */
    localStepConcurrency: number;
    /** Tool calls of one assistant message run at once (the message's tool_use blocks). */
    runToolConcurrency: number;
    /** Tool calls the agent runtime of a node runs at once, across its runs (external runs' calls come through the API). */
    nodeToolConcurrency: number;
  };
  /**
   * Crash points for the chaos harness (`TOOLGATE_FAILPOINTS=after_vendor_response:2,…`): at
   * the named point's n-th hit the process kills itself with SIGKILL. Never set in production.
   */
  failpoints: Record<string, number>;
  /** Cross-node events: unset picks redis when REDIS_URL is set, else postgres. */
  eventBus: 'in-process' | 'postgres' | 'redis' | undefined;
  redisUrl: string | undefined;
  /** How often a node tells the others its approval viewers are still there (PRESENCE_HEARTBEAT_MS); silent for two, they are dropped. */
  presenceHeartbeatMs: number;
  subscriptions: {
    /** Events one live subscription may have queued before it re-reads from the ledger instead. */
    bufferEvents: number;
    /** How far (in the org's ledger sequence) a subscriber may lag before it is ended with SUBSCRIBER_TOO_SLOW. */
    maxLagEvents: number;
  };
  model: {
    /** Unset (with no base URL): the offline model serves in-process — in production only with `offlineAllowed`. */
    apiKey: string | undefined;
    /** TOOLGATE_OFFLINE_MODEL: may `start` serve the offline development model when no model is configured (default: not in production). */
    offlineAllowed: boolean;
    baseUrl: string | undefined;
    name: string;
    maxRetries: number;
    maxTokens: number;
    /** Toolgate's own retries of a turn whose stream failed (an `error` event, a stall) before any tool_use began. */
    streamRetries: number;
    /** No stream event for this long once the response began: the stream is aborted as stalled and retried. */
    streamIdleTimeoutMs: number;
    /** Tool rounds one turn may take before the run fails with TOOL_ROUND_LIMIT. */
    maxToolRounds: number;
    /** Tool rounds a whole run may take, whatever messages continue it (TOOL_ROUND_LIMIT too). */
    maxRunToolRounds: number;
    /** US dollars per million tokens: token counts times these are micro-dollars. */
    inputPricePerMTok: number;
    outputPricePerMTok: number;
    /** Prompt-cache writes and reads, in percent of the input price (Anthropic: 125 and 10). */
    cacheWritePricePercent: number;
    cacheReadPricePercent: number;
  };
  /** The GraphQL API's protections (README, "API limits and persisted operations"). */
  api: ApiConfig;
  /** Prometheus `/metrics` (README, "Metrics"). */
  metrics: MetricsConfig;
  /** OpenTelemetry traces (README, "Traces"): on when an OTLP endpoint or a trace exporter is named. */
  tracing: TracingConfig;
  vendor: {
    /** Per attempt; a tool's own timeoutMs wins. */
    timeoutMs: number;
    maxRetries: number;
    retryBaseMs: number;
    /** A Retry-After longer than this is not waited for: the call fails rate-limited. */
    retryMaxDelayMs: number;
    breakerThreshold: number;
    breakerHalfOpenMs: number;
  };
  /**
   * The egress policy for tenant URLs (webhook endpoints, upstream MCP servers; src/egress/):
   * CIDRs opened besides public addresses (EGRESS_ALLOW_CIDRS). Link-local and metadata
   * addresses open only for an entry naming the one address.
   */
  egress: { allowCidrs: string[] };
  /** Caps on what an upstream MCP server may hand Toolgate (README, "Untrusted upstream tools"). */
  upstream: UpstreamLimits;
  /** Approval webhooks (src/webhooks/): each delivery's attempts and their schedule. */
  webhooks: {
    /** Per attempt: no answer by then is a failed attempt (`timeout`). */
    timeoutMs: number;
    /** Attempts of one delivery before it is given up (`failed`). */
    maxAttempts: number;
    /** The wait before the first retry; each further one five times longer, with jitter. */
    retryBaseMs: number;
    retryMaxDelayMs: number;
    /** Attempts one node sends at once, in a worker pool of their own (WEBHOOK_CONCURRENCY); one per org at a time. */
    concurrency: number;
  };
}

export interface UpstreamLimits {
  /** Tools one server may list; more refuses the import (MCP_SERVER_TOO_MANY_TOOLS). */
  maxTools: number;
  /** Pages of `tools/list` followed; more refuses the import (MCP_SERVER_TOO_MANY_PAGES). */
  maxListPages: number;
  /** One tool's input schema, as JSON bytes (MCP_TOOL_SCHEMA_TOO_LARGE). */
  maxSchemaBytes: number;
  /** One tool's input schema's nesting of objects and arrays (MCP_TOOL_SCHEMA_TOO_DEEP). */
  maxSchemaDepth: number;
  /** One tool call's result, as JSON bytes; more fails the call UPSTREAM_RESULT_TOO_LARGE. */
  maxResultBytes: number;
}

export interface TracingConfig {
  /**
   * On when OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_TRACES_EXPORTER
   * is set (off for OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true). Off: no SDK, a no-op tracer.
   */
  enabled: boolean;
  /** OTEL_SERVICE_NAME, default `toolgate`. */
  serviceName: string;
  /** Where spans go, for the start log: the traces endpoint, else the OTLP base, else the exporter's default. */
  endpoint: string | undefined;
}

export interface ApiConfig {
  /** Production profile: both off when NODE_ENV=production. */
  introspection: boolean;
  fieldSuggestions: boolean;
  /** GRAPHQL_IDE: a browser's GET of /graphql serves the bundled GraphiQL (default: not in production). */
  ide: boolean;
  /** Largest JSON body (HTTP) or websocket message accepted. */
  maxBodyBytes: number;
  /** Lexical tokens of the query text, counted before it is parsed. */
  maxTokens: number;
  maxDepth: number;
  /** Aliases per operation, `__typename` aliases included. */
  maxAliases: number;
  maxDirectives: number;
  /** Estimated cost of one operation (list sizes from `first`; see src/api/limits.ts). */
  maxCost: number;
  /** Roles that may only run manifest operations by id; the rest may also send query text. */
  trustedDocumentRoles: Role[];
  /** The first-party persisted-documents manifest; unset → gql/persisted-documents.json of the project. */
  persistedDocumentsFile: string | undefined;
  /** The partner manifest; unset → gql/partner/persisted-documents.json of the project. */
  partnerDocumentsFile: string | undefined;
  /** Shared request budgets (src/api/rate-limits.ts): per API key by cost, per address without one. */
  rateLimit: { enabled: boolean; points: number; pointsPerSecond: number; anonymousPerMinute: number };
  /** Browser origins /mcp accepts besides loopback ones (MCP_ALLOWED_ORIGINS): DNS-rebinding protection. */
  mcpAllowedOrigins: string[];
  /** Fair-use caps on what a key or org holds open (README, Security model: Fair use and caps). */
  caps: FairUseCaps;
}

/**
 * How much one key (or org) may hold open at once. Sessions, sockets and subscriptions are
 * counted per node (they live in a node's memory); open MCP runs in the database, for the cluster.
 */
export interface FairUseCaps {
  /** 2025-era MCP sessions per key (MCP_MAX_SESSIONS_PER_KEY). */
  mcpSessionsPerKey: number;
  /** External runs a key opened through /mcp that are still open (MCP_MAX_OPEN_RUNS_PER_KEY). */
  mcpOpenRunsPerKey: number;
  /** graphql-ws sockets per key and per org (WS_MAX_SOCKETS_PER_KEY, WS_MAX_SOCKETS_PER_ORG). */
  socketsPerKey: number;
  socketsPerOrg: number;
  /** Running graphql-ws subscriptions per key and per org (WS_MAX_SUBSCRIPTIONS_PER_KEY, _PER_ORG). */
  subscriptionsPerKey: number;
  subscriptionsPerOrg: number;
}

/**
 * Where `/metrics` is served: with `port` on a listener of its own (`host`, loopback by
 * default), else on the API port; there only to `Authorization: Bearer <token>`, and to
 * nobody while no token is set.
 */
export interface MetricsConfig {
  port: number | undefined;
  host: string;
  token: string | undefined;
}

/**
 * `vendorUrlVariables`: the endpoint overrides accepted (each registered handler's
 * `VendorEndpoint.env`, src/vendors/index.ts); a test may pass those of its own vendors.
 */
export function loadConfig(env: Env = process.env, vendorUrlVariables: readonly string[] = VENDOR_URL_VARIABLES): Config {
  const nodeEnv = oneOf(env, 'NODE_ENV', ['development', 'production', 'test'] as const, 'development');
  const databaseUrl = nonEmpty(env.DATABASE_URL);
  const masterKeys = parseMasterKeys(env);
  if (nodeEnv === 'production' && masterKeys.length === 0) {
    throw new ConfigError(
      'MASTER_ENCRYPTION_KEY (or MASTER_ENCRYPTION_KEYS) is required when NODE_ENV=production ' +
        '(32 bytes as 64 hex characters or base64). Generate one with: openssl rand -hex 32',
    );
  }
  return {
    nodeEnv,
    host: nonEmpty(env.HOST) ?? '0.0.0.0',
    port: integer(env, 'PORT', 4000, 0, 65535),
    databaseUrl,
    dataDir: path.resolve(nonEmpty(env.TOOLGATE_DATA_DIR) ?? '.toolgate'),
    masterKeys,
    ledgerSigningKey: signingKey(env, 'TOOLGATE_LEDGER_SIGNING_KEY'),
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    logFormat: nonEmpty(env.LOG_FORMAT) ? oneOf(env, 'LOG_FORMAT', ['json', 'pretty'] as const, 'json') : undefined,
    fullStacks: boolean(env, 'TOOLGATE_FULL_STACKS', false),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 100, 600_000),
    dbPoolMax: integer(env, 'DB_POOL_MAX', 10, 1, 1000),
    // The demo org (and its printed keys) and the vendor sandboxes are for a first try, not a production start.
    seedOnStart: boolean(env, 'TOOLGATE_SEED_ON_START', databaseUrl === undefined && nodeEnv !== 'production'),
    migrateOnStart: boolean(env, 'TOOLGATE_MIGRATE_ON_START', true),
    toolCallingKillSwitch: boolean(env, 'TOOL_CALLING_KILL_SWITCH', false),
    approvalTtlMs: integer(env, 'APPROVAL_TTL_SECONDS', 86_400, 1, 30 * 86_400) * 1000,
    vendorSandboxes: boolean(env, 'TOOLGATE_VENDOR_SANDBOXES', databaseUrl === undefined && nodeEnv !== 'production'),
    vendorUrls: vendorUrls(env, vendorUrlVariables),
    vendorSandboxUrl: httpUrl(env, 'VENDOR_SANDBOX_URL'),
    node: nodeConfig(env),
    failpoints: failpoints(env),
    eventBus: nonEmpty(env.EVENT_BUS) ? oneOf(env, 'EVENT_BUS', ['in-process', 'postgres', 'redis'] as const, 'postgres') : undefined,
    redisUrl: nonEmpty(env.REDIS_URL),
    presenceHeartbeatMs: integer(env, 'PRESENCE_HEARTBEAT_MS', 5000, 50, 600_000),
    subscriptions: {
      bufferEvents: integer(env, 'SUBSCRIPTION_BUFFER_EVENTS', 1000, 1, 1_000_000),
      maxLagEvents: integer(env, 'SUBSCRIPTION_MAX_LAG_EVENTS', 10_000, 1, 100_000_000),
    },
    model: {
      apiKey: nonEmpty(env.ANTHROPIC_API_KEY),
      offlineAllowed: boolean(env, 'TOOLGATE_OFFLINE_MODEL', nodeEnv !== 'production'),
      baseUrl: nonEmpty(env.ANTHROPIC_BASE_URL),
      name: nonEmpty(env.ANTHROPIC_MODEL) ?? 'claude-sonnet-5-5',
      maxRetries: integer(env, 'ANTHROPIC_MAX_RETRIES', 2, 0, 10),
      maxTokens: integer(env, 'ANTHROPIC_MAX_TOKENS', 1024, 1, 64_000),
      streamRetries: integer(env, 'MODEL_STREAM_RETRIES', 2, 0, 10),
      streamIdleTimeoutMs: integer(env, 'MODEL_STREAM_IDLE_TIMEOUT_MS', 60_000, 1000, 600_000),
      maxToolRounds: integer(env, 'RUN_MAX_TOOL_ROUNDS', 8, 1, 100),
      maxRunToolRounds: integer(env, 'RUN_MAX_TOOL_ROUNDS_TOTAL', 40, 1, 10_000),
      inputPricePerMTok: integer(env, 'MODEL_INPUT_PRICE_PER_MTOK', 3, 0, 1000),
      outputPricePerMTok: integer(env, 'MODEL_OUTPUT_PRICE_PER_MTOK', 15, 0, 1000),
      cacheWritePricePercent: integer(env, 'MODEL_CACHE_WRITE_PRICE_PERCENT', 125, 0, 1000),
      cacheReadPricePercent: integer(env, 'MODEL_CACHE_READ_PRICE_PERCENT', 10, 0, 1000),
    },
    api: apiConfig(env, nodeEnv),
    metrics: metricsConfig(env),
    tracing: tracingConfig(env),
    vendor: {
      timeoutMs: integer(env, 'VENDOR_TIMEOUT_MS', 10_000, 1, 600_000),
      maxRetries: integer(env, 'VENDOR_MAX_RETRIES', 3, 0, 10),
      retryBaseMs: integer(env, 'VENDOR_RETRY_BASE_MS', 500, 0, 60_000),
      retryMaxDelayMs: integer(env, 'VENDOR_RETRY_MAX_DELAY_MS', 30_000, 0, 600_000),
      breakerThreshold: integer(env, 'VENDOR_BREAKER_THRESHOLD', 5, 1, 1000),
      breakerHalfOpenMs: integer(env, 'VENDOR_BREAKER_HALF_OPEN_MS', 30_000, 1, 3_600_000),
    },
    // The embedded demo's loopback sandboxes (`toolgate sandboxes`, a local receiver) stay reachable; nothing else is opened by default.
    egress: { allowCidrs: cidrList(env, 'EGRESS_ALLOW_CIDRS', databaseUrl === undefined && nodeEnv !== 'production' ? DEMO_EGRESS : []) },
    upstream: {
      maxTools: integer(env, 'MCP_UPSTREAM_MAX_TOOLS', 100, 1, 1000),
      maxListPages: integer(env, 'MCP_UPSTREAM_MAX_LIST_PAGES', 10, 1, 100),
      maxSchemaBytes: integer(env, 'MCP_UPSTREAM_MAX_SCHEMA_BYTES', 32_768, 256, 1_048_576),
      maxSchemaDepth: integer(env, 'MCP_UPSTREAM_MAX_SCHEMA_DEPTH', 12, 2, 64),
      maxResultBytes: integer(env, 'MCP_UPSTREAM_MAX_RESULT_BYTES', 262_144, 1024, 16_777_216),
    },
    webhooks: {
      timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 1, 120_000),
      maxAttempts: integer(env, 'WEBHOOK_MAX_ATTEMPTS', 8, 1, 50),
      retryBaseMs: integer(env, 'WEBHOOK_RETRY_BASE_MS', 5_000, 0, 3_600_000),
      retryMaxDelayMs: integer(env, 'WEBHOOK_RETRY_MAX_DELAY_MS', 36_000_000, 0, 7 * 86_400_000),
      concurrency: integer(env, 'WEBHOOK_CONCURRENCY', 4, 1, 256),
    },
  };
}

/**
 * The OpenTelemetry decision alone: the CLI reads it before anything else is loaded, so the
 * SDK's instrumentations see `pg` and `http` as they are first required. The SDK reads its
 * other OTEL_* variables (protocol, headers, sampler, batch sizes) itself.
 */
export function tracingConfig(env: Env = process.env): TracingConfig {
  const exporters = (nonEmpty(env.OTEL_TRACES_EXPORTER) ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  const traces = httpUrl(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = httpUrl(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const disabled = boolean(env, 'OTEL_SDK_DISABLED', false) || (exporters.length > 0 && exporters.every((e) => e === 'none'));
  return {
    enabled: !disabled && (exporters.length > 0 || traces !== undefined || base !== undefined),
    serviceName: nonEmpty(env.OTEL_SERVICE_NAME) ?? 'toolgate',
    endpoint: traces ?? (base ? `${base}/v1/traces` : undefined),
  };
}

function apiConfig(env: Env, nodeEnv: Config['nodeEnv']): ApiConfig {
  const production = nodeEnv === 'production';
  const api: ApiConfig = {
    introspection: boolean(env, 'GRAPHQL_INTROSPECTION', !production),
    fieldSuggestions: !production,
    ide: boolean(env, 'GRAPHQL_IDE', !production),
    maxBodyBytes: integer(env, 'GRAPHQL_MAX_BODY_BYTES', 1_048_576, 1024, 64 * 1_048_576),
    maxTokens: integer(env, 'GRAPHQL_MAX_TOKENS', 1000, 10, 1_000_000),
    maxDepth: integer(env, 'GRAPHQL_MAX_DEPTH', 8, 1, 1000),
    maxAliases: integer(env, 'GRAPHQL_MAX_ALIASES', 15, 0, 10_000),
    maxDirectives: integer(env, 'GRAPHQL_MAX_DIRECTIVES', 10, 0, 10_000),
    maxCost: integer(env, 'GRAPHQL_MAX_COST', 5000, 1, 100_000_000),
    trustedDocumentRoles: roleList(env, 'TRUSTED_DOCUMENT_ROLES', ['partner']),
    persistedDocumentsFile: nonEmpty(env.PERSISTED_DOCUMENTS_FILE) ? path.resolve(nonEmpty(env.PERSISTED_DOCUMENTS_FILE)!) : undefined,
    partnerDocumentsFile: nonEmpty(env.PARTNER_DOCUMENTS_FILE) ? path.resolve(nonEmpty(env.PARTNER_DOCUMENTS_FILE)!) : undefined,
    rateLimit: {
      enabled: boolean(env, 'RATE_LIMIT_ENABLED', true),
      points: integer(env, 'RATE_LIMIT_POINTS', 60_000, 1, 1_000_000_000),
      pointsPerSecond: integer(env, 'RATE_LIMIT_POINTS_PER_SECOND', 1000, 1, 1_000_000_000),
      anonymousPerMinute: integer(env, 'RATE_LIMIT_ANONYMOUS_PER_MINUTE', 120, 1, 1_000_000_000),
    },
    mcpAllowedOrigins: originList(env, 'MCP_ALLOWED_ORIGINS'),
    caps: {
      mcpSessionsPerKey: integer(env, 'MCP_MAX_SESSIONS_PER_KEY', 20, 1, 1_000_000),
      mcpOpenRunsPerKey: integer(env, 'MCP_MAX_OPEN_RUNS_PER_KEY', 100, 1, 1_000_000),
      socketsPerKey: integer(env, 'WS_MAX_SOCKETS_PER_KEY', 100, 1, 1_000_000),
      socketsPerOrg: integer(env, 'WS_MAX_SOCKETS_PER_ORG', 1000, 1, 1_000_000),
      subscriptionsPerKey: integer(env, 'WS_MAX_SUBSCRIPTIONS_PER_KEY', 2000, 1, 10_000_000),
      subscriptionsPerOrg: integer(env, 'WS_MAX_SUBSCRIPTIONS_PER_ORG', 10_000, 1, 10_000_000),
    },
  };
  if (api.rateLimit.enabled && api.rateLimit.points < api.maxCost) {
    throw new ConfigError(
      `RATE_LIMIT_POINTS (${api.rateLimit.points}) must be at least GRAPHQL_MAX_COST (${api.maxCost}), ` +
        'or an operation the limits allow could never run',
    );
  }
  return api;
}

const MIN_METRICS_TOKEN_LENGTH = 16;

function metricsConfig(env: Env): MetricsConfig {
  const token = nonEmpty(env.METRICS_TOKEN);
  if (token !== undefined && (token.length < MIN_METRICS_TOKEN_LENGTH || /\s/.test(token))) {
    throw new ConfigError(`METRICS_TOKEN must be at least ${MIN_METRICS_TOKEN_LENGTH} characters without spaces (e.g. openssl rand -hex 24)`);
  }
  return {
    port: nonEmpty(env.METRICS_PORT) === undefined ? undefined : integer(env, 'METRICS_PORT', 0, 0, 65535),
    host: nonEmpty(env.METRICS_HOST) ?? '127.0.0.1',
    token,
  };
}

/** Loopback, opened for the embedded development setup (README, "Egress policy"). */
const DEMO_EGRESS = ['127.0.0.0/8', '::1/128'];

/** A comma-separated list of CIDRs (`10.0.0.0/8`, `::1/128`, or single addresses); `none` for the empty list. */
function cidrList(env: Env, name: string, fallback: string[]): string[] {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return fallback;
  if (raw.toLowerCase() === 'none') return [];
  return raw.split(',').map((part) => {
    try {
      parseCidr(part);
      return part.trim();
    } catch {
      throw new ConfigError(`${name} must be a comma-separated list of CIDRs (e.g. 10.0.0.0/8,fd12::/16) or none, got "${part.trim()}"`);
    }
  });
}

/** A comma-separated list of origins (`https://app.example.com`), each checked and normalized. */
function originList(env: Env, name: string): string[] {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return [];
  return raw.split(',').map((part) => {
    try {
      const url = new URL(part.trim());
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
      return url.origin;
    } catch {
      throw new ConfigError(`${name} must be a comma-separated list of http(s) origins, got "${part.trim()}"`);
    }
  });
}

/** A comma-separated list of roles; `none` for the empty list. */
function roleList(env: Env, name: string, fallback: Role[]): Role[] {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return fallback;
  if (raw.toLowerCase() === 'none') return [];
  const roles = raw.split(',').map((part) => part.trim());
  for (const role of roles) {
    if (!(ROLES as readonly string[]).includes(role)) {
      throw new ConfigError(`${name} must be a comma-separated list of ${ROLES.join(', ')} (or none), got "${raw}"`);
    }
  }
  return [...new Set(roles)] as Role[];
}

function nodeConfig(env: Env): Config['node'] {
  const heartbeatMs = integer(env, 'NODE_HEARTBEAT_MS', 5000, 50, 3_600_000);
  const deadAfterMs = integer(env, 'NODE_DEAD_AFTER_MS', 20_000, 200, 24 * 3_600_000);
  if (deadAfterMs < heartbeatMs * 2) {
    throw new ConfigError(`NODE_DEAD_AFTER_MS (${deadAfterMs}) must be at least twice NODE_HEARTBEAT_MS (${heartbeatMs})`);
  }
  const name = nonEmpty(env.TOOLGATE_NODE_NAME);
  if (name !== undefined && !/^[A-Za-z0-9._:-]{1,128}$/.test(name)) {
    throw new ConfigError('TOOLGATE_NODE_NAME must be 1-128 of A-Z a-z 0-9 . _ : -');
  }
  return {
    name,
    heartbeatMs,
    deadAfterMs,
    workerConcurrency: integer(env, 'WORKER_CONCURRENCY', 2, 1, 64),
    localStepConcurrency: integer(env, 'LOCAL_STEP_CONCURRENCY', 4, 0, 64),
    runToolConcurrency: integer(env, 'RUN_TOOL_CONCURRENCY', 4, 1, 64),
    nodeToolConcurrency: integer(env, 'NODE_TOOL_CONCURRENCY', 32, 1, 1024),
  };
}

export const FAILPOINT_NAMES = ['after_approval', 'after_vendor_response', 'during_model_stream'] as const;

function failpoints(env: Env): Record<string, number> {
  const raw = nonEmpty(env.TOOLGATE_FAILPOINTS);
  if (!raw) return {};
  const points: Record<string, number> = {};
  for (const entry of raw.split(',')) {
    const match = /^([a-z_]+)(?::(\d{1,6}))?$/.exec(entry.trim());
    if (!match || !(FAILPOINT_NAMES as readonly string[]).includes(match[1]) || (match[2] !== undefined && Number(match[2]) < 1)) {
      throw new ConfigError(`TOOLGATE_FAILPOINTS must be a list of name[:n] with names ${FAILPOINT_NAMES.join(', ')}, got "${raw}"`);
    }
    points[match[1]] = match[2] ? Number(match[2]) : 1;
  }
  return points;
}

function vendorUrls(env: Env, variables: readonly string[]): Record<string, string> {
  const urls: Record<string, string> = {};
  for (const name of variables) {
    const value = nonEmpty(env[name]);
    if (value === undefined) continue;
    try {
      const url = new URL(value);
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error();
    } catch {
      throw new ConfigError(`${name} must be an http(s) URL`);
    }
    urls[name] = value.replace(/\/+$/, '');
  }
  return urls;
}
