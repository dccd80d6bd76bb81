import type { Client } from 'pg';
import { CANONICAL_TIMESTAMP, type LedgerRecord } from '../../src/ledger/ledger-hash';

/**
 * ledger_events rows as PostgreSQL stores them, read on a plain pg connection (no ORM, no
 * identity map): for the suites that check or tamper with the hash chain itself.
 */
export interface LedgerRow {
  id: string;
  sequence: string;
  org_id: string;
  run_id: string | null;
  resource_id: string | null;
  type: string;
  actor_role: string | null;
  actor_key_id: string | null;
  metadata: Record<string, unknown>;
  prev_hash: string | null;
  hash: string;
  hash_version: number;
  created_at: Date;
  /** created_at to the microsecond, as the hash sees it. */
  created_at_text: string;
}

/** An org's ledger rows in sequence order. */
export async function ledgerRowsOf(pg: Client, orgId: string): Promise<LedgerRow[]> {
  const sql = `select e.*, to_char(e.created_at at time zone 'UTC', ${CANONICAL_TIMESTAMP}) as created_at_text
                 from ledger_events e where org_id = $1 order by sequence`;
  return (await pg.query<LedgerRow>(sql, [orgId])).rows;
}

/** The event as the hash sees it, rebuilt from what the database stored. */
export function recordOf(row: LedgerRow): LedgerRecord {
  return {
    id: String(row.id),
    orgId: row.org_id,
    sequence: String(row.sequence),
    hashVersion: row.hash_version,
    type: row.type,
    runId: row.run_id,
    resourceId: row.resource_id,
    actorRole: row.actor_role,
    actorKeyId: row.actor_key_id,
    metadata: row.metadata,
    createdAt: row.created_at_text,
    prevHash: row.prev_hash,
  };
}
