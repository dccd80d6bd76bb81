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

/**
 * A hand-written SELECT of some of an entity's properties: `text` gets the select list,
 * each column under its property's name (`"run_id" as "runId"`), so `pg`'s rows are already
 * what queryPlain maps (test/db/plain-rows.test.ts compares the two for every entity). For
 * the lists every nested read makes, where mapping `select *` rows through the ORM cost more
 * than reading the columns (docs/benchmarks.md, "Reads, rows (item 3)").
 */
export async function queryColumns<E extends object, K extends keyof E & string>(
  em: EntityManager,
  sql: SqlRunner,
  entity: EntityName<E>,
  props: readonly K[],
  text: (columns: string) => string,
  params: unknown[],
): Promise<Pick<E, K>[]> {
  const read = columnsRead(em, em.getMetadata(entity) as EntityMetadata<E>, props);
  const rows = await sql.execute<Record<string, unknown>[]>(text(read.list), params);
  for (const row of rows) read.convert(row);
  return rows as Pick<E, K>[];
}

interface ColumnsRead {
  /** `"column" as "property", …` */
  list: string;
  /** What the ORM's row mapping does to these values on top of renaming them. */
  convert: Convert;
}

// By entity and list of names (a module constant of the feature that reads them): built once.
const columnsReads = new WeakMap<EntityMetadata, WeakMap<readonly string[], ColumnsRead>>();

function columnsRead<E>(em: EntityManager, meta: EntityMetadata<E>, names: readonly string[]): ColumnsRead {
  let ofEntity = columnsReads.get(meta as EntityMetadata);
  if (!ofEntity) columnsReads.set(meta as EntityMetadata, (ofEntity = new WeakMap()));
  const known = ofEntity.get(names);
  if (known) return known;
  const props = names.map((name) => {
    const prop = (meta.properties as Record<string, EntityProperty<E> | undefined>)[name];
    if (!prop || prop.persist === false || prop.fieldNames?.length !== 1) throw new Error(`${meta.className}.${name} is not one column`);
    return prop;
  });
  const list = props.map(({ name, fieldNames: [column] }) => (column === name ? `"${column}"` : `"${column}" as "${name}"`)).join(', ');
  const platform: Platform = em.getPlatform();
  const dates = props.filter((prop) => prop.runtimeType === 'Date' && !platform.isNumericProperty(prop)).map((prop) => prop.name);
  const booleans = props.filter((prop) => prop.runtimeType === 'boolean').map((prop) => prop.name);
  const typed = converter(em, meta);
  const toDate = dateParser(platform);
  const convert: Convert = (row) => {
    for (const name of dates) row[name] = toDate(row[name]);
    for (const name of booleans) if (row[name] != null) row[name] = !!row[name];
    typed?.(row);
  };
  const read = { list, convert };
  ofEntity.set(names, read);
  return read;
}

/**
 * The ORM's reading of a date column (its compiled result mapper, EntityComparator's
 * getResultMapper: the driver hands timestamps over as text): the platform's parseDate,
 * with the configured time zone appended to a value without one. Kept beside the test that
 * compares queryColumns with em.find for every entity (test/db/plain-rows.test.ts).
 */
function dateParser(platform: Platform): (value: unknown) => unknown {
  const tz = platform.getTimezone();
  const local = !tz || tz === 'local';
  return (value) => {
    if (value == null || value instanceof Date) return value;
    if (typeof value === 'bigint') return platform.parseDate(Number(value));
    const text = value as string | number;
    if (local || typeof text === 'number' || text.includes('+') || text.lastIndexOf('-') > 10 || text.endsWith('Z')) {
      return platform.parseDate(text);
    }
    return platform.parseDate(text + tz);
  };
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
