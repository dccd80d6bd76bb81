// Configuration is read from the environment once, through the settings table (settings.ts),
// checked across settings, and passed around as the typed Config (types.ts). Nothing else in
// the code reads `process.env`.
import { ConfigError, type Env, httpUrl } from './env';
import { settingsReader, VENDOR_ENDPOINT_VARIABLES } from './settings';
import type { ApiConfig, Config, MetricsConfig, TracingConfig } from './types';

type Read = ReturnType<typeof settingsReader>;

/**
 * `vendorUrlVariables`: the endpoint overrides accepted (the table's, which match each vendor
 * handler's `VendorEndpoint.env`); a test may pass those of its own vendors.
 */
export function loadConfig(env: Env = process.env, vendorUrlVariables: readonly string[] = VENDOR_ENDPOINT_VARIABLES): Config {
  const read = settingsReader(env);
  const nodeEnv = read('NODE_ENV');
  const databaseUrl = read('DATABASE_URL');
  // The keyring wins; the single key is read only without it.
  const masterKeys = read('MASTER_ENCRYPTION_KEYS') ?? read('MASTER_ENCRYPTION_KEY');
  if (nodeEnv === 'production' && masterKeys.length === 0) {
    throw new ConfigError(
      'MASTER_ENCRYPTION_KEY (or MASTER_ENCRYPTION_KEYS) is required when NODE_ENV=production ' +
        '(32 bytes as 64 hex characters or base64). Generate one with: openssl rand -hex 32',
    );
  }
  return {
    nodeEnv,
    host: read('HOST'),
    port: read('PORT'),
    databaseUrl,
    dataDir: read('TOOLGATE_DATA_DIR'),
    masterKeys,
    ledgerSigningKey: read('TOOLGATE_LEDGER_SIGNING_KEY'),
    logLevel: read('LOG_LEVEL'),
    logFormat: read('LOG_FORMAT'),
    fullStacks: read('TOOLGATE_FULL_STACKS'),
    shutdownTimeoutMs: read('SHUTDOWN_TIMEOUT_MS'),
    dbPoolMax: read('DB_POOL_MAX'),
    seedOnStart: read('TOOLGATE_SEED_ON_START'),
    migrateOnStart: read('TOOLGATE_MIGRATE_ON_START'),
    toolCallingKillSwitch: read('TOOL_CALLING_KILL_SWITCH'),
    approvalTtlMs: read('APPROVAL_TTL_SECONDS') * 1000,
    vendorSandboxes: read('TOOLGATE_VENDOR_SANDBOXES'),
    vendorUrls: vendorUrls(env, vendorUrlVariables),
    vendorSandboxUrl: read('VENDOR_SANDBOX_URL'),
    node: nodeConfig(read),
    failpoints: read('TOOLGATE_FAILPOINTS'),
    eventBus: read('EVENT_BUS'),
    redisUrl: read('REDIS_URL'),
    presenceHeartbeatMs: read('PRESENCE_HEARTBEAT_MS'),
    subscriptions: {
      bufferEvents: read('SUBSCRIPTION_BUFFER_EVENTS'),
      maxLagEvents: read('SUBSCRIPTION_MAX_LAG_EVENTS'),
    },
    model: {
      apiKey: read('ANTHROPIC_API_KEY'),
      offlineAllowed: read('TOOLGATE_OFFLINE_MODEL'),
      baseUrl: read('ANTHROPIC_BASE_URL'),
      name: read('ANTHROPIC_MODEL'),
      maxRetries: read('ANTHROPIC_MAX_RETRIES'),
      maxTokens: read('ANTHROPIC_MAX_TOKENS'),
      streamRetries: read('MODEL_STREAM_RETRIES'),
      streamIdleTimeoutMs: read('MODEL_STREAM_IDLE_TIMEOUT_MS'),
      maxToolRounds: read('RUN_MAX_TOOL_ROUNDS'),
      maxRunToolRounds: read('RUN_MAX_TOOL_ROUNDS_TOTAL'),
      inputPricePerMTok: read('MODEL_INPUT_PRICE_PER_MTOK'),
      outputPricePerMTok: read('MODEL_OUTPUT_PRICE_PER_MTOK'),
      cacheWritePricePercent: read('MODEL_CACHE_WRITE_PRICE_PERCENT'),
      cacheReadPricePercent: read('MODEL_CACHE_READ_PRICE_PERCENT'),
    },
    api: apiConfig(read, nodeEnv),
    identity: { publicUrl: read('PUBLIC_URL'), issuers: read('OIDC_ISSUERS'), sessionTtlSeconds: read('SESSION_TTL_SECONDS') },
    metrics: metricsConfig(read),
    tracing: tracingFrom(read),
    vendor: {
      timeoutMs: read('VENDOR_TIMEOUT_MS'),
      maxRetries: read('VENDOR_MAX_RETRIES'),
      retryBaseMs: read('VENDOR_RETRY_BASE_MS'),
      retryMaxDelayMs: read('VENDOR_RETRY_MAX_DELAY_MS'),
      breakerThreshold: read('VENDOR_BREAKER_THRESHOLD'),
      breakerHalfOpenMs: read('VENDOR_BREAKER_HALF_OPEN_MS'),
    },
    egress: { allowCidrs: read('EGRESS_ALLOW_CIDRS') },
    upstream: {
      maxTools: read('MCP_UPSTREAM_MAX_TOOLS'),
      maxListPages: read('MCP_UPSTREAM_MAX_LIST_PAGES'),
      maxSchemaBytes: read('MCP_UPSTREAM_MAX_SCHEMA_BYTES'),
      maxSchemaDepth: read('MCP_UPSTREAM_MAX_SCHEMA_DEPTH'),
      maxResultBytes: read('MCP_UPSTREAM_MAX_RESULT_BYTES'),
    },
    webhooks: {
      timeoutMs: read('WEBHOOK_TIMEOUT_MS'),
      maxAttempts: read('WEBHOOK_MAX_ATTEMPTS'),
      retryBaseMs: read('WEBHOOK_RETRY_BASE_MS'),
      retryMaxDelayMs: read('WEBHOOK_RETRY_MAX_DELAY_MS'),
      concurrency: read('WEBHOOK_CONCURRENCY'),
    },
  };
}

/**
 * The OpenTelemetry decision alone: the CLI reads it before anything else is loaded, so the
 * SDK's instrumentations see `pg` and `http` as they are first required. The SDK reads its
 * other OTEL_* variables (protocol, headers, sampler, batch sizes) itself.
 */
export function tracingConfig(env: Env = process.env): TracingConfig {
  return tracingFrom(settingsReader(env));
}

function tracingFrom(read: Read): TracingConfig {
  const exporters = read('OTEL_TRACES_EXPORTER');
  const traces = read('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = read('OTEL_EXPORTER_OTLP_ENDPOINT');
  const disabled = read('OTEL_SDK_DISABLED') || (exporters.length > 0 && exporters.every((e) => e === 'none'));
  return {
    enabled: !disabled && (exporters.length > 0 || traces !== undefined || base !== undefined),
    serviceName: read('OTEL_SERVICE_NAME'),
    endpoint: traces ?? (base ? `${base}/v1/traces` : undefined),
  };
}

function apiConfig(read: Read, nodeEnv: Config['nodeEnv']): ApiConfig {
  const api: ApiConfig = {
    introspection: read('GRAPHQL_INTROSPECTION'),
    fieldSuggestions: nodeEnv !== 'production',
    ide: read('GRAPHQL_IDE'),
    toolCallRoute: read('GRAPHQL_TOOL_CALL_ROUTE'),
    maxBodyBytes: read('GRAPHQL_MAX_BODY_BYTES'),
    maxTokens: read('GRAPHQL_MAX_TOKENS'),
    maxDepth: read('GRAPHQL_MAX_DEPTH'),
    maxAliases: read('GRAPHQL_MAX_ALIASES'),
    maxDirectives: read('GRAPHQL_MAX_DIRECTIVES'),
    maxCost: read('GRAPHQL_MAX_COST'),
    trustedDocumentRoles: read('TRUSTED_DOCUMENT_ROLES'),
    persistedDocumentsFile: read('PERSISTED_DOCUMENTS_FILE'),
    partnerDocumentsFile: read('PARTNER_DOCUMENTS_FILE'),
    rateLimit: {
      enabled: read('RATE_LIMIT_ENABLED'),
      points: read('RATE_LIMIT_POINTS'),
      pointsPerSecond: read('RATE_LIMIT_POINTS_PER_SECOND'),
      anonymousPerMinute: read('RATE_LIMIT_ANONYMOUS_PER_MINUTE'),
    },
    mcpAllowedOrigins: read('MCP_ALLOWED_ORIGINS'),
    caps: {
      mcpSessionsPerKey: read('MCP_MAX_SESSIONS_PER_KEY'),
      mcpOpenRunsPerKey: read('MCP_MAX_OPEN_RUNS_PER_KEY'),
      socketsPerKey: read('WS_MAX_SOCKETS_PER_KEY'),
      socketsPerOrg: read('WS_MAX_SOCKETS_PER_ORG'),
      subscriptionsPerKey: read('WS_MAX_SUBSCRIPTIONS_PER_KEY'),
      subscriptionsPerOrg: read('WS_MAX_SUBSCRIPTIONS_PER_ORG'),
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

function metricsConfig(read: Read): MetricsConfig {
  const token = read('METRICS_TOKEN');
  return { port: read('METRICS_PORT'), host: read('METRICS_HOST'), token };
}

function nodeConfig(read: Read): Config['node'] {
  const heartbeatMs = read('NODE_HEARTBEAT_MS');
  const deadAfterMs = read('NODE_DEAD_AFTER_MS');
  if (deadAfterMs < heartbeatMs * 2) {
    throw new ConfigError(`NODE_DEAD_AFTER_MS (${deadAfterMs}) must be at least twice NODE_HEARTBEAT_MS (${heartbeatMs})`);
  }
  return {
    name: read('TOOLGATE_NODE_NAME'),
    heartbeatMs,
    deadAfterMs,
    workerConcurrency: read('WORKER_CONCURRENCY'),
    localStepConcurrency: read('LOCAL_STEP_CONCURRENCY'),
    runToolConcurrency: read('RUN_TOOL_CONCURRENCY'),
    nodeToolConcurrency: read('NODE_TOOL_CONCURRENCY'),
  };
}

/** The endpoint overrides that are set, each an http(s) URL (the table declares its own; a test's vendors add theirs). */
function vendorUrls(env: Env, variables: readonly string[]): Record<string, string> {
  const urls: Record<string, string> = {};
  for (const name of variables) {
    const url = httpUrl(env, name);
    if (url !== undefined) urls[name] = url;
  }
  return urls;
}
