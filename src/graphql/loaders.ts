import DataLoader from 'dataloader';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { EntityName } from '@mikro-orm/core';
import { queryPlain } from '../db/plain-rows';
import type { SqlRunner } from '../db/raw-transaction';
import { ToolCall } from '../gateway/tool-call.entity';
import { LedgerEvent } from '../ledger/ledger-event.entity';
import { PolicyDecision } from '../policy/policy-decision.entity';
import { ApprovalRequest } from '../approvals/approval-request.entity';
import { AgentRun } from '../runs/agent-run.entity';
import { Specialist } from '../orgs/specialist.entity';
import { RunMessage } from '../runs/run-message.entity';
import { ApiKey } from '../auth/api-key.entity';

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
  apiKeyById: DataLoader<string, ApiKey | null>;
}

export function createLoaders(em: EntityManager, sql: SqlRunner, orgId: string | null): Loaders {
  const org = orgId ?? '00000000-0000-0000-0000-000000000000';
  // Hand-written statements mapped by the ORM (src/db/plain-rows.ts): they run for every
  // nested list, and the query builder spent more CPU building them than PostgreSQL answering.
  const rows =
    <E extends object>(entity: EntityName<E>, text: string) =>
    (keys: string[]) =>
      queryPlain(em, sql, entity, text, [org, keys]);
  return {
    toolCallsByRun: groupLoader(
      rows(ToolCall, 'select * from tool_calls where org_id = ? and run_id = any(?::uuid[]) order by created_at asc, id asc'),
      (row) => row.runId,
    ),
    ledgerEventsByRun: groupLoader(
      rows(LedgerEvent, 'select * from ledger_events where org_id = ? and run_id = any(?::uuid[]) order by sequence asc'),
      (row) => row.runId ?? '',
    ),
    ledgerEventsByResource: groupLoader(
      rows(LedgerEvent, 'select * from ledger_events where org_id = ? and resource_id = any(?::text[]) order by sequence asc'),
      (row) => row.resourceId ?? '',
    ),
    policyDecisionById: uniqueLoader(
      rows(PolicyDecision, 'select * from policy_decisions where org_id = ? and id = any(?::uuid[])'),
      (row) => row.id,
    ),
    approvalRequestByToolCall: uniqueLoader(
      rows(ApprovalRequest, 'select * from approval_requests where org_id = ? and tool_call_id = any(?::uuid[])'),
      (row) => row.toolCallId,
    ),
    runById: uniqueLoader(rows(AgentRun, 'select * from agent_runs where org_id = ? and id = any(?::uuid[])'), (row) => row.id),
    toolCallById: uniqueLoader(rows(ToolCall, 'select * from tool_calls where org_id = ? and id = any(?::uuid[])'), (row) => row.id),
    messagesByRun: groupLoader(
      rows(RunMessage, 'select * from run_messages where org_id = ? and run_id = any(?::uuid[]) order by position asc'),
      (row) => row.runId,
    ),
    specialistById: uniqueLoader(rows(Specialist, 'select * from specialists where org_id = ? and id = any(?::uuid[])'), (row) => row.id),
    apiKeyById: uniqueLoader(rows(ApiKey, 'select * from api_keys where org_id = ? and id = any(?::uuid[])'), (row) => row.id),
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
