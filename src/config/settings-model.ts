// The settings table, part two: the model, tools and vendors (settings.ts joins the parts).
import { presenceAt } from './masks';
import { flag, group, integer, text, url } from './setting';

export const MODEL = group('Model', {
  ANTHROPIC_API_KEY: text({
    description: 'Claude API key',
    readme:
      'Claude; with neither it nor `ANTHROPIC_BASE_URL`, the offline model serves in-process — in production only with `TOOLGATE_OFFLINE_MODEL=true`, else `start` exits 2 naming them',
    secret: presenceAt('model.apiKey'),
  }),
  ANTHROPIC_BASE_URL: text({ description: 'a compatible endpoint instead of Anthropic' }),
  TOOLGATE_OFFLINE_MODEL: flag({
    default: (c) => !c.production,
    defaultDoc: 'true outside production',
    description: 'may start serve the offline development model when no model is configured',
    readme: 'may `start` serve the offline development model when no model is configured',
  }),
  ANTHROPIC_MODEL: text({ default: 'claude-sonnet-5-5', description: 'the model name sent' }),
  ANTHROPIC_MAX_RETRIES: integer({
    default: 2,
    min: 0,
    max: 10,
    description: "the SDK's retries for 429, 529 and 5xx",
    readme: "the SDK's retries for 429, 529 and 5xx; when exhausted the run fails `MODEL_UNAVAILABLE`",
  }),
  ANTHROPIC_MAX_TOKENS: integer({
    default: 1024,
    min: 1,
    max: 64_000,
    description: 'max_tokens per model turn',
    readme: '`max_tokens` per model turn',
  }),
  MODEL_STREAM_RETRIES: integer({
    default: 2,
    min: 0,
    max: 10,
    description: 'retries of a turn whose stream failed (an error event, a stall) before any tool_use began, after 1 s, 2 s, …',
    readme:
      "Toolgate's retries of a turn whose stream failed once it had begun — an `error` event mid-stream (e.g. `overloaded_error`), a stall, a lost connection — before any `tool_use` block began, after 1 s, 2 s, 4 s…; the partial turn is discarded. When they are used up the run fails `MODEL_UNAVAILABLE` (`MODEL_STREAM_STALLED` if the last attempt stalled), its message naming each failure (`The model stream failed 3 times: overloaded_error, …`). A stream that fails after a `tool_use` began is not retried",
  }),
  MODEL_STREAM_IDLE_TIMEOUT_MS: integer({
    default: 60_000,
    min: 1000,
    max: 600_000,
    description: 'no stream event for this long once the response began: the stream is stalled, aborted and retried (then MODEL_STREAM_STALLED)',
    readme:
      'once the response began, no stream event (the SDK does not surface `ping`s) for this long aborts the stream as stalled, retried as `MODEL_STREAM_RETRIES` says',
  }),
  RUN_MAX_TOOL_ROUNDS: integer({
    default: 8,
    min: 1,
    max: 100,
    description: 'tool rounds per user message',
    readme: 'tool rounds per user message before the run fails `TOOL_ROUND_LIMIT`',
  }),
  RUN_MAX_TOOL_ROUNDS_TOTAL: integer({
    default: 40,
    min: 1,
    max: 10_000,
    description: 'tool rounds per run, across every message posted to it',
    readme:
      'tool rounds per run, across every message `postMessage` adds, before the run fails `TOOL_ROUND_LIMIT` (so a run cannot be driven round after round forever, one message at a time)',
  }),
  MODEL_INPUT_PRICE_PER_MTOK: integer({
    default: 3,
    min: 0,
    max: 1000,
    description: 'US dollars per million input tokens',
    readme: "US dollars per million input tokens, for the run's `llmCostUsd`",
  }),
  MODEL_OUTPUT_PRICE_PER_MTOK: integer({
    default: 15,
    min: 0,
    max: 1000,
    description: 'US dollars per million output tokens (thinking tokens are output tokens)',
    readme:
      "US dollars per million output tokens, for the run's `llmCostUsd` (thinking tokens are output tokens: the API counts them in `output_tokens`)",
  }),
  MODEL_CACHE_WRITE_PRICE_PERCENT: integer({
    default: 125,
    min: 0,
    max: 1000,
    description: 'prompt-cache writes (cache_creation_input_tokens), in percent of the input price',
    readme: "prompt-cache writes (`cache_creation_input_tokens`), in percent of the input price (Anthropic's 5-minute cache: 1.25×)",
  }),
  MODEL_CACHE_READ_PRICE_PERCENT: integer({
    default: 10,
    min: 0,
    max: 1000,
    description: 'prompt-cache reads (cache_read_input_tokens), in percent of the input price',
    readme: "prompt-cache reads (`cache_read_input_tokens`), in percent of the input price (Anthropic's: 0.1×)",
  }),
});

const vendorEndpoint = () =>
  url({
    defaultDoc: 'the real vendor',
    description: 'override this vendor endpoint',
    readme: 'override this vendor endpoint (the real vendors are a configuration change)',
  });

/**
 * The endpoint overrides, one per `VendorEndpoint.env` of the vendor handlers (src/vendors/);
 * test/unit/config-variables.test.ts fails when a handler names one missing here.
 */
export const VENDOR_ENDPOINTS = {
  SHOPIFY_ADMIN_URL: vendorEndpoint(),
  AMAZON_LWA_URL: vendorEndpoint(),
  AMAZON_SP_API_URL: vendorEndpoint(),
  JUMIO_AUTH_URL: vendorEndpoint(),
  JUMIO_RETRIEVAL_URL: vendorEndpoint(),
  NANGO_API_URL: vendorEndpoint(),
};

const UNTRUSTED = '(see [Untrusted upstream tools](#untrusted-upstream-tools))';

export const TOOLS = group('Tools and vendors', {
  TOOL_CALLING_KILL_SWITCH: flag({
    default: false,
    description: 'block every tool call (FEATURE_DISABLED)',
    readme: 'global kill switch: every tool call is blocked `FEATURE_DISABLED`',
  }),
  APPROVAL_TTL_SECONDS: integer({
    default: 86_400,
    min: 1,
    max: 30 * 86_400,
    description: 'how long an approval waits before it expires',
    readme: 'how long an approval waits before it expires (`APPROVAL_EXPIRED`)',
  }),
  // The vendor sandboxes are for a first try, not a production start.
  TOOLGATE_VENDOR_SANDBOXES: flag({
    default: (c) => c.embeddedDemo,
    defaultDoc: 'true on the embedded database, outside production',
    description: 'serve the vendor sandboxes in-process',
    readme: 'serve the vendor sandboxes in-process and send vendor calls there',
  }),
  VENDOR_SANDBOX_URL: url({
    description: 'vendor sandboxes of another process (toolgate sandboxes)',
    readme:
      'vendor sandboxes of another process (`toolgate sandboxes`, e.g. `http://127.0.0.1:4020`): each vendor is sent to `<url>/<vendor>`; wins over the in-process sandboxes',
  }),
  VENDOR_TIMEOUT_MS: integer({
    default: 10_000,
    min: 1,
    max: 600_000,
    description: 'per vendor call attempt',
    readme:
      "per attempt; a catalog tool's own timeout wins; also the limit of an upstream MCP server's import. A non-idempotent call that times out is then looked up at the vendor, 2 s later (see [Crashes](#crashes-restarts-and-shutdown))",
  }),
  VENDOR_MAX_RETRIES: integer({
    default: 3,
    min: 0,
    max: 10,
    description: 'retries of idempotent vendor actions',
    readme: 'retries of idempotent actions (exponential backoff with jitter, `Retry-After` honoured up to `VENDOR_RETRY_MAX_DELAY_MS`)',
  }),
  VENDOR_RETRY_BASE_MS: integer({ default: 500, min: 0, max: 60_000, description: 'backoff base' }),
  VENDOR_RETRY_MAX_DELAY_MS: integer({ default: 30_000, min: 0, max: 600_000, description: 'longest Retry-After honoured' }),
  VENDOR_BREAKER_THRESHOLD: integer({
    default: 5,
    min: 1,
    max: 1000,
    description: 'consecutive failures that open the circuit breaker',
    readme: 'consecutive failures that open the circuit breaker (per org and vendor)',
  }),
  VENDOR_BREAKER_HALF_OPEN_MS: integer({ default: 30_000, min: 1, max: 3_600_000, description: 'time before the breaker probes again' }),
  MCP_UPSTREAM_MAX_TOOLS: integer({
    default: 100,
    min: 1,
    max: 1000,
    description: 'tools one upstream MCP server may list',
    readme: `tools one upstream MCP server may list; more refuses the import (\`MCP_SERVER_TOO_MANY_TOOLS\`), nothing changes ${UNTRUSTED}`,
  }),
  MCP_UPSTREAM_MAX_LIST_PAGES: integer({
    default: 10,
    min: 1,
    max: 100,
    description: 'pages of an upstream tools/list followed',
    readme: 'pages of an upstream `tools/list` followed; more refuses the import (`MCP_SERVER_TOO_MANY_PAGES`)',
  }),
  MCP_UPSTREAM_MAX_SCHEMA_BYTES: integer({
    default: 32_768,
    min: 256,
    max: 1_048_576,
    description: "an upstream tool's input schema, JSON bytes",
    readme: "one upstream tool's input schema, as JSON bytes; more refuses the import (`MCP_TOOL_SCHEMA_TOO_LARGE`)",
  }),
  MCP_UPSTREAM_MAX_SCHEMA_DEPTH: integer({
    default: 12,
    min: 2,
    max: 64,
    description: "an upstream tool's input schema's nesting",
    readme: "one upstream tool's input schema's nesting of objects and arrays; more refuses the import (`MCP_TOOL_SCHEMA_TOO_DEEP`)",
  }),
  MCP_UPSTREAM_MAX_RESULT_BYTES: integer({
    default: 262_144,
    min: 1024,
    max: 16_777_216,
    description: "an upstream tool call's result, JSON bytes",
    readme:
      "one upstream tool call's result, as JSON bytes; a larger one is not kept nor shown to the model: the call fails `UPSTREAM_RESULT_TOO_LARGE`",
  }),
  ...VENDOR_ENDPOINTS,
});
