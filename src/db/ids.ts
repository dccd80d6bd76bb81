const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs; anything else cannot name a row (and must not reach a uuid cast). */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}
