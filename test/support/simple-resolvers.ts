import { getMetadataStorage } from 'type-graphql';

/**
 * What decides whether type-graphql guards a field of an object type: a field it builds
 * with `simpleResolvers` (on the type, or `simple` on the field) and without a field
 * resolver gets graphql-js's own resolver, so neither its auth checker nor any middleware
 * runs for it.
 */
export interface FieldFacts {
  /** The schema coordinate, `Type.field`. */
  coordinate: string;
  /** Resolved by graphql-js's default resolver: no auth checker, no middleware. */
  plain: boolean;
  /** `@Authorized(...)` on the field. */
  authorized: boolean;
  /** `@UseMiddleware(...)` on the field. */
  middleware: boolean;
}

/** Every field of every object type as type-graphql builds it (read once the schema is built). */
export function fieldFacts(storage = getMetadataStorage()): FieldFacts[] {
  return storage.objectTypes.flatMap((type) =>
    (type.fields ?? []).map((field) => {
      const simple = field.simple ?? type.simpleResolvers ?? false;
      // As type-graphql's schema generator matches a field with its resolver.
      const resolved = storage.fieldResolvers.some((r) => r.getObjectType?.() === field.target && r.methodName === field.name);
      return {
        coordinate: `${type.name}.${field.schemaName}`,
        plain: simple && !resolved,
        authorized: storage.authorizedFields.some((a) => a.target === field.target && a.fieldName === field.name),
        middleware: storage.middlewares.some((m) => m.target === field.target && m.fieldName === field.name),
      };
    }),
  );
}

/**
 * The plain fields that carry a restriction the parent type does not: `@Authorized`, a
 * middleware, or an entry of their own in the access matrix. Each would be readable by
 * anyone who can read the parent, because nothing runs to refuse it.
 */
export function unguardedRestrictions(facts: FieldFacts[], restricted: (coordinate: string) => boolean): string[] {
  return facts.filter((f) => f.plain && (f.authorized || f.middleware || restricted(f.coordinate))).map((f) => f.coordinate);
}
