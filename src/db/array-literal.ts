/**
 * A PostgreSQL array as its text literal (`{"a","b",NULL}`), to be cast in SQL (`?::text[]`).
 * Sent as one text parameter because the ORM's `execute` (knex) expands an array parameter
 * into a list of values, while `pg` would encode it: the literal means the same to both.
 * Every element is quoted, with `"` and `\` escaped, as array input syntax requires.
 */
export function arrayLiteral(values: readonly (string | null)[]): string {
  return `{${values.map((value) => (value === null ? 'NULL' : `"${value.replace(/[\\"]/g, '\\$&')}"`)).join(',')}}`;
}
