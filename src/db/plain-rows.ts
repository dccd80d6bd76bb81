import type { EntityMetadata, EntityName, EntityProperty, Platform } from '@mikro-orm/core';
import type { EntityManager, FilterQuery, QueryOrderMap } from '@mikro-orm/postgresql';
import type { SqlRunner } from './raw-transaction';

export interface PlainFindOptions<E> {
  orderBy?: QueryOrderMap<E>;
  limit?: number;
}

/**
 * Rows of an entity as plain objects with the values its properties would hold (the ORM's
 * own column mapping and type conversions), for read-only answers. No entity is made: no
 * identity map, no change-tracking snapshot of every JSON column, which were half of a
 * nested list's CPU (docs/benchmarks.md, Reads). What comes back is not managed: never
 * modify it to persist a change; load the entity for that.
 */
export async function findPlain<E extends object>(
  em: EntityManager,
  entity: EntityName<E>,
  where: FilterQuery<E>,
  options: PlainFindOptions<E> = {},
): Promise<E[]> {
  const qb = em.createQueryBuilder(entity).select('*').where(where);
  if (options.orderBy) qb.orderBy(options.orderBy);
  if (options.limit !== undefined) qb.limit(options.limit);
  const rows = (await qb.execute('all')) as Record<string, unknown>[];
  const convert = converter(em, qb.mainAlias.metadata as EntityMetadata<E>);
  if (convert) for (const row of rows) convert(row);
  return rows as E[];
}

/**
 * A hand-written SELECT of one entity's table (`select * from …`), its rows mapped as
 * findPlain maps them. For the reads every nested list makes (the loaders), where building
 * the statement with the query builder cost more CPU than PostgreSQL took to answer it.
 */
export async function queryPlain<E extends object>(
  em: EntityManager,
  sql: SqlRunner,
  entity: EntityName<E>,
  text: string,
  params: unknown[],
): Promise<E[]> {
  const meta = em.getMetadata(entity) as EntityMetadata<E>;
  const driver = em.getDriver();
  const convert = converter(em, meta);
  const rows = await sql.execute<Record<string, unknown>[]>(text, params);
  return rows.map((row) => {
    const mapped = driver.mapResult(row as never, meta) as Record<string, unknown>;
    convert?.(mapped);
    return mapped as E;
  });
}

type Convert = (row: Record<string, unknown>) => void;
const converters = new WeakMap<EntityMetadata, Convert | null>();

/** What the hydrator does on top of the row mapping: custom types' `convertToJSValue` (bigint, …). */
function converter<E>(em: EntityManager, meta: EntityMetadata<E> | undefined): Convert | null {
  if (!meta) return null;
  const known = converters.get(meta as EntityMetadata);
  if (known !== undefined) return known;
  const platform: Platform = em.getPlatform();
  const typed = (meta.props as EntityProperty<E>[]).filter((prop) => prop.customType && prop.fieldNames?.length === 1);
  const convert: Convert | null =
    typed.length === 0
      ? null
      : (row) => {
          for (const prop of typed) {
            const value = row[prop.name];
            if (value !== undefined && value !== null) row[prop.name] = prop.customType!.convertToJSValue(value, platform);
          }
        };
  converters.set(meta as EntityMetadata, convert);
  return convert;
}
