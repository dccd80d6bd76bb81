/**
 * The stable error codes of Toolgate (ARCHITECTURE.md). Clients, the ledger and tests
 * rely on these strings; messages may change, codes may not.
 *
 * Every code has an entry in ERROR_CATALOG, so adding a code without deciding how it is
 * exposed fails to compile.
 */
export const ERROR_CODES = [
  // API
  'UNAUTHENTICATED',
  'ORG_SUSPENDED',
  'FORBIDDEN',
  'NOT_FOUND',
  'BAD_USER_INPUT',
  'CONFLICT',
  'IDEMPOTENCY_KEY_REUSED',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_ALLOWED',
  'RATE_LIMITED',
  // People (README, Identity): a console sign-in that cannot complete, a cookie request without its CSRF token
  'SIGN_IN_FAILED',
  'CSRF_REFUSED',
  // Fair-use caps (README, Security model): what a key or org may hold open at once
  'MCP_SESSION_LIMIT',
  'MCP_RUN_LIMIT',
  'SOCKET_LIMIT',
  'SUBSCRIPTION_LIMIT',
  'LEDGER_VERIFY_BUSY',
  // Request limits (src/api/limits.ts): the operation is refused before execution
  'QUERY_TOO_DEEP',
  'QUERY_TOO_COSTLY',
  'TOO_MANY_ALIASES',
  'TOO_MANY_DIRECTIVES',
  'TOO_MANY_TOKENS',
  'PAYLOAD_TOO_LARGE',
  'BATCHING_NOT_SUPPORTED',
  'SUBSCRIPTION_OVER_HTTP',
  'INTERNAL_SERVER_ERROR',
  'SERVICE_UNAVAILABLE',
  // Runs and approvals
  'RUN_NOT_ACTIVE',
  'APPROVALS_PENDING',
  'APPROVAL_ALREADY_RESOLVED',
  'APPROVAL_ALREADY_VOTED',
  'APPROVAL_EDIT_ESCALATES',
  'TOO_MANY_APPROVALS',
  'APPROVAL_EDIT_REDACTED_VALUE',
  'REVIEW_NOT_REQUIRED',
  'REVIEW_ALREADY_ACKNOWLEDGED',
  'RUN_CANCELLED',
  'RUN_BUSY',
  'RUN_NOT_YOURS',
  'SUBSCRIBER_TOO_SLOW',
  // Upstream MCP servers (admin)
  'MCP_SERVER_NAME_TAKEN',
  'MCP_SERVER_UNREACHABLE',
  // Tenant URLs (webhook endpoints, upstream MCP servers)
  'EGRESS_REFUSED',
  'MCP_SERVER_TOO_MANY_TOOLS',
  'MCP_SERVER_TOO_MANY_PAGES',
  'MCP_TOOL_SCHEMA_TOO_LARGE',
  'MCP_TOOL_SCHEMA_TOO_DEEP',
  'MODEL_UNAVAILABLE',
  'MODEL_ERROR',
  'MODEL_STREAM_STALLED',
  'MODEL_REFUSED',
  'TOOL_ROUND_LIMIT',
  'INVALID_THINKING_BUDGET',
  // Policy replay (simulatePolicy, `toolgate policy simulate`)
  'SIMULATION_RANGE_TOO_LARGE',
  'POLICY_REPLAY_REQUIRED',
  // Gateway
  'FEATURE_DISABLED',
  'NOT_IN_MANIFEST',
  'POLICY_BLOCKED',
  'POLICY_OUTCOME_UNKNOWN',
  'EXPERT_REJECTED',
  'CLIENT_REJECTED',
  'APPROVAL_EXPIRED',
  'INVALID_TOOL_INPUT',
  'TOOL_INPUT_TRUNCATED',
  'CREDENTIALS_NOT_FOUND',
  'CREDENTIALS_UNREADABLE',
  'VENDOR_ERROR',
  'VENDOR_TIMEOUT',
  'VENDOR_RATE_LIMITED',
  'CIRCUIT_OPEN',
  'UPSTREAM_RESULT_TOO_LARGE',
  // Recovery: a call interrupted by a crash, a shutdown or a database outage, or a non-idempotent
  // attempt whose outcome was uncertain (a timeout, a reset after sending, a 5xx), settled by asking the vendor
  'VENDOR_NOT_PERFORMED',
  'VENDOR_OUTCOME_UNKNOWN',
  // The `toolgate` command's operational failures (exit 1; src/cli/failure.ts)
  'DATABASE_UNREACHABLE',
  'PORT_IN_USE',
  'CHECKPOINT_INVALID',
  'CHECKPOINT_SIGNATURE_INVALID',
  'LEDGER_EXPORT_INVALID',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

interface ErrorSpec {
  /** HTTP status when the error ends a whole request (GraphQL field errors stay 200). */
  httpStatus: number;
  /** The fixed sentence a model is told; never vendor text. */
  modelMessage?: string;
}

const VENDOR_FAILURE = 'Tool execution failed due to a temporary service issue';

export const ERROR_CATALOG: Record<ErrorCode, ErrorSpec> = {
  UNAUTHENTICATED: { httpStatus: 401 },
  // Every key of a suspended org, and its runs' tool calls (refused, never recorded: the
  // runtime fails the run instead of telling the model), until `toolgate org resume`.
  ORG_SUSPENDED: { httpStatus: 403 },
  FORBIDDEN: { httpStatus: 403 },
  NOT_FOUND: { httpStatus: 404 },
  BAD_USER_INPUT: { httpStatus: 400 },
  CONFLICT: { httpStatus: 409 },
  // The issuer's answer cannot be used (expired or replayed state, another browser, an issuer error); nothing was signed in.
  SIGN_IN_FAILED: { httpStatus: 400 },
  // A request authenticated by the session cookie without the session's CSRF token, or from another origin.
  CSRF_REFUSED: { httpStatus: 403 },
  // Another key owns the run (opened it, or was handed it): only the owner drives it; nothing changed.
  RUN_NOT_YOURS: { httpStatus: 403 },
  // A key (toolUseId, a model's tool_use id, an MCP client's key) already names another call
  // (another tool, action or params): refused and recorded, nothing runs (as Stripe answers 409).
  IDEMPOTENCY_KEY_REUSED: {
    httpStatus: 409,
    modelMessage: 'This tool_use id was already used for a different tool call; nothing ran. Use a new id for a new call',
  },
  PERSISTED_QUERY_NOT_FOUND: { httpStatus: 400 },
  PERSISTED_QUERY_NOT_ALLOWED: { httpStatus: 400 },
  RATE_LIMITED: { httpStatus: 429 },
  // A cap on what is held open (sessions, runs, sockets, subscriptions): free one and retry.
  MCP_SESSION_LIMIT: { httpStatus: 429 },
  MCP_RUN_LIMIT: { httpStatus: 429 },
  SOCKET_LIMIT: { httpStatus: 429 },
  SUBSCRIPTION_LIMIT: { httpStatus: 429 },
  // Another verifyLedger of the same org is running (one at a time per org): retry when it ended.
  LEDGER_VERIFY_BUSY: { httpStatus: 409 },
  QUERY_TOO_DEEP: { httpStatus: 400 },
  QUERY_TOO_COSTLY: { httpStatus: 400 },
  TOO_MANY_ALIASES: { httpStatus: 400 },
  TOO_MANY_DIRECTIVES: { httpStatus: 400 },
  TOO_MANY_TOKENS: { httpStatus: 400 },
  PAYLOAD_TOO_LARGE: { httpStatus: 413 },
  BATCHING_NOT_SUPPORTED: { httpStatus: 400 },
  // A subscription operation sent over HTTP: it is served over graphql-ws only.
  SUBSCRIPTION_OVER_HTTP: { httpStatus: 400 },
  INTERNAL_SERVER_ERROR: { httpStatus: 500 },
  // Retryable: the database is unreachable or the node is shutting down (with Retry-After).
  SERVICE_UNAVAILABLE: { httpStatus: 503 },
  RUN_NOT_ACTIVE: { httpStatus: 409 },
  APPROVALS_PENDING: { httpStatus: 409 },
  APPROVAL_ALREADY_RESOLVED: { httpStatus: 409 },
  // A quorum approval: this person (or key) already approved these params; another approver is needed.
  APPROVAL_ALREADY_VOTED: { httpStatus: 409 },
  // An approval's edited params would need another approver, a higher risk, or are blocked: nothing changed.
  // resolveApprovals named more than MAX_BULK_APPROVALS: nothing was resolved.
  TOO_MANY_APPROVALS: { httpStatus: 400 },
  APPROVAL_EDIT_ESCALATES: { httpStatus: 409 },
  // An edit holds a redaction marker where the stored params hide nothing to keep (or changes a hidden value in part): nothing changed.
  APPROVAL_EDIT_REDACTED_VALUE: { httpStatus: 400 },
  // acknowledgeReview of a call nobody flagged for review, or one already acknowledged: nothing changed.
  REVIEW_NOT_REQUIRED: { httpStatus: 409 },
  REVIEW_ALREADY_ACKNOWLEDGED: { httpStatus: 409 },
  RUN_BUSY: { httpStatus: 409 },
  SUBSCRIBER_TOO_SLOW: { httpStatus: 429 },
  MCP_SERVER_NAME_TAKEN: { httpStatus: 409 },
  // The import could not list the upstream's tools (connection, HTTP status, protocol): nothing changed.
  MCP_SERVER_UNREACHABLE: { httpStatus: 502 },
  // A tenant URL's host is refused by the egress policy, does not resolve, redirects or cannot be connected to: one code for all.
  EGRESS_REFUSED: { httpStatus: 422 },
  // An upstream server past a cap (config `upstream`, README "Untrusted upstream tools"): the import is refused, nothing changed.
  MCP_SERVER_TOO_MANY_TOOLS: { httpStatus: 422 },
  MCP_SERVER_TOO_MANY_PAGES: { httpStatus: 422 },
  MCP_TOOL_SCHEMA_TOO_LARGE: { httpStatus: 422 },
  MCP_TOOL_SCHEMA_TOO_DEEP: { httpStatus: 422 },
  RUN_CANCELLED: { httpStatus: 409, modelMessage: 'The run was cancelled before this tool call ran' },
  MODEL_UNAVAILABLE: { httpStatus: 503 },
  MODEL_ERROR: { httpStatus: 502 },
  // The model's stream went silent (MODEL_STREAM_IDLE_TIMEOUT_MS) on its last attempt: the run fails with it.
  MODEL_STREAM_STALLED: { httpStatus: 504 },
  // The model declined to answer (stop_reason refusal): the run fails with it; the refused turn is never sent back.
  MODEL_REFUSED: { httpStatus: 422 },
  TOOL_ROUND_LIMIT: { httpStatus: 500 },
  // A specialist's thinking budget outside what the API takes (1024 up) and Toolgate allows (32000): nothing changed.
  INVALID_THINKING_BUDGET: { httpStatus: 400 },
  // A policy replay's [from, to) spans more than 92 days: nothing was read; replay shorter ranges.
  SIMULATION_RANGE_TOO_LARGE: { httpStatus: 400 },
  // The org requires a replay before a policy change: none given, or not of this exact draft against the current version within 24 h. Nothing changed.
  POLICY_REPLAY_REQUIRED: { httpStatus: 409 },
  FEATURE_DISABLED: { httpStatus: 403, modelMessage: 'Tool execution is not enabled for this organization' },
  NOT_IN_MANIFEST: {
    httpStatus: 403,
    modelMessage: 'The requested tool is not available in this conversation context',
  },
  POLICY_BLOCKED: { httpStatus: 403, modelMessage: 'Tool execution was blocked by policy' },
  // The policy decided something this server does not know (src/policy/policy-outcomes.ts): it fails closed.
  POLICY_OUTCOME_UNKNOWN: { httpStatus: 403, modelMessage: 'Tool execution was blocked by policy' },
  EXPERT_REJECTED: { httpStatus: 403, modelMessage: 'Tool execution was rejected by an expert' },
  CLIENT_REJECTED: { httpStatus: 403, modelMessage: 'Tool execution was rejected by the client' },
  APPROVAL_EXPIRED: { httpStatus: 403, modelMessage: 'Tool execution approval expired before a decision' },
  INVALID_TOOL_INPUT: { httpStatus: 400, modelMessage: 'The tool input was invalid' },
  // The model stopped (max_tokens) while writing the tool_use: its input is incomplete, so it never runs.
  TOOL_INPUT_TRUNCATED: {
    httpStatus: 400,
    modelMessage:
      'The tool input was cut off before it was complete (the reply reached its token limit); nothing ran. Send the call again with its complete input',
  },
  CREDENTIALS_NOT_FOUND: { httpStatus: 424, modelMessage: 'Tool execution failed: integration not configured' },
  CREDENTIALS_UNREADABLE: { httpStatus: 500, modelMessage: 'Tool execution failed: integration not configured' },
  VENDOR_ERROR: { httpStatus: 502, modelMessage: VENDOR_FAILURE },
  VENDOR_TIMEOUT: { httpStatus: 504, modelMessage: VENDOR_FAILURE },
  VENDOR_RATE_LIMITED: { httpStatus: 429, modelMessage: VENDOR_FAILURE },
  CIRCUIT_OPEN: { httpStatus: 503, modelMessage: VENDOR_FAILURE },
  // The upstream answered, with more than MCP_UPSTREAM_MAX_RESULT_BYTES: the result is neither kept nor shown.
  UPSTREAM_RESULT_TOO_LARGE: {
    httpStatus: 502,
    modelMessage: 'The tool ran, but its result was larger than Toolgate accepts, so it was not kept. Do not repeat the call to get it',
  },
  VENDOR_NOT_PERFORMED: {
    httpStatus: 503,
    modelMessage: 'Tool execution was interrupted before the action happened; the vendor confirms it was not performed, so it may be requested again',
  },
  VENDOR_OUTCOME_UNKNOWN: {
    httpStatus: 502,
    modelMessage:
      'Tool execution was interrupted and the vendor could not confirm the outcome: the action may have happened. Do not repeat it until a person has checked',
  },
  // Never sent to API clients (a request meets SERVICE_UNAVAILABLE): the CLI prints them.
  DATABASE_UNREACHABLE: { httpStatus: 503 },
  PORT_IN_USE: { httpStatus: 500 },
  CHECKPOINT_INVALID: { httpStatus: 400 },
  CHECKPOINT_SIGNATURE_INVALID: { httpStatus: 400 },
  LEDGER_EXPORT_INVALID: { httpStatus: 400 },
};

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}
