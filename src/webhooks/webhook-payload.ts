import type { EntityManager } from '@mikro-orm/postgresql';
import { LedgerEvent } from '../ledger/ledger-event.entity';
import { ToolCall } from '../gateway/tool-call.entity';
import { PolicyDecision } from '../policy/policy-decision.entity';
import type { WebhookEventType } from './webhook-events';
import { ApiKey } from '../auth/api-key.entity';

/**
 * What a receiver is sent: `{ type, timestamp, data }` (the Standard Webhooks shape). Ids and
 * summaries only — never a call's parameters or results, which may hold what the ledger
 * redacts; the receiver reads details through the API with its own key.
 */
export interface WebhookPayload {
  type: WebhookEventType;
  /** When the event happened (the ledger event's time). */
  timestamp: string;
  data: Record<string, unknown>;
}

/** The payload of a delivery, from its ledger event (immutable) and the call it is about. */
export async function buildWebhookPayload(em: EntityManager, type: WebhookEventType, ledgerEventId: string): Promise<WebhookPayload> {
  const event = await em.findOneOrFail(LedgerEvent, { id: ledgerEventId });
  const timestamp = event.createdAt.toISOString();
  const meta = event.metadata;
  if (type === 'run.completed' || type === 'run.failed') {
    const data: Record<string, unknown> = { orgId: event.orgId, runId: event.runId, status: type === 'run.completed' ? 'completed' : 'failed' };
    if (typeof meta.errorCode === 'string') data.errorCode = meta.errorCode;
    return { type, timestamp, data };
  }
  if (type === 'mcp_tool.drifted') {
    // Catalog names and which of their fields changed: never the upstream's text itself.
    return { type, timestamp, data: { orgId: event.orgId, serverId: event.resourceId, server: meta.server ?? null, tools: meta.tools ?? [] } };
  }
  const call = await em.findOneOrFail(ToolCall, { id: event.resourceId! });
  const data: Record<string, unknown> = {
    orgId: event.orgId,
    runId: event.runId,
    approvalId: meta.approvalRequestId ?? null,
    toolCallId: call.id,
    tool: call.toolName,
    action: call.action,
    risk: call.riskLevel,
    kind: meta.kind ?? null,
  };
  if (type === 'approval.requested') {
    const decision = call.policyDecisionId ? await em.findOne(PolicyDecision, { id: call.policyDecisionId }) : null;
    Object.assign(data, { decision: decision?.outcome ?? null, status: 'pending', expiresAt: meta.expiresAt ?? null });
  } else if (type === 'approval.resolved') {
    const approved = event.type === 'tool_call.approved';
    // The resolver's own words: `reason` on an approval, `note` on a rejection (whose reason is the code's).
    const said = approved ? meta.reason : meta.note;
    Object.assign(data, { decision: approved ? 'approved' : 'rejected', status: approved ? 'approved' : 'rejected' });
    if (typeof said === 'string' && said !== '') data.reason = said;
    data.resolvedBy = await resolvedBy(em, event);
  } else if (type === 'approval.escalated') {
    // The step it moved to, who is paged (role and group), and how long that step lasts.
    Object.assign(data, {
      status: 'pending',
      step: meta.step ?? null,
      steps: meta.steps ?? null,
      role: meta.role ?? null,
      group: meta.group ?? null,
      stepEndsAt: meta.stepEndsAt ?? null,
      expiresAt: meta.expiresAt ?? null,
    });
  } else {
    Object.assign(data, { decision: null, status: 'expired', reason: 'approval_expired' });
  }
  return { type, timestamp, data };
}

/**
 * Who resolved an approval, as the ledger recorded it: a person (issuer, subject, and the
 * name when the org records names) or a key (its id and name).
 */
async function resolvedBy(em: EntityManager, event: LedgerEvent): Promise<Record<string, unknown> | null> {
  const person = event.metadata.person as Record<string, unknown> | undefined;
  if (person && typeof person.subject === 'string') return { type: 'person', ...person, role: event.actorRole };
  if (!event.actorKeyId) return null;
  const key = await em.findOne(ApiKey, { id: event.actorKeyId, orgId: event.orgId });
  return { type: 'key', keyId: event.actorKeyId, name: key?.name ?? null, role: event.actorRole };
}
