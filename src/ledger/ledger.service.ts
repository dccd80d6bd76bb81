import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { LedgerEvent } from './ledger-event.entity';
import { canonicalJson } from './canonical-json';
import type { LedgerEventType } from './ledger-event-types';
import type { Caller } from '../auth/caller';

export interface LedgerEntry {
  orgId: string;
  type: LedgerEventType;
  runId?: string | null;
  resourceId?: string | null;
  actor?: Pick<Caller, 'role' | 'keyId'> | null;
  metadata?: Record<string, unknown>;
}

/**
 * Appends one event to the org's hash chain. Must run inside the caller's transaction:
 * the per-org advisory lock serialises appends so each event links to its predecessor,
 * and the event commits or rolls back with the change it records.
 */
export async function appendLedgerEvent(em: EntityManager, entry: LedgerEntry): Promise<LedgerEvent> {
  if (!em.isInTransaction()) throw new Error('appendLedgerEvent must run inside a transaction');
  await em.execute('select pg_advisory_xact_lock(hashtextextended(?, 7))', [entry.orgId]);
  const [last] = await em.execute<{ hash: string; sequence: string }[]>(
    'select hash, sequence from ledger_events where org_id = ? order by sequence desc limit 1',
    [entry.orgId],
  );
  const event = new LedgerEvent();
  event.orgId = entry.orgId;
  event.sequence = String(BigInt(last?.sequence ?? 0) + 1n);
  event.type = entry.type;
  event.runId = entry.runId ?? null;
  event.resourceId = entry.resourceId ?? null;
  event.actorRole = entry.actor?.role ?? null;
  event.actorKeyId = entry.actor?.keyId ?? null;
  event.metadata = entry.metadata ?? {};
  event.prevHash = last?.hash ?? null;
  event.hash = ledgerHash(event);
  await em.insert(LedgerEvent, event);
  return event;
}

export function ledgerHash(event: Omit<LedgerEvent, 'id' | 'hash'>): string {
  return createHash('sha256')
    .update(
      canonicalJson([
        event.prevHash,
        event.orgId,
        event.sequence,
        event.type,
        event.runId,
        event.resourceId,
        event.actorRole,
        event.actorKeyId,
        event.metadata,
        event.createdAt.toISOString(),
      ]),
    )
    .digest('hex');
}
