import type { Client } from 'pg';
import { LedgerEvent } from '../../src/ledger/ledger-event.entity';

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
  created_at: Date;
}

/** An org's ledger rows in sequence order. */
export async function ledgerRowsOf(pg: Client, orgId: string): Promise<LedgerRow[]> {
  return (await pg.query<LedgerRow>('select * from ledger_events where org_id = $1 order by sequence', [orgId])).rows;
}

/** The event as the hash sees it, rebuilt from what the database stored. */
export function eventOf(row: LedgerRow): LedgerEvent {
  const event = new LedgerEvent();
  event.id = String(row.id);
  event.sequence = String(row.sequence);
  event.orgId = row.org_id;
  event.runId = row.run_id;
  event.resourceId = row.resource_id;
  event.type = row.type;
  event.actorRole = row.actor_role;
  event.actorKeyId = row.actor_key_id;
  event.metadata = row.metadata;
  event.prevHash = row.prev_hash;
  event.hash = row.hash;
  event.createdAt = row.created_at;
  return event;
}
