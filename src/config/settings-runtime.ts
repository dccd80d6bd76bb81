// The settings table, part one: runtime and database, keys, logs, nodes (settings.ts joins the parts).
import { ConfigError, masterKeyring, nonEmpty, parseMasterKey, signingKey } from './env';
import { failpoints } from './list-parsers';
import { MASTER_KEYS, SIGNING_KEY, urlAt } from './masks';
import { choice, custom, filePath, flag, group, integer, optionalChoice, text } from './setting';

const CRASHES = '(see [Crashes](#crashes-restarts-and-shutdown))';

export const RUNTIME = group('Runtime and database', {
  NODE_ENV: choice({
    values: ['development', 'production', 'test'] as const,
    default: 'development',
    description: 'development, production or test; production requires a master key',
    readme:
      "`production`: introspection (unless `GRAPHQL_INTROSPECTION=true`) and suggestions off, full stacks in the JSON logs, all settings in the start's settings line (elsewhere the database and the settings not at their default); a master key required",
  }),
  DATABASE_URL: text({
    description: 'PostgreSQL to use; unset: the embedded PostgreSQL in TOOLGATE_DATA_DIR (an optional dependency)',
    readme: 'PostgreSQL to use; unset → embedded PostgreSQL in the data folder',
    secret: urlAt('databaseUrl', '(embedded)'),
  }),
  TOOLGATE_DATA_DIR: filePath({
    default: '.toolgate',
    description: 'the embedded database, its password and the development master key',
    readme:
      'embedded database, its password, and the development master key. Run as root, the embedded PostgreSQL runs as the user `postgres` and must be able to enter every folder above it: below a 0700 folder (what `mktemp -d` makes) `start` exits 2 with one line naming the folder and the fix',
  }),
  DB_POOL_MAX: integer({ default: 10, min: 1, max: 1000, description: 'connection pool size' }),
  TOOLGATE_MIGRATE_ON_START: flag({
    default: true,
    description: 'apply pending migrations on start (advisory lock); production: false, with `toolgate migrate` as the release step',
    readme:
      'apply pending migrations on `start`, under a PostgreSQL advisory lock so replicas starting together migrate one at a time (`toolgate migrate` takes the same lock). In production set it to `false` and run `toolgate migrate` as the release step: a start then refuses a database with pending migrations (exit 2)',
  }),
  // The demo org (and its printed keys) is for a first try, not a production start.
  TOOLGATE_SEED_ON_START: flag({
    default: (c) => c.embeddedDemo,
    defaultDoc: 'true on the embedded database, outside production',
    description: 'seed the demo org on a start that finds none',
  }),
  HOST: text({ default: '0.0.0.0', description: 'address the API listens on' }),
  PORT: integer({ default: 4000, min: 0, max: 65535, description: 'port the API listens on' }),
  SHUTDOWN_TIMEOUT_MS: integer({
    default: 10_000,
    min: 100,
    max: 600_000,
    description: 'graceful shutdown budget on SIGTERM/SIGINT',
    readme: `graceful shutdown budget on SIGTERM/SIGINT: new calls and jobs are refused at once, in-flight vendor calls get most of the budget; what still runs then is reconciled and the process exits 1 ${CRASHES}`,
  }),
});

export const KEYS = group('Keys', {
  MASTER_ENCRYPTION_KEY: custom({
    defaultDoc: 'generated into the data folder outside production',
    description: '32 bytes (64 hex characters or base64) protecting vendor credentials: openssl rand -hex 32',
    readme:
      '32 bytes (64 hex characters or base64) protecting vendor credentials; version 1. **Required in production** (or the keyring below). `start` opens one stored credential of each key version and exits 2 with one line if the keys cannot (a wrong key is found at start, not at the first vendor call)',
    secret: MASTER_KEYS,
    read: (env, name) => {
      const key = parseMasterKey(env[name]);
      return key ? [{ version: 1, key }] : [];
    },
  }),
  MASTER_ENCRYPTION_KEYS: custom({
    defaultDoc: '',
    description: 'a keyring v2:<key>,v1:<key> (wins over MASTER_ENCRYPTION_KEY)',
    readme:
      'a keyring `v2:<key>,v1:<key>` (wins over `MASTER_ENCRYPTION_KEY`): the newest version wraps new data keys, older ones still decrypt until `credentials rotate`',
    secret: MASTER_KEYS,
    read: masterKeyring,
  }),
  TOOLGATE_LEDGER_SIGNING_KEY: custom({
    defaultDoc: '',
    description: 'Ed25519 private key (PEM or base64 PKCS#8) that `ledger checkpoint` signs with',
    readme:
      'an Ed25519 private key (PEM, or base64 PKCS#8; `openssl genpkey -algorithm ed25519`) that `ledger checkpoint` signs with; `ledger verify --checkpoint` uses its public half unless given `--public-key`. Logged only as its key id',
    secret: SIGNING_KEY,
    read: signingKey,
  }),
});

export const LOGS = group('Logs', {
  LOG_LEVEL: choice({
    values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const,
    default: 'info',
    description: 'fatal, error, warn, info, debug, trace or silent',
    readme: 'pino level (`silent` … `trace`); logs carry a correlation id, secrets never logged',
  }),
  LOG_FORMAT: optionalChoice({
    values: ['json', 'pretty'] as const,
    defaultDoc: 'pretty on an interactive terminal in development, else json',
    description: 'json or pretty',
    readme: '`json` (one object a line) or `pretty` (pino-pretty)',
  }),
  TOOLGATE_FULL_STACKS: flag({
    default: false,
    description: 'full stack traces in logs (and, in development, API errors)',
    readme:
      'outside production a logged error carries its message and first own frame (`at fn (dist/src/x.js:12:3)`) and API errors no stack; `1` gives full stack traces in logs and, in development, in API errors',
  }),
});

export const NODES = group('Nodes, jobs and events', {
  TOOLGATE_NODE_NAME: custom({
    defaultDoc: '<hostname>:<PORT>',
    description: "this node's stable name",
    readme: "this node's stable name: a start under the same name recovers its previous incarnation's work at once",
    read: (env, name) => {
      const value = nonEmpty(env[name]);
      if (value !== undefined && !/^[A-Za-z0-9._:-]{1,128}$/.test(value)) throw new ConfigError(`${name} must be 1-128 of A-Z a-z 0-9 . _ : -`);
      return value;
    },
  }),
  NODE_HEARTBEAT_MS: integer({
    default: 5000,
    min: 50,
    max: 3_600_000,
    description: 'node heartbeat interval',
    readme: `node liveness: each node heartbeats this often ${CRASHES}`,
  }),
  NODE_DEAD_AFTER_MS: integer({
    default: 20_000,
    min: 200,
    max: 24 * 3_600_000,
    description: 'a node silent this long is dead (at least twice the heartbeat)',
    readme: `a node silent this long is dead (at least twice the heartbeat): a live node releases its jobs and reconciles its calls ${CRASHES}`,
  }),
  WORKER_CONCURRENCY: integer({ default: 2, min: 1, max: 64, description: 'agent-run steps one node runs at once' }),
  LOCAL_STEP_CONCURRENCY: integer({
    default: 4,
    min: 0,
    max: 64,
    description: 'agent-run steps a node starts itself, on the request that queued them, at once, besides its worker (0: all through the job queue)',
  }),
  RUN_TOOL_CONCURRENCY: integer({
    default: 4,
    min: 1,
    max: 64,
    description: 'tool calls of one assistant message run at once (1: one after another)',
    readme:
      'tool calls of one assistant message run at once, each through the gateway as always (`1`: one after another); see [Runs](#runs), "Parallel tool calls"',
  }),
  NODE_TOOL_CONCURRENCY: integer({
    default: 32,
    min: 1,
    max: 1024,
    description:
      "tool calls the agent runtime of one node runs at once, across its runs (external runs' calls, sent through the API, are not counted)",
    readme:
      "tool calls the agent runtime of one node runs at once, across its runs (a run's calls wait for a slot beyond it; external runs' calls, sent through the API, are not counted)",
  }),
  EVENT_BUS: optionalChoice({
    values: ['in-process', 'postgres', 'redis'] as const,
    defaultDoc: 'redis when REDIS_URL is set, else postgres',
    description: 'postgres, redis or in-process',
    readme: 'how nodes share subscription events: `postgres` (LISTEN/NOTIFY), `redis`, or `in-process` (one node)',
  }),
  REDIS_URL: text({ description: 'Redis for the event bus and the rate-limit counters', secret: urlAt('redisUrl') }),
  PRESENCE_HEARTBEAT_MS: integer({
    default: 5000,
    min: 50,
    max: 600_000,
    description: 'how often a node heartbeats its approval viewers on the event bus; a node silent for two has its viewers dropped',
    readme:
      'how often a node tells the others, on the event bus, that its reviewers still have their approvals open; a node silent for two heartbeats (it died) has its reviewers dropped from "Also looking"',
  }),
  SUBSCRIPTION_BUFFER_EVENTS: integer({
    default: 1000,
    min: 1,
    max: 1_000_000,
    description: 'events one subscription group may have queued',
    readme:
      'events one subscription group (or token subscription) may have queued; past it the group re-reads the ledger instead of holding more in memory',
  }),
  SUBSCRIPTION_MAX_LAG_EVENTS: integer({
    default: 10_000,
    min: 1,
    max: 100_000_000,
    description: "messages a subscriber's socket may have queued before SUBSCRIBER_TOO_SLOW",
    readme:
      "how many messages a subscriber's socket may have queued (or, while it replays, how far behind the live head it may fall) before it is ended with `SUBSCRIBER_TOO_SLOW`",
  }),
  TOOLGATE_FAILPOINTS: custom({
    defaultDoc: '',
    description: "the chaos harness's crash points; never in production",
    readme:
      "the chaos harness's crash points (`after_approval`, `after_vendor_response`, `during_model_stream`, each `name[:n]`: SIGKILL at the n-th hit). Never set it in production",
    read: failpoints,
  }),
});
