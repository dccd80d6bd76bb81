import DataLoader from 'dataloader';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { EntityName } from '@mikro-orm/core';
import { queryColumns, queryPlain } from '../db/plain-rows';
import type { SqlRunner } from '../db/raw-transaction';

/**
 * The building blocks of the per-request batch loaders (RequestLoaders in ./context.ts):
 * each feature writes its own loaders from them, and src/app/loaders.ts assembles one set
 * per request. They batch relations, so a list of N runs with their tool calls, decisions
 * and approvals costs a fixed number of statements; every statement is scoped to the
 * caller's org, even though the keys came from org-scoped rows. They answer plain rows
 * (src/db/plain-rows.ts), not managed entities: they are for reading.
 */

/** Rows of `entity` for a batch of keys: a statement whose parameters are the caller's org, then the keys. */
export interface OrgRows {
  /** Every column (`select * from …`), mapped by the ORM. */
  <E extends object>(entity: EntityName<E>, text: string): (keys: string[]) => Promise<E[]>;
  /** Only `props` (a module constant): `text` gets their select list (queryColumns), no ORM mapping. */
  columns<E extends object, K extends keyof E & string>(
    entity: EntityName<E>,
    props: readonly K[],
    text: (columns: string) => string,
  ): (keys: string[]) => Promise<Pick<E, K>[]>;
}

export function orgRows(em: EntityManager, sql: SqlRunner, orgId: string | null): OrgRows {
  const org = orgId ?? '00000000-0000-0000-0000-000000000000';
  // Hand-written statements (src/db/plain-rows.ts): they run for every nested list, and the
  // query builder spent more CPU building them than PostgreSQL answering.
  const rows =
    <E extends object>(entity: EntityName<E>, text: string) =>
    (keys: string[]) =>
      queryPlain(em, sql, entity, text, [org, keys]);
  return Object.assign(rows, {
    columns:
      <E extends object, K extends keyof E & string>(entity: EntityName<E>, props: readonly K[], text: (columns: string) => string) =>
      (keys: string[]) =>
        queryColumns(em, sql, entity, props, text, [org, keys]),
  });
}

/**
 * The most items an unpaginated nested list holds (a run's tool calls, ledger events and
 * messages, a call's ledger events): the first ones, in order. The rest of a run's calls and
 * events are read with the paginated `toolCalls` / `ledgerEvents` (filter `runId`).
 */
export const NESTED_LIST_CAP = 1000;

/**
 * The first `cap` rows of `table` for each key (parameters: the org, the keys), in order:
 * a lateral index scan per key that stops at the cap, however many rows a key has. `columns`:
 * the select list (OrgRows.columns gives it), every column by default.
 */
export function firstOfEach(
  table: string,
  keyColumn: string,
  keyType: 'uuid' | 'text',
  orderBy: string,
  cap: number,
  where = '',
  columns = '*',
): string {
  return `with scope as (select ?::uuid as org_id)
    select ${columns} from ${table} where org_id = (select org_id from scope) and id in (
      select first.id from unnest(?::${keyType}[]) as k(key)
      cross join lateral (select id from ${table} where org_id = (select org_id from scope) and ${keyColumn} = k.key${where} order by ${orderBy} limit ${cap}) first)
    order by ${orderBy}`;
}

export function groupLoader<T>(fetch: (keys: string[]) => Promise<T[]>, keyOf: (row: T) => string): DataLoader<string, T[]> {
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

export function uniqueLoader<T>(fetch: (keys: string[]) => Promise<T[]>, keyOf: (row: T) => string): DataLoader<string, T | null> {
  return new DataLoader(async (keys) => {
    const rows = await fetch([...keys]);
    const byKey = new Map(rows.map((row) => [keyOf(row), row]));
    return keys.map((key) => byKey.get(key) ?? null);
  });
}
