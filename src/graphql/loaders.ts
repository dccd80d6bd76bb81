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
import { HISTORY_EVENT_TYPES } from '../approvals/approval-history';

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
  /** The ledger events an approval's history is drawn from, per tool call (approval-history.ts). */
  approvalEventsByToolCall: DataLoader<string, LedgerEvent[]>;
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
      rows(ToolCall, firstOfEach('tool_calls', 'run_id', 'uuid', 'created_at asc, id asc', NESTED_LIST_CAP)),
      (row) => row.runId,
    ),
    ledgerEventsByRun: groupLoader(
      rows(LedgerEvent, firstOfEach('ledger_events', 'run_id', 'uuid', 'sequence asc', NESTED_LIST_CAP)),
      (row) => row.runId ?? '',
    ),
    ledgerEventsByResource: groupLoader(
      rows(LedgerEvent, firstOfEach('ledger_events', 'resource_id', 'text', 'sequence asc', NESTED_LIST_CAP)),
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
    messagesByRun: groupLoader(rows(RunMessage, firstOfEach('run_messages', 'run_id', 'uuid', 'position asc', NESTED_LIST_CAP)), (row) => row.runId),
    specialistById: uniqueLoader(rows(Specialist, 'select * from specialists where org_id = ? and id = any(?::uuid[])'), (row) => row.id),
    apiKeyById: uniqueLoader(rows(ApiKey, 'select * from api_keys where org_id = ? and id = any(?::uuid[])'), (row) => row.id),
    // Capped like every nested list: a call's views (params_viewed) are one event each.
    approvalEventsByToolCall: groupLoader(
      rows(
        LedgerEvent,
        firstOfEach(
          'ledger_events',
          'resource_id',
          'text',
          'sequence asc',
          NESTED_LIST_CAP,
          ` and type in (${HISTORY_EVENT_TYPES.map((t) => `'${t}'`).join(', ')})`,
        ),
      ),
      (row) => row.resourceId ?? '',
    ),
  };
}

/**
 * The most items an unpaginated nested list holds (a run's tool calls, ledger events and
 * messages, a call's ledger events): the first ones, in order. The rest of a run's calls and
 * events are read with the paginated `toolCalls` / `ledgerEvents` (filter `runId`).
 */
export const NESTED_LIST_CAP = 1000;

/**
 * The first `cap` rows of `table` for each key (parameters: the org, the keys), in order:
 * a lateral index scan per key that stops at the cap, however many rows a key has.
 */
function firstOfEach(table: string, keyColumn: string, keyType: 'uuid' | 'text', orderBy: string, cap: number, where = ''): string {
  return `with scope as (select ?::uuid as org_id)
    select * from ${table} where org_id = (select org_id from scope) and id in (
      select first.id from unnest(?::${keyType}[]) as k(key)
      cross join lateral (select id from ${table} where org_id = (select org_id from scope) and ${keyColumn} = k.key${where} order by ${orderBy} limit ${cap}) first)
    order by ${orderBy}`;
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
