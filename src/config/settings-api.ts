// The settings table, part three: the API's limits, egress, fair-use caps, webhooks, metrics
// and traces (settings.ts joins the parts).
import { ConfigError, nonEmpty } from './env';
import { cidrList, originList, roleList, wordList } from './list-parsers';
import { presenceAt, urlAt } from './masks';
import { custom, filePath, flag, group, integer, optionalInteger, text, url } from './setting';

export const API = group('API limits', {
  GRAPHQL_INTROSPECTION: flag({ default: (c) => !c.production, defaultDoc: 'true outside production', description: 'schema introspection' }),
  GRAPHQL_IDE: flag({
    default: (c) => !c.production,
    defaultDoc: 'true outside production',
    description: "a browser's GET of /graphql serves the bundled GraphiQL",
    readme: "a browser's GET of `/graphql` serves the bundled GraphiQL (see [GraphQL IDE](#graphql-ide))",
  }),
  GRAPHQL_TOOL_CALL_ROUTE: flag({
    default: true,
    description: 'executeToolCall over HTTP on the lighter route (false: through Apollo Server, as every other operation)',
  }),
  GRAPHQL_MAX_BODY_BYTES: integer({ default: 1_048_576, min: 1024, max: 64 * 1_048_576, description: 'largest request body or websocket message' }),
  GRAPHQL_MAX_TOKENS: integer({ default: 1000, min: 10, max: 1_000_000, description: 'lexical tokens per operation' }),
  GRAPHQL_MAX_DEPTH: integer({ default: 8, min: 1, max: 1000, description: 'query depth' }),
  GRAPHQL_MAX_ALIASES: integer({ default: 15, min: 0, max: 10_000, description: 'aliases per operation' }),
  GRAPHQL_MAX_DIRECTIVES: integer({ default: 10, min: 0, max: 10_000, description: 'directives per operation' }),
  GRAPHQL_MAX_COST: integer({
    default: 5000,
    min: 1,
    max: 100_000_000,
    description: 'estimated cost per operation',
    readme: 'estimated cost per operation (see [API limits](#api-limits-and-persisted-operations))',
  }),
  TRUSTED_DOCUMENT_ROLES: custom({
    defaultDoc: 'partner',
    description: 'roles that may only run persisted operations (none for no role)',
    read: (env, name) => roleList(env, name, ['partner']),
  }),
  PERSISTED_DOCUMENTS_FILE: filePath({
    defaultDoc: "the project's gql/persisted-documents.json",
    description: 'the first-party persisted-operations manifest',
  }),
  PARTNER_DOCUMENTS_FILE: filePath({ defaultDoc: "the project's gql/partner/persisted-documents.json", description: 'the partner manifest' }),
  RATE_LIMIT_ENABLED: flag({ default: true, description: 'shared request budgets' }),
  RATE_LIMIT_POINTS: integer({
    default: 60_000,
    min: 1,
    max: 1_000_000_000,
    description: 'cost budget per API key',
    readme: 'cost budget per API key (at least `GRAPHQL_MAX_COST`)',
  }),
  RATE_LIMIT_POINTS_PER_SECOND: integer({ default: 1000, min: 1, max: 1_000_000_000, description: 'budget refill per second' }),
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: integer({
    default: 120,
    min: 1,
    max: 1_000_000_000,
    description: 'requests per minute per address without a key',
  }),
  MCP_ALLOWED_ORIGINS: custom({
    defaultDoc: '',
    description: 'browser origins /mcp accepts besides loopback ones',
    readme: 'browser origins `/mcp` accepts besides loopback ones (see [MCP](#mcp))',
    read: originList,
  }),
});

/** Loopback, opened for the embedded development setup (README, "Egress policy"). */
const DEMO_EGRESS = ['127.0.0.0/8', '::1/128'];

export const EGRESS = group('Egress', {
  // The embedded demo's loopback sandboxes (`toolgate sandboxes`, a local receiver) stay reachable; nothing else is opened by default.
  EGRESS_ALLOW_CIDRS: custom({
    defaultDoc: 'loopback (127.0.0.0/8,::1/128) on the embedded database outside production, else none',
    description:
      'CIDRs tenant URLs (webhooks, upstream MCP servers) may reach besides public addresses (none: only public); link-local and metadata addresses only by an exact /32 or /128',
    readme:
      'comma-separated CIDRs (or single addresses) that tenant URLs — webhook endpoints, upstream MCP servers — may reach besides public addresses; `none` for public only. Link-local and metadata addresses open only for an entry naming the one address (`169.254.169.254/32`). See [Egress policy](#egress-policy)',
    read: (env, name, context) => cidrList(env, name, context().embeddedDemo ? DEMO_EGRESS : []),
  }),
});

const SEE_CAPS = '(see [Fair use and caps](#fair-use-and-caps))';

export const FAIR_USE = group('Fair-use caps', {
  MCP_MAX_SESSIONS_PER_KEY: integer({
    default: 20,
    min: 1,
    max: 1_000_000,
    description: 'open 2025-era MCP sessions per key, per node',
    readme: `open 2025-era MCP sessions per key, per node; one more: 429 \`MCP_SESSION_LIMIT\` ${SEE_CAPS}`,
  }),
  MCP_MAX_OPEN_RUNS_PER_KEY: integer({
    default: 100,
    min: 1,
    max: 1_000_000,
    description: 'open external runs a key opened through /mcp',
    readme: 'open external runs a key may hold when `/mcp` opens another (cluster-wide); over it: 429 `MCP_RUN_LIMIT`',
  }),
  WS_MAX_SOCKETS_PER_KEY: integer({
    default: 100,
    min: 1,
    max: 1_000_000,
    description: 'graphql-ws sockets per key, per node',
    readme: 'graphql-ws sockets per key, per node; one more is closed with 4429 `SOCKET_LIMIT`',
  }),
  WS_MAX_SOCKETS_PER_ORG: integer({
    default: 1000,
    min: 1,
    max: 1_000_000,
    description: 'graphql-ws sockets per org, per node',
    readme: 'graphql-ws sockets per org, per node; one more is closed with 4429 `SOCKET_LIMIT`',
  }),
  WS_MAX_SUBSCRIPTIONS_PER_KEY: integer({
    default: 2000,
    min: 1,
    max: 10_000_000,
    description: 'running subscriptions per key, per node',
    readme: 'running subscriptions per key, per node; one more is refused `SUBSCRIPTION_LIMIT`',
  }),
  WS_MAX_SUBSCRIPTIONS_PER_ORG: integer({
    default: 10_000,
    min: 1,
    max: 10_000_000,
    description: 'running subscriptions per org, per node',
    readme: 'running subscriptions per org, per node; one more is refused `SUBSCRIPTION_LIMIT`',
  }),
});

export const WEBHOOKS = group('Webhooks', {
  WEBHOOK_TIMEOUT_MS: integer({
    default: 10_000,
    min: 1,
    max: 120_000,
    description: 'per webhook attempt',
    readme: 'per webhook attempt (see [Webhooks](#webhooks))',
  }),
  WEBHOOK_MAX_ATTEMPTS: integer({
    default: 8,
    min: 1,
    max: 50,
    description: 'attempts of one delivery before it is failed',
    readme: 'attempts of one delivery before it is `failed`',
  }),
  WEBHOOK_RETRY_BASE_MS: integer({
    default: 5_000,
    min: 0,
    max: 3_600_000,
    description: 'the wait before the first retry (each next one five times longer, jittered)',
    readme:
      'the wait before the first retry, each next one five times longer (jittered over its upper half), capped by `WEBHOOK_RETRY_MAX_DELAY_MS`: about 5 s, 25 s, 2 min, 10 min, 50 min, 4 h, 10 h. A retry is a job due at that time, which the job worker finds on its next poll (every 2 s): a wait is up to 2 s longer than set, and waits under 2 s are about 2 s (`WEBHOOK_RETRY_BASE_MS=400` retries after 0.2–2.4 s, typically about 2 s)',
  }),
  WEBHOOK_RETRY_MAX_DELAY_MS: integer({ default: 36_000_000, min: 0, max: 7 * 86_400_000, description: 'the longest wait between retries' }),
  WEBHOOK_CONCURRENCY: integer({
    default: 4,
    min: 1,
    max: 256,
    description: 'webhook attempts one node sends at once, in a worker pool of their own (one per org at a time)',
    readme: `webhook attempts one node sends at once, in a worker pool of their own (run steps and approval expiry never wait behind receivers); one attempt per org at a time ${SEE_CAPS}`,
  }),
});

const MIN_METRICS_TOKEN_LENGTH = 16;

export const TELEMETRY = group('Metrics and traces', {
  METRICS_TOKEN: custom({
    defaultDoc: '',
    description: 'bearer token (16+ characters) that opens /metrics; unset: /metrics on the API port answers 401',
    readme:
      'bearer token (at least 16 characters) that opens `/metrics`; on the API port nothing else does, and while it is unset `/metrics` there answers 401 to everyone (see [Metrics](#metrics-and-operator-logs))',
    secret: presenceAt('metrics.token'),
    read: (env, name) => {
      const token = nonEmpty(env[name]);
      if (token !== undefined && (token.length < MIN_METRICS_TOKEN_LENGTH || /\s/.test(token))) {
        throw new ConfigError(`${name} must be at least ${MIN_METRICS_TOKEN_LENGTH} characters without spaces (e.g. openssl rand -hex 24)`);
      }
      return token;
    },
  }),
  METRICS_PORT: optionalInteger({
    min: 0,
    max: 65535,
    description: 'serve /metrics on a listener of its own (0: any free port)',
    readme: 'serve `/metrics` on a listener of its own instead of the API port (`0`: any free port); open there unless `METRICS_TOKEN` is also set',
  }),
  METRICS_HOST: text({ default: '127.0.0.1', description: "the metrics listener's address" }),
  OTEL_EXPORTER_OTLP_ENDPOINT: url({
    description: 'an OTLP collector (e.g. http://127.0.0.1:4318): turns traces on',
    readme: 'an OTLP collector (e.g. `http://127.0.0.1:4318`): setting it turns [traces](#traces) on',
    masked: urlAt('tracing.endpoint'),
  }),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url({ description: "the collector's traces URL: turns traces on", masked: urlAt('tracing.endpoint') }),
  OTEL_TRACES_EXPORTER: custom({
    defaultDoc: '',
    description: 'otlp, console or zipkin turns traces on; none keeps them off',
    readme:
      '`otlp`, `console` or `zipkin` also turns traces on (`otlp` is the default once traces are on); `none` keeps them off whatever else is set',
    read: wordList,
  }),
  OTEL_SDK_DISABLED: flag({ default: false, description: 'true keeps traces off' }),
  OTEL_SERVICE_NAME: text({ default: 'toolgate', description: 'the service.name of the spans', readme: 'the `service.name` of the spans' }),
});
