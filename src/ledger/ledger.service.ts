import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { LedgerEvent } from './ledger-event.entity';
import { canonicalJson } from './canonical-json';
import type { LedgerEventType } from './ledger-event-types';
import type { Caller } from '../auth/caller';
import { noteLedgerAppend } from '../events/ledger-notifier';

export interface LedgerEntry {
  orgId: string;
  type: LedgerEventType;
  runId?: string | null;
  resourceId?: string | null;
  actor?: Pick<Caller, 'role' | 'keyId'> | null;
  metadata?: Record<string, unknown>;
}

/** Appends one event to its org's hash chain; see appendLedgerEvents. */
export async function appendLedgerEvent(em: EntityManager, entry: LedgerEntry): Promise<LedgerEvent> {
  const [event] = await appendLedgerEvents(em, [entry]);
  return event;
}

/**
 * Appends events (all of one org) to that org's hash chain, in order, with one lock, one
 * read and one insert. Must run inside the caller's transaction: the per-org advisory
 * lock serialises appends so each event links to its predecessor without forks or gaps,
 * and the events commit or roll back with the change they record.
 */
export async function appendLedgerEvents(em: EntityManager, entries: LedgerEntry[]): Promise<LedgerEvent[]> {
  if (entries.length === 0) return [];
  if (!em.isInTransaction()) throw new Error('appendLedgerEvent must run inside a transaction');
  const orgId = entries[0].orgId;
  if (entries.some((e) => e.orgId !== orgId)) throw new Error('appendLedgerEvents takes events of one org');
  await em.execute('select pg_advisory_xact_lock(hashtextextended(?, 7))', [orgId]);
  const [last] = await em.execute<{ hash: string; sequence: string }[]>(
    'select hash, sequence from ledger_events where org_id = ? order by sequence desc limit 1',
    [orgId],
  );
  let prevHash = last?.hash ?? null;
  let sequence = BigInt(last?.sequence ?? 0);
  const now = new Date();
  const events = entries.map((entry) => {
    const event = new LedgerEvent();
    event.orgId = orgId;
    event.sequence = String(++sequence);
    event.type = entry.type;
    event.runId = entry.runId ?? null;
    event.resourceId = entry.resourceId ?? null;
    event.actorRole = entry.actor?.role ?? null;
    event.actorKeyId = entry.actor?.keyId ?? null;
    event.metadata = entry.metadata ?? {};
    event.createdAt = now;
    event.prevHash = prevHash;
    event.hash = ledgerHash(event);
    prevHash = event.hash;
    return event;
  });
  await em.insertMany(LedgerEvent, events);
  noteLedgerAppend(em, orgId, sequence);
  return events;
}

/** SHA-256 over the previous hash and the canonical JSON of the event's content. */
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
