import { registerEnumType } from 'type-graphql';

/**
 * A GraphQL enum that mirrors a domain's string union value for value (lowercase, as
 * stored and as written in the ledger), so no mapping table can drift. Each domain
 * registers its own, beside its GraphQL types.
 */
export function graphqlEnum<T extends string>(values: readonly T[], name: string, description?: string): Record<T, T> {
  const enumObject = Object.fromEntries(values.map((v) => [v, v])) as Record<T, T>;
  registerEnumType(enumObject, { name, ...(description ? { description } : {}) });
  return enumObject;
}
