// Every environment variable src/config.ts reads, as data: `.env.example` is generated from
// it (`npm run docs:env`), and test/unit/config-variables.test.ts checks that loadConfig reads
// exactly these and that each literal default is the one it applies.
import { VENDOR_URL_VARIABLES } from './vendors';

export interface ConfigVariable {
  name: string;
  /** As a value to write (`4000`, `true`), or in words when it depends on other settings. */
  default: string;
  description: string;
  /** Never printed in full (src/config-describe.ts); left empty in .env.example. */
  secret?: boolean;
}

interface Group {
  title: string;
  variables: ConfigVariable[];
}

const none = '';

export const CONFIG_GROUPS: Group[] = [
  {
    title: 'Runtime and database',
    variables: [
      { name: 'NODE_ENV', default: 'development', description: 'development, production or test; production requires a master key' },
      {
        name: 'DATABASE_URL',
        default: none,
        description: 'PostgreSQL to use; unset: the embedded PostgreSQL in TOOLGATE_DATA_DIR (an optional dependency)',
        secret: true,
      },
      { name: 'TOOLGATE_DATA_DIR', default: '.toolgate', description: 'the embedded database, its password and the development master key' },
      { name: 'DB_POOL_MAX', default: '10', description: 'connection pool size' },
      {
        name: 'TOOLGATE_MIGRATE_ON_START',
        default: 'true',
        description: 'apply pending migrations on start (advisory lock); production: false, with `toolgate migrate` as the release step',
      },
      {
        name: 'TOOLGATE_SEED_ON_START',
        default: 'true on the embedded database, outside production',
        description: 'seed the demo org on a start that finds none',
      },
      { name: 'HOST', default: '0.0.0.0', description: 'address the API listens on' },
      { name: 'PORT', default: '4000', description: 'port the API listens on' },
      { name: 'SHUTDOWN_TIMEOUT_MS', default: '10000', description: 'graceful shutdown budget on SIGTERM/SIGINT' },
    ],
  },
  {
    title: 'Keys',
    variables: [
      {
        name: 'MASTER_ENCRYPTION_KEY',
        default: 'generated into the data folder outside production',
        description: '32 bytes (64 hex characters or base64) protecting vendor credentials: openssl rand -hex 32',
        secret: true,
      },
      { name: 'MASTER_ENCRYPTION_KEYS', default: none, description: 'a keyring v2:<key>,v1:<key> (wins over MASTER_ENCRYPTION_KEY)', secret: true },
      {
        name: 'TOOLGATE_LEDGER_SIGNING_KEY',
        default: none,
        description: 'Ed25519 private key (PEM or base64 PKCS#8) that `ledger checkpoint` signs with',
        secret: true,
      },
    ],
  },
  {
    title: 'Logs',
    variables: [
      { name: 'LOG_LEVEL', default: 'info', description: 'fatal, error, warn, info, debug, trace or silent' },
      { name: 'LOG_FORMAT', default: 'pretty on an interactive terminal in development, else json', description: 'json or pretty' },
      { name: 'TOOLGATE_FULL_STACKS', default: 'false', description: 'full stack traces in logs (and, in development, API errors)' },
    ],
  },
  {
    title: 'Nodes, jobs and events',
    variables: [
      { name: 'TOOLGATE_NODE_NAME', default: '<hostname>:<PORT>', description: "this node's stable name" },
      { name: 'NODE_HEARTBEAT_MS', default: '5000', description: 'node heartbeat interval' },
      { name: 'NODE_DEAD_AFTER_MS', default: '20000', description: 'a node silent this long is dead (at least twice the heartbeat)' },
      { name: 'WORKER_CONCURRENCY', default: '2', description: 'agent-run steps one node runs at once' },
      {
        name: 'LOCAL_STEP_CONCURRENCY',
        default: '4',
        description:
          'agent-run steps a node starts itself, on the request that queued them, at once, besides its worker (0: all through the job queue)',
      },
      { name: 'RUN_TOOL_CONCURRENCY', default: '4', description: 'tool calls of one assistant message run at once (1: one after another)' },
      {
        name: 'NODE_TOOL_CONCURRENCY',
        default: '32',
        description:
          "tool calls the agent runtime of one node runs at once, across its runs (external runs' calls, sent through the API, are not counted)",
      },
      { name: 'EVENT_BUS', default: 'redis when REDIS_URL is set, else postgres', description: 'postgres, redis or in-process' },
      { name: 'REDIS_URL', default: none, description: 'Redis for the event bus and the rate-limit counters', secret: true },
      {
        name: 'PRESENCE_HEARTBEAT_MS',
        default: '5000',
        description: 'how often a node heartbeats its approval viewers on the event bus; a node silent for two has its viewers dropped',
      },
      { name: 'SUBSCRIPTION_BUFFER_EVENTS', default: '1000', description: 'events one subscription group may have queued' },
      {
        name: 'SUBSCRIPTION_MAX_LAG_EVENTS',
        default: '10000',
        description: "messages a subscriber's socket may have queued before SUBSCRIBER_TOO_SLOW",
      },
      { name: 'TOOLGATE_FAILPOINTS', default: none, description: "the chaos harness's crash points; never in production" },
    ],
  },
  {
    title: 'Model',
    variables: [
      { name: 'ANTHROPIC_API_KEY', default: none, description: 'Claude API key', secret: true },
      { name: 'ANTHROPIC_BASE_URL', default: none, description: 'a compatible endpoint instead of Anthropic' },
      {
        name: 'TOOLGATE_OFFLINE_MODEL',
        default: 'true outside production',
        description: 'may start serve the offline development model when no model is configured',
      },
      { name: 'ANTHROPIC_MODEL', default: 'claude-sonnet-5-5', description: 'the model name sent' },
      { name: 'ANTHROPIC_MAX_RETRIES', default: '2', description: "the SDK's retries for 429, 529 and 5xx" },
      { name: 'ANTHROPIC_MAX_TOKENS', default: '1024', description: 'max_tokens per model turn' },
      {
        name: 'MODEL_STREAM_RETRIES',
        default: '2',
        description: 'retries of a turn whose stream failed (an error event, a stall) before any tool_use began, after 1 s, 2 s, …',
      },
      {
        name: 'MODEL_STREAM_IDLE_TIMEOUT_MS',
        default: '60000',
        description: 'no stream event for this long once the response began: the stream is stalled, aborted and retried (then MODEL_STREAM_STALLED)',
      },
      { name: 'RUN_MAX_TOOL_ROUNDS', default: '8', description: 'tool rounds per user message' },
      { name: 'RUN_MAX_TOOL_ROUNDS_TOTAL', default: '40', description: 'tool rounds per run, across every message posted to it' },
      { name: 'MODEL_INPUT_PRICE_PER_MTOK', default: '3', description: 'US dollars per million input tokens' },
      { name: 'MODEL_OUTPUT_PRICE_PER_MTOK', default: '15', description: 'US dollars per million output tokens (thinking tokens are output tokens)' },
      {
        name: 'MODEL_CACHE_WRITE_PRICE_PERCENT',
        default: '125',
        description: 'prompt-cache writes (cache_creation_input_tokens), in percent of the input price',
      },
      {
        name: 'MODEL_CACHE_READ_PRICE_PERCENT',
        default: '10',
        description: 'prompt-cache reads (cache_read_input_tokens), in percent of the input price',
      },
    ],
  },
  {
    title: 'Tools and vendors',
    variables: [
      { name: 'TOOL_CALLING_KILL_SWITCH', default: 'false', description: 'block every tool call (FEATURE_DISABLED)' },
      { name: 'APPROVAL_TTL_SECONDS', default: '86400', description: 'how long an approval waits before it expires' },
      {
        name: 'TOOLGATE_VENDOR_SANDBOXES',
        default: 'true on the embedded database, outside production',
        description: 'serve the vendor sandboxes in-process',
      },
      { name: 'VENDOR_SANDBOX_URL', default: none, description: 'vendor sandboxes of another process (toolgate sandboxes)' },
      { name: 'VENDOR_TIMEOUT_MS', default: '10000', description: 'per vendor call attempt' },
      { name: 'VENDOR_MAX_RETRIES', default: '3', description: 'retries of idempotent vendor actions' },
      { name: 'VENDOR_RETRY_BASE_MS', default: '500', description: 'backoff base' },
      { name: 'VENDOR_RETRY_MAX_DELAY_MS', default: '30000', description: 'longest Retry-After honoured' },
      { name: 'VENDOR_BREAKER_THRESHOLD', default: '5', description: 'consecutive failures that open the circuit breaker' },
      { name: 'VENDOR_BREAKER_HALF_OPEN_MS', default: '30000', description: 'time before the breaker probes again' },
      { name: 'MCP_UPSTREAM_MAX_TOOLS', default: '100', description: 'tools one upstream MCP server may list' },
      { name: 'MCP_UPSTREAM_MAX_LIST_PAGES', default: '10', description: 'pages of an upstream tools/list followed' },
      { name: 'MCP_UPSTREAM_MAX_SCHEMA_BYTES', default: '32768', description: "an upstream tool's input schema, JSON bytes" },
      { name: 'MCP_UPSTREAM_MAX_SCHEMA_DEPTH', default: '12', description: "an upstream tool's input schema's nesting" },
      { name: 'MCP_UPSTREAM_MAX_RESULT_BYTES', default: '262144', description: "an upstream tool call's result, JSON bytes" },
      ...VENDOR_URL_VARIABLES.map((name) => ({ name, default: 'the real vendor', description: 'override this vendor endpoint' })),
    ],
  },
  {
    title: 'API limits',
    variables: [
      { name: 'GRAPHQL_INTROSPECTION', default: 'true outside production', description: 'schema introspection' },
      { name: 'GRAPHQL_IDE', default: 'true outside production', description: "a browser's GET of /graphql serves the bundled GraphiQL" },
      { name: 'GRAPHQL_MAX_BODY_BYTES', default: '1048576', description: 'largest request body or websocket message' },
      { name: 'GRAPHQL_MAX_TOKENS', default: '1000', description: 'lexical tokens per operation' },
      { name: 'GRAPHQL_MAX_DEPTH', default: '8', description: 'query depth' },
      { name: 'GRAPHQL_MAX_ALIASES', default: '15', description: 'aliases per operation' },
      { name: 'GRAPHQL_MAX_DIRECTIVES', default: '10', description: 'directives per operation' },
      { name: 'GRAPHQL_MAX_COST', default: '5000', description: 'estimated cost per operation' },
      { name: 'TRUSTED_DOCUMENT_ROLES', default: 'partner', description: 'roles that may only run persisted operations (none for no role)' },
      {
        name: 'PERSISTED_DOCUMENTS_FILE',
        default: "the project's gql/persisted-documents.json",
        description: 'the first-party persisted-operations manifest',
      },
      { name: 'PARTNER_DOCUMENTS_FILE', default: "the project's gql/partner/persisted-documents.json", description: 'the partner manifest' },
      { name: 'RATE_LIMIT_ENABLED', default: 'true', description: 'shared request budgets' },
      { name: 'RATE_LIMIT_POINTS', default: '60000', description: 'cost budget per API key' },
      { name: 'RATE_LIMIT_POINTS_PER_SECOND', default: '1000', description: 'budget refill per second' },
      { name: 'RATE_LIMIT_ANONYMOUS_PER_MINUTE', default: '120', description: 'requests per minute per address without a key' },
      { name: 'MCP_ALLOWED_ORIGINS', default: none, description: 'browser origins /mcp accepts besides loopback ones' },
    ],
  },
  {
    title: 'Egress',
    variables: [
      {
        name: 'EGRESS_ALLOW_CIDRS',
        default: 'loopback (127.0.0.0/8,::1/128) on the embedded database outside production, else none',
        description:
          'CIDRs tenant URLs (webhooks, upstream MCP servers) may reach besides public addresses (none: only public); link-local and metadata addresses only by an exact /32 or /128',
      },
    ],
  },
  {
    title: 'Fair-use caps',
    variables: [
      { name: 'MCP_MAX_SESSIONS_PER_KEY', default: '20', description: 'open 2025-era MCP sessions per key, per node' },
      { name: 'MCP_MAX_OPEN_RUNS_PER_KEY', default: '100', description: 'open external runs a key opened through /mcp' },
      { name: 'WS_MAX_SOCKETS_PER_KEY', default: '100', description: 'graphql-ws sockets per key, per node' },
      { name: 'WS_MAX_SOCKETS_PER_ORG', default: '1000', description: 'graphql-ws sockets per org, per node' },
      { name: 'WS_MAX_SUBSCRIPTIONS_PER_KEY', default: '2000', description: 'running subscriptions per key, per node' },
      { name: 'WS_MAX_SUBSCRIPTIONS_PER_ORG', default: '10000', description: 'running subscriptions per org, per node' },
    ],
  },
  {
    title: 'Webhooks',
    variables: [
      { name: 'WEBHOOK_TIMEOUT_MS', default: '10000', description: 'per webhook attempt' },
      { name: 'WEBHOOK_MAX_ATTEMPTS', default: '8', description: 'attempts of one delivery before it is failed' },
      { name: 'WEBHOOK_RETRY_BASE_MS', default: '5000', description: 'the wait before the first retry (each next one five times longer, jittered)' },
      { name: 'WEBHOOK_RETRY_MAX_DELAY_MS', default: '36000000', description: 'the longest wait between retries' },
      {
        name: 'WEBHOOK_CONCURRENCY',
        default: '4',
        description: 'webhook attempts one node sends at once, in a worker pool of their own (one per org at a time)',
      },
    ],
  },
  {
    title: 'Metrics and traces',
    variables: [
      {
        name: 'METRICS_TOKEN',
        default: none,
        description: 'bearer token (16+ characters) that opens /metrics; unset: /metrics on the API port answers 401',
        secret: true,
      },
      { name: 'METRICS_PORT', default: none, description: 'serve /metrics on a listener of its own (0: any free port)' },
      { name: 'METRICS_HOST', default: '127.0.0.1', description: "the metrics listener's address" },
      { name: 'OTEL_EXPORTER_OTLP_ENDPOINT', default: none, description: 'an OTLP collector (e.g. http://127.0.0.1:4318): turns traces on' },
      { name: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', default: none, description: "the collector's traces URL: turns traces on" },
      { name: 'OTEL_TRACES_EXPORTER', default: none, description: 'otlp, console or zipkin turns traces on; none keeps them off' },
      { name: 'OTEL_SDK_DISABLED', default: 'false', description: 'true keeps traces off' },
      { name: 'OTEL_SERVICE_NAME', default: 'toolgate', description: 'the service.name of the spans' },
    ],
  },
];

export const CONFIG_VARIABLES: ConfigVariable[] = CONFIG_GROUPS.flatMap((group) => group.variables);

/** A value .env.example can carry as is: a plain number, boolean or word (not a sentence). */
export function literalDefault(variable: ConfigVariable): string | null {
  return /^[\w.:/-]+$/.test(variable.default) && !variable.default.includes('<') ? variable.default : null;
}

/** `.env.example`: every variable commented out at its default (secrets empty), by group. */
export function renderEnvExample(): string {
  const lines = [
    '# Toolgate configuration (generated from src/config-variables.ts by `npm run docs:env`; do not edit).',
    '# Every variable is optional outside production; uncomment what you change. README "Configuration" explains each.',
  ];
  for (const group of CONFIG_GROUPS) {
    lines.push('', `## ${group.title}`);
    for (const variable of group.variables) {
      const literal = variable.secret ? null : literalDefault(variable);
      const fallback = literal === null && variable.default ? ` (default: ${variable.default})` : '';
      lines.push(`# ${variable.description}${fallback}${variable.secret ? ' [secret]' : ''}`, `# ${variable.name}=${literal ?? ''}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
