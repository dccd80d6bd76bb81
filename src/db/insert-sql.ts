import { JsonType, ReferenceKind } from '@mikro-orm/core';
import type { MetadataStorage } from '@mikro-orm/core';

interface Column {
  property: string;
  json: boolean;
}

const shapes = new Map<string, { sql: string; columns: Column[] }>();

/**
 * A plain INSERT of a new entity's row, from its metadata, to travel with a ledger append
 * (`appendLedgerEvents(…, joined)`) instead of costing a round trip of its own. The entity
 * is built detached (`new Entity()`), so its defaults are set; the statement's shape is
 * made once per entity class.
 */
export function insertSql(metadata: MetadataStorage, entityName: string, entity: object): { sql: string; params: unknown[] } {
  let shape = shapes.get(entityName);
  if (!shape) {
    const meta = metadata.get(entityName);
    const columns: Column[] = [];
    const names: string[] = [];
    for (const prop of meta.props) {
      if (prop.persist === false || !(prop.kind === ReferenceKind.SCALAR || prop.kind === ReferenceKind.MANY_TO_ONE)) continue;
      columns.push({ property: prop.name, json: prop.customType instanceof JsonType });
      names.push(`"${prop.fieldNames[0]}"`);
    }
    shape = { sql: `insert into "${meta.tableName}" (${names.join(', ')}) values (${names.map(() => '?').join(', ')})`, columns };
    shapes.set(entityName, shape);
  }
  const row = entity as Record<string, unknown>;
  const params = shape.columns.map(({ property, json }) => {
    const value = row[property] ?? null;
    return json && value !== null ? JSON.stringify(value) : value;
  });
  return { sql: shape.sql, params };
}
