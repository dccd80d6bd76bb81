import DataLoader from 'dataloader';
import type { EntityManager } from '@mikro-orm/postgresql';
import { findPlain } from '../db/plain-rows';
import { ToolCall } from '../gateway/tool-call.entity';
import { LedgerEvent } from '../ledger/ledger-event.entity';
import { PolicyDecision } from '../policy/policy-decision.entity';
import { ApprovalRequest } from '../approvals/approval-request.entity';
import { AgentRun } from '../runs/agent-run.entity';
import { Specialist } from '../orgs/specialist.entity';
import { RunMessage } from '../runs/run-message.entity';

/**
 * Per-request batch loaders for relations, so a list of N runs with their tool calls,
 * decisions and approvals costs a fixed number of statements. Every loader is also
 * scoped to the caller's org, even though the keys came from org-scoped rows. They answer
 * plain rows (src/db/plain-rows.ts), not managed entities: they are for reading.
 */
export interface Loaders {
  toolCallsByRun: DataLoader<string, ToolCall[]>;
  ledgerEventsByRun: DataLoader<string, LedgerEvent[]>;
  ledgerEventsByResource: DataLoader<string, LedgerEvent[]>;
  policyDecisionById: DataLoader<string, PolicyDecision | null>;
  approvalRequestByToolCall: DataLoader<string, ApprovalRequest | null>;
  runById: DataLoader<string, AgentRun | null>;
  toolCallById: DataLoader<string, ToolCall | null>;
  specialistById: DataLoader<string, Specialist | null>;
  messagesByRun: DataLoader<string, RunMessage[]>;
}

export function createLoaders(em: EntityManager, orgId: string | null): Loaders {
  const org = orgId ?? '00000000-0000-0000-0000-000000000000';
  return {
    toolCallsByRun: groupLoader(
      (runIds) => findPlain(em, ToolCall, { orgId: org, runId: { $in: runIds } }, { orderBy: { createdAt: 'asc', id: 'asc' } }),
      (row) => row.runId,
    ),
    ledgerEventsByRun: groupLoader(
      (runIds) => findPlain(em, LedgerEvent, { orgId: org, runId: { $in: runIds } }, { orderBy: { sequence: 'asc' } }),
      (row) => row.runId ?? '',
    ),
    ledgerEventsByResource: groupLoader(
      (ids) => findPlain(em, LedgerEvent, { orgId: org, resourceId: { $in: ids } }, { orderBy: { sequence: 'asc' } }),
      (row) => row.resourceId ?? '',
    ),
    policyDecisionById: uniqueLoader(
      (ids) => findPlain(em, PolicyDecision, { orgId: org, id: { $in: ids } }),
      (row) => row.id,
    ),
    approvalRequestByToolCall: uniqueLoader(
      (ids) => findPlain(em, ApprovalRequest, { orgId: org, toolCallId: { $in: ids } }),
      (row) => row.toolCallId,
    ),
    runById: uniqueLoader(
      (ids) => findPlain(em, AgentRun, { orgId: org, id: { $in: ids } }),
      (row) => row.id,
    ),
    toolCallById: uniqueLoader(
      (ids) => findPlain(em, ToolCall, { orgId: org, id: { $in: ids } }),
      (row) => row.id,
    ),
    messagesByRun: groupLoader(
      (runIds) => findPlain(em, RunMessage, { orgId: org, runId: { $in: runIds } }, { orderBy: { position: 'asc' } }),
      (row) => row.runId,
    ),
    specialistById: uniqueLoader(
      (ids) => findPlain(em, Specialist, { orgId: org, id: { $in: ids } }),
      (row) => row.id,
    ),
  };
}

function groupLoader<T>(fetch: (keys: string[]) => Promise<T[]>, keyOf: (row: T) => string): DataLoader<string, T[]> {
  return new DataLoader(async (keys) => {
    const rows = await fetch([...keys]);
    const groups = new Map<string, T[]>();
    for (const row of rows) {
      const list = groups.get(keyOf(row));
      if (list) list.push(row);
      else groups.set(keyOf(row), [row]);
    }
    return keys.map((key) => groups.get(key) ?? []);
  });
}

function uniqueLoader<T>(fetch: (keys: string[]) => Promise<T[]>, keyOf: (row: T) => string): DataLoader<string, T | null> {
  return new DataLoader(async (keys) => {
    const rows = await fetch([...keys]);
    const byKey = new Map(rows.map((row) => [keyOf(row), row]));
    return keys.map((key) => byKey.get(key) ?? null);
  });
}
