import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import type { EntityName } from '@mikro-orm/core';
import { badInput } from '../errors/app-error';
import { isUuid } from '../db/ids';
import { findPlain } from '../db/plain-rows';
import type { SqlRunner } from '../db/raw-transaction';

/**
 * Keyset pagination for the query services, with no GraphQL in it: the GraphQL types that
 * carry its pages (PageArgs, TimeRange, connectionType) are in ./pagination.ts.
 */
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** Which page: at most `first` items after the cursor `after` (PageArgs in the schema). */
export interface PageRequest {
  first?: number | null;
  after?: string | null;
}

/** A created-at range, from inclusive to exclusive (TimeRange in the schema). */
export interface CreatedRange {
  from?: Date | null;
  to?: Date | null;
}

export interface PageInfoFields {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

export interface Edge<T> {
  cursor: string;
  node: T;
}

export interface Connection<T> {
  edges: Edge<T>[];
  pageInfo: PageInfoFields;
  /** Counted only when the client selects it (a lazy thenable GraphQL awaits). */
  totalCount: PromiseLike<number>;
}

/** How a list is ordered; the cursor holds the sort key of the last row. */
export type PageOrder = 'newest_first' | 'sequence';

interface Keyed {
  id: string;
  createdAt: Date;
  /** Only for the ledger's per-org sequence order. */
  sequence?: string;
}

/**
 * Keyset pagination over (created_at, id) descending, or over the per-org sequence
 * ascending for the ledger (whose queries are always within one org). Fetches one row more than asked to know whether there is a next page.
 * `toNode` gets plain rows (src/db/plain-rows.ts), not managed entities.
 */
export async function paginate<E extends Keyed, N>(
  em: EntityManager,
  entity: EntityName<E>,
  where: FilterQuery<E>,
  args: PageRequest,
  order: PageOrder,
  toNode: (row: E) => N,
): Promise<Connection<N>> {
  const first = pageSize(args);
  const after = args.after ? decodeCursor(args.after, order) : null;
  const pageWhere = after ? ({ $and: [where, after] } as FilterQuery<E>) : where;
  const orderBy = order === 'sequence' ? { sequence: 'asc' } : { createdAt: 'desc', id: 'desc' };
  // Even `first: 0` looks one row ahead, so hasNextPage tells whether anything follows.
  const rows = await findPlain(em, entity, pageWhere, { orderBy: orderBy as never, limit: first + 1 });
  return pageOf(rows, first, order, after, toNode, () => em.count(entity, where));
}

/**
 * The same page, newest first, from a hand-written statement instead of the query builder:
 * for a list every read asks for (the runs page), where building the statement cost as much
 * CPU as the rest of the page. `list` is the filter without the cursor, over the table
 * aliased `alias`; `read` sends the statement with the select list it is given (queryColumns).
 */
export async function paginateSql<E extends Keyed, N>(
  sql: SqlRunner,
  list: { table: string; alias: string; where: string; params: unknown[] },
  args: PageRequest,
  read: (text: (columns: string) => string, params: unknown[]) => Promise<E[]>,
  toNode: (row: E) => N,
): Promise<Connection<N>> {
  const first = pageSize(args);
  const after = args.after ? newestFirstKey(parseCursor(args.after)) : null;
  const { table, alias: a, where, params } = list;
  // (created_at, id) < (the cursor's): the ORM's `created_at < t or (created_at = t and id < k)`, one index range.
  const keyset = after ? ` and (${a}.created_at, ${a}.id) < (?::timestamptz, ?::uuid)` : '';
  const rows = await read(
    (columns) => `select ${columns} from ${table} ${a} where ${where}${keyset} order by ${a}.created_at desc, ${a}.id desc limit ?`,
    [...params, ...(after ?? []), first + 1],
  );
  return pageOf(rows, first, 'newest_first', after, toNode, async () => {
    const [{ n }] = await sql.execute<{ n: number }[]>(`select count(*)::int as n from ${table} ${a} where ${where}`, params);
    return n;
  });
}

function pageOf<E extends Keyed, N>(
  rows: E[],
  first: number,
  order: PageOrder,
  after: unknown,
  toNode: (row: E) => N,
  count: () => Promise<number>,
): Connection<N> {
  const edges = rows.slice(0, first).map((row) => ({ cursor: encodeCursor(row, order), node: toNode(row) }));
  return { edges, pageInfo: pageInfoOf(edges, rows.length > first, after), totalCount: lazy(count) };
}

function pageSize(args: PageRequest): number {
  const first = args.first ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(first) || first < 0 || first > MAX_PAGE_SIZE) {
    throw badInput(`first must be between 0 and ${MAX_PAGE_SIZE}`, { field: 'first' });
  }
  return first;
}

function encodeCursor(row: Keyed, order: PageOrder): string {
  const key = order === 'sequence' ? [String(row.sequence)] : [row.createdAt.toISOString(), row.id];
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string, order: PageOrder): Record<string, unknown> {
  const key = parseCursor(cursor);
  if (order === 'sequence') {
    if (!Array.isArray(key) || key.length !== 1 || typeof key[0] !== 'string' || !/^\d{1,19}$/.test(key[0])) {
      throw invalidCursor();
    }
    if (BigInt(key[0]) > MAX_BIGINT) throw invalidCursor();
    return { sequence: { $gt: key[0] } };
  }
  const [createdAt, id] = newestFirstKey(key);
  return { $or: [{ createdAt: { $lt: createdAt } }, { createdAt, id: { $lt: id } }] };
}

function parseCursor(cursor: string): unknown {
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
}

/** A newest-first cursor's key: the last row's created_at and id. */
function newestFirstKey(key: unknown): [Date, string] {
  if (!Array.isArray(key) || key.length !== 2 || typeof key[0] !== 'string' || typeof key[1] !== 'string') {
    throw invalidCursor();
  }
  const createdAt = new Date(key[0]);
  if (!inTimestampRange(createdAt) || !isUuid(key[1])) {
    throw invalidCursor();
  }
  return [createdAt, key[1]];
}

const MAX_BIGINT = 9_223_372_036_854_775_807n;
// Instants the ORM can send PostgreSQL (ISO years 0001-9999); JavaScript allows wider ones.
const MIN_TIMESTAMP = Date.parse('0001-01-01T00:00:00.000Z');
const MAX_TIMESTAMP = Date.parse('9999-12-31T23:59:59.999Z');

function inTimestampRange(date: Date): boolean {
  const time = date.getTime();
  return !Number.isNaN(time) && time >= MIN_TIMESTAMP && time <= MAX_TIMESTAMP;
}

const invalidCursor = () => badInput('after is not a cursor this list produced', { field: 'after' });

/** A created-at range as an ORM condition, or nothing when the range is open. */
export function createdWithin(range: CreatedRange | null | undefined): Record<string, unknown> {
  if (!range || (!range.from && !range.to)) return {};
  checkRange(range);
  const condition: Record<string, Date> = {};
  if (range.from) condition.$gte = range.from;
  if (range.to) condition.$lt = range.to;
  return { createdAt: condition };
}

/** The same range as SQL over `column`, with its parameters (nothing when the range is open). */
export function createdWithinSql(range: CreatedRange | null | undefined, column: string): { sql: string[]; params: Date[] } {
  if (!range || (!range.from && !range.to)) return { sql: [], params: [] };
  checkRange(range);
  const sql: string[] = [];
  const params: Date[] = [];
  if (range.from) {
    sql.push(`${column} >= ?`);
    params.push(range.from);
  }
  if (range.to) {
    sql.push(`${column} < ?`);
    params.push(range.to);
  }
  return { sql, params };
}

function checkRange(range: CreatedRange): void {
  for (const bound of [range.from, range.to]) {
    if (bound && !inTimestampRange(bound)) {
      throw badInput('created must be between years 0001 and 9999', { field: 'created' });
    }
  }
}

/** A promise-like whose work starts only when something awaits it. */
export function lazy<T>(start: () => Promise<T>): PromiseLike<T> {
  let promise: Promise<T> | undefined;
  return {
    // biome-ignore lint/suspicious/noThenProperty: a thenable on purpose (awaiting it starts the work)
    then: (onFulfilled, onRejected) => (promise ??= start()).then(onFulfilled, onRejected),
  };
}

/** A page's info: its first and last cursors, whether more follow, and whether it started after a cursor. */
export function pageInfoOf(edges: readonly { cursor: string }[], hasNextPage: boolean, after: unknown) {
  return {
    hasNextPage,
    hasPreviousPage: after !== null,
    startCursor: edges[0]?.cursor ?? null,
    endCursor: edges[edges.length - 1]?.cursor ?? null,
  };
}
