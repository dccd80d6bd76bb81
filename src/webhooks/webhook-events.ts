import type { LedgerEventType } from '../ledger/ledger-event-types';

/** The event types an endpoint may subscribe to (Standard Webhooks `type`). */
export const WEBHOOK_EVENT_TYPES = [
  'approval.requested',
  'approval.resolved',
  'approval.expired',
  'approval.escalated',
  'run.completed',
  'run.failed',
  'mcp_tool.drifted',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * Which ledger event becomes which webhook. The database trigger of the migration
 * `…_webhooks` (toolgate_webhook_enqueue) holds the same mapping, so the delivery rows
 * are written in the very statement that appends the event; test/webhooks checks that
 * the two agree.
 */
export const WEBHOOK_OF_LEDGER_EVENT: Readonly<Partial<Record<LedgerEventType, WebhookEventType>>> = {
  'tool_call.approval_requested': 'approval.requested',
  'tool_call.approved': 'approval.resolved',
  'tool_call.rejected': 'approval.resolved',
  'tool_call.expired': 'approval.expired',
  'approval.escalated': 'approval.escalated',
  'run.completed': 'run.completed',
  'run.failed': 'run.failed',
  'mcp_tool.drifted': 'mcp_tool.drifted',
};
