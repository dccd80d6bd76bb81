import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json';

/**
 * What an event's hash covers (docs/ledger.md has the canonical form for re-implementers).
 *
 * Version 2 (every event appended since the ledger_heads migration): SHA-256 over the
 * canonical JSON (RFC 8785: keys sorted, no whitespace) of an object holding every stored
 * column but `hash`, keyed by column name, each in the text form PostgreSQL stores it as:
 * so no column (the id and the microseconds of the timestamp included) can change unseen.
 *
 * Version 1 (events from before): the content without the id, the timestamp in
 * milliseconds. Kept so history is verified as it was written, not silently re-hashed.
 */
export const HASH_VERSION = 2;

/** An event's stored columns in their canonical text forms (see ledgerRecordSelect). */
export interface LedgerRecord {
  /** Decimal. */
  id: string;
  orgId: string;
  /** Decimal, 1, 2, 3, … in the org's chain. */
  sequence: string;
  hashVersion: number;
  type: string;
  runId: string | null;
  resourceId: string | null;
  actorRole: string | null;
  actorKeyId: string | null;
  metadata: Record<string, unknown>;
  /** UTC with exactly six fractional digits: `2026-12-01T17:38:39.123456Z`. */
  createdAt: string;
  prevHash: string | null;
}

/** `created_at` as canonical text; `?` is none of it (the ORM's placeholder). */
export const CANONICAL_TIMESTAMP = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

/** A SELECT list reading ledger_events rows (alias `e`) as LedgerRecord fields, plus the stored hash. */
export const LEDGER_RECORD_SELECT = `e.id::text as "id", e.org_id as "orgId", e.sequence::text as "sequence", e.hash_version as "hashVersion",
  e.type as "type", e.run_id as "runId", e.resource_id as "resourceId", e.actor_role as "actorRole", e.actor_key_id as "actorKeyId",
  e.metadata as "metadata", to_char(e.created_at at time zone 'UTC', ${CANONICAL_TIMESTAMP}) as "createdAt", e.prev_hash as "prevHash",
  e.hash as "hash"`;

/** The version 2 object: every stored column of ledger_events but `hash`, by column name. */
export function canonicalColumns(record: LedgerRecord): Record<string, unknown> {
  return {
    id: record.id,
    org_id: record.orgId,
    sequence: record.sequence,
    hash_version: record.hashVersion,
    type: record.type,
    run_id: record.runId,
    resource_id: record.resourceId,
    actor_role: record.actorRole,
    actor_key_id: record.actorKeyId,
    metadata: record.metadata,
    created_at: record.createdAt,
    prev_hash: record.prevHash,
  };
}

/** The columns of a version 2 event that only the database knows when it appends: see canonicalParts. */
export type ChainColumns = 'id' | 'sequence' | 'createdAt' | 'prevHash';

/**
 * An event's version 2 canonical JSON in the five pieces around the four values the database
 * fills in as it appends (`toolgate_ledger_append`): created_at, id, prev_hash and sequence.
 * The keys are sorted, so those four always fall between the same neighbours; joined with
 * the JSON strings of the four values, the pieces are exactly `canonicalJson(canonicalColumns(record))`
 * (test/ledger/ledger-append-parts.test.ts).
 */
export function canonicalParts(record: Omit<LedgerRecord, ChainColumns | 'hashVersion'>): [string, string, string, string, string] {
  const text = JSON.stringify;
  return [
    `{"actor_key_id":${text(record.actorKeyId)},"actor_role":${text(record.actorRole)},"created_at":`,
    ',"hash_version":2,"id":',
    `,"metadata":${canonicalJson(record.metadata)},"org_id":${text(record.orgId)},"prev_hash":`,
    `,"resource_id":${text(record.resourceId)},"run_id":${text(record.runId)},"sequence":`,
    `,"type":${text(record.type)}}`,
  ];
}

/** The hash an event must carry, by its own hash version; null for a version that does not exist. */
export function ledgerHash(record: LedgerRecord): string | null {
  if (record.hashVersion === 2) return sha256(canonicalJson(canonicalColumns(record)));
  if (record.hashVersion === 1) return legacyHash(record);
  return null;
}

/**
 * Version 1: the content in a fixed order, the timestamp as JavaScript's toISOString gave it.
 * Those events were written from JavaScript dates, so their sub-millisecond digits are
 * 000; anything else is an edit the old hash cannot see, and fails here.
 */
function legacyHash(record: LedgerRecord): string | null {
  const micros = record.createdAt.slice(23, 26);
  if (micros !== '000') return null;
  const milliseconds = `${record.createdAt.slice(0, 23)}Z`;
  const fields = [
    record.prevHash,
    record.orgId,
    record.sequence,
    record.type,
    record.runId,
    record.resourceId,
    record.actorRole,
    record.actorKeyId,
    record.metadata,
    milliseconds,
  ];
  return sha256(canonicalJson(fields));
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
