// The configuration's shape: what loadConfig (load.ts) hands the rest of src/.
import type { KeyObject } from 'node:crypto';
import type { Role } from '../auth/roles';
import type { MasterKey } from '../credentials/keyring';

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
  /** Single sign-on and OAuth for MCP (README, "Identity"). */
  identity: IdentityConfig;
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
  /**
   * GRAPHQL_TOOL_CALL_ROUTE: `executeToolCall` over HTTP skips Apollo Server's pipeline for the same
   * checks and execution at less CPU (src/api/http/tool-call-route.ts; default on).
   */
  toolCallRoute: boolean;
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

/** One OpenID Connect issuer of `OIDC_ISSUERS`; an org is bound to it by `name`. */
export interface OidcIssuerConfig {
  name: string;
  /** Exactly as the issuer names itself (the ID token's `iss`). */
  issuer: string;
  clientId: string;
  clientSecret: string | undefined;
  scopes: string[];
}

export interface IdentityConfig {
  /** PUBLIC_URL; undefined: `http://localhost:<the port listened on>`, known once the server listens. */
  publicUrl: string | undefined;
  issuers: OidcIssuerConfig[];
  sessionTtlSeconds: number;
}
