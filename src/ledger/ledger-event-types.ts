/** Every ledger event type (ARCHITECTURE.md), plus the admin events of the foundation. */
export const LEDGER_EVENT_TYPES = [
  'run.created',
  'run.started',
  'run.waiting_approval',
  'run.resumed',
  'run.completed',
  'run.failed',
  'run.cancelled',
  'tool_call.requested',
  'tool_call.blocked',
  'tool_call.approval_requested',
  'tool_call.approved',
  'tool_call.rejected',
  'tool_call.expired',
  'tool_call.retried',
  'tool_call.succeeded',
  'tool_call.failed',
  'credential.created',
  'credential.rotated',
  'policy.changed',
  'permission.changed',
  'feature_flag.changed',
  'org.created',
  'specialist.created',
  'api_key.created',
] as const;

export type LedgerEventType = (typeof LEDGER_EVENT_TYPES)[number];
