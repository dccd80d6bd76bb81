import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import type { Caller } from '../auth/caller';
import { ApprovalRequest } from './approval-request.entity';
import { findRun } from '../runs/run-query.service';
import { readableRunIds, readableRunsSql } from '../runs/run-visibility';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, lazy, pageInfoOf, paginate, type Connection } from '../graphql/paging';
import { queryPlain } from '../db/plain-rows';
import { isUuid } from '../db/ids';
import { badInput } from '../errors/app-error';
import { toApprovalRequestType, type ApprovalOrder, type ApprovalRequestType, type ApprovalRequestsArgs } from './approval.types';

/**
 * The approval queue, one page at a time: filtered by status, kind, run, tool, action, the
 * call's `amount` range and `customerId`, ordered by age, time left or risk. Keyset paging:
 * the cursor holds the order and the last row's sort key, so a page never repeats or skips a
 * row that stayed in the list.
 */
export async function listApprovalRequests(em: EntityManager, caller: Caller, args: ApprovalRequestsArgs): Promise<Connection<ApprovalRequestType>> {
  const filter = args.filter ?? {};
  const orgId = caller.orgId;
  if (filter.runId) await findRun(em, caller, filter.runId);
  const orderBy = args.orderBy ?? 'newest';
  const byCall = [filter.toolName, filter.action, filter.amountMin, filter.amountMax, filter.customerId].some((v) => v !== null && v !== undefined);
  if (orderBy === 'newest' && !byCall) {
    // The API's default list, as it always was: the approval rows alone, by (created_at, id).
    // A client reads client approvals and those of its own runs (RUN_SCOPE), never the rest.
    const runs = filter.runId ? null : readableRunIds(em, caller);
    const plain = {
      orgId,
      ...(runs ? { runId: { $in: runs } } : {}),
      ...(filter.status ? { status: filter.status } : {}),
      ...(filter.kind ? { kind: filter.kind } : {}),
      ...(filter.runId ? { runId: filter.runId } : {}),
    };
    return paginate(em, ApprovalRequest, plain as FilterQuery<ApprovalRequest>, args, 'newest_first', toApprovalRequestType);
  }
  const order = ORDERS[orderBy];
  const first = args.first ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(first) || first < 0 || first > MAX_PAGE_SIZE)
    throw badInput(`first must be between 0 and ${MAX_PAGE_SIZE}`, { field: 'first' });
  for (const field of ['amountMin', 'amountMax'] as const) {
    const value = filter[field];
    if (value !== null && value !== undefined && !Number.isFinite(value)) throw badInput(`${field} must be a finite number`, { field });
  }

  const where = ['a.org_id = ?'];
  const params: unknown[] = [orgId];
  const add = (condition: string, ...values: unknown[]) => {
    where.push(condition);
    params.push(...values);
  };
  if (filter.status) add('a.status = ?', filter.status);
  if (filter.kind) add('a.kind = ?', filter.kind);
  if (filter.runId) add('a.run_id = ?', filter.runId);
  const readable = filter.runId ? null : readableRunsSql(caller, 'r');
  if (readable) add(`a.run_id in (select r.id from agent_runs r where r.org_id = ? and ${readable.sql})`, orgId, ...readable.params);
  if (filter.toolName) add('c.tool_name = ?', filter.toolName);
  if (filter.action) add('c.action = ?', filter.action);
  if (filter.amountMin !== null && filter.amountMin !== undefined) add(`${AMOUNT} >= ?`, filter.amountMin);
  if (filter.amountMax !== null && filter.amountMax !== undefined) add(`${AMOUNT} <= ?`, filter.amountMax);
  if (filter.customerId) add("c.input_redacted->>'customerId' = ?", filter.customerId);
  const filtered = [...where];
  const filteredParams = [...params];

  const keys = [...order.keys, { expr: 'a.id', type: 'uuid' as const }];
  const after = args.after ? decodeCursor(args.after, orderBy) : null;
  if (after) {
    const placeholders = keys.map((key) => `?::${CASTS[key.type]}`).join(', ');
    add(`(${keys.map((key) => key.expr).join(', ')}) ${order.desc ? '<' : '>'} (${placeholders})`, ...after);
  }
  const direction = order.desc ? ' desc' : '';
  // The sort keys come back as PostgreSQL's text, so a cursor holds them exactly (microseconds too).
  const rows = await queryPlain(
    em,
    em,
    ApprovalRequest,
    `select a.*, ${keys.map((key, i) => `(${key.expr})::text as sort_${i}`).join(', ')}
       from approval_requests a join tool_calls c on c.id = a.tool_call_id
      where ${where.join(' and ')}
      order by ${keys.map((key) => key.expr + direction).join(', ')} limit ?`,
    [...params, first + 1],
  );
  const page = rows.slice(0, first);
  const edges = page.map((row) => ({
    cursor: encodeCursor(orderBy, row as unknown as Record<string, unknown>, keys.length),
    node: toApprovalRequestType(row),
  }));
  return {
    edges,
    pageInfo: pageInfoOf(edges, rows.length > first, after),
    totalCount: lazy(() =>
      em
        .execute<{ n: string }[]>(
          `select count(*) as n from approval_requests a join tool_calls c on c.id = a.tool_call_id where ${filtered.join(' and ')}`,
          filteredParams,
        )
        .then(([row]) => Number(row.n)),
    ),
  };
}

/** The call's `amount` parameter when it is a number (null otherwise, so a range leaves it out). */
const AMOUNT = "(case when jsonb_typeof(c.input_redacted->'amount') = 'number' then (c.input_redacted->>'amount')::numeric end)";
const RISK_RANK = "(case c.risk_level when 'high' then 3 when 'medium' then 2 when 'low' then 1 else 0 end)";

type KeyType = 'time' | 'number' | 'uuid';
const CASTS: Record<KeyType, string> = { time: 'timestamptz', number: 'numeric', uuid: 'uuid' };

/** Each order's sort keys (the row's id is added last: a total order for keyset paging), all in one direction. */
const ORDERS: Record<ApprovalOrder, { keys: { expr: string; type: KeyType }[]; desc: boolean }> = {
  newest: { keys: [{ expr: 'a.created_at', type: 'time' }], desc: true },
  oldest: { keys: [{ expr: 'a.created_at', type: 'time' }], desc: false },
  time_left: { keys: [{ expr: 'a.expires_at', type: 'time' }], desc: false },
  // The highest risk first (its rank negated, so every key ascends), then the nearest expiry.
  risk: {
    keys: [
      { expr: `-${RISK_RANK}`, type: 'number' },
      { expr: 'a.expires_at', type: 'time' },
    ],
    desc: false,
  },
};

function encodeCursor(order: ApprovalOrder, row: Record<string, unknown>, keys: number): string {
  const values = Array.from({ length: keys }, (_, i) => String(row[`sort_${i}`]));
  return Buffer.from(JSON.stringify([order, ...values]), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string, order: ApprovalOrder): string[] {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  const types = [...ORDERS[order].keys.map((k) => k.type), 'uuid' as const];
  if (!Array.isArray(key) || key.length !== types.length + 1 || key[0] !== order) throw invalidCursor();
  const values = key.slice(1);
  types.forEach((type, i) => {
    const value = values[i];
    const ok =
      typeof value === 'string' &&
      (type === 'uuid'
        ? isUuid(value)
        : type === 'number'
          ? /^-?\d{1,6}$/.test(value)
          : /^\d{4}-\d\d-\d\d[ T][\d:.]+([+-]\d\d(:\d\d)?|Z)?$/.test(value));
    if (!ok) throw invalidCursor();
  });
  return values as string[];
}

const invalidCursor = () => badInput('after is not a cursor this list produced with this orderBy', { field: 'after' });
