import { createHash } from 'node:crypto';
import type { SqlTransaction } from '../db/raw-transaction';
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
export async function appendLedgerEvent(em: SqlTransaction, entry: LedgerEntry): Promise<LedgerEvent> {
  const [event] = await appendLedgerEvents(em, [entry]);
  return event;
}

/**
 * A data-modifying statement that travels with an append (`with wN as (…)` in front of
 * the ledger INSERT): the rows an event records are written in the same round trip.
 * Only for rows nobody else can hold a lock on (new rows): the append point is locked
 * first, and a row lock taken after it could deadlock with a path that locks the other
 * way round.
 */
export interface JoinedWrite {
  sql: string;
  params: unknown[];
}

/** The columns an append writes: the hashed fields in hash order (hashedFields), then the hash. */
const EVENT_COLUMNS = 'prev_hash, org_id, sequence, type, run_id, resource_id, actor_role, actor_key_id, metadata, created_at, hash';
const EVENT_VALUES = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
const METADATA = 8;

/**
 * Appends events (all of one org) to that org's hash chain, in order, in two round
 * trips: `toolgate_ledger_head` (the per-org lock and the last link, see its migration),
 * then one INSERT that also carries the `joined` writes. Must run inside the caller's
 * transaction: the lock serialises appends so each event links to its predecessor
 * without forks or gaps, and the events commit or roll back with the change they record.
 */
export async function appendLedgerEvents(em: SqlTransaction, entries: LedgerEntry[], joined: JoinedWrite[] = []): Promise<LedgerEvent[]> {
  if (entries.length === 0) return [];
  if (!em.isInTransaction()) throw new Error('appendLedgerEvent must run inside a transaction');
  const orgId = entries[0].orgId;
  if (entries.some((e) => e.orgId !== orgId)) throw new Error('appendLedgerEvents takes events of one org');
  const [last] = await em.execute<{ hash: string | null; sequence: string | null }[]>('select hash, sequence from toolgate_ledger_head(?)', [orgId]);
  let prevHash = last?.hash ?? null;
  let sequence = BigInt(last?.sequence ?? 0);
  const now = new Date();
  const params: unknown[] = [];
  for (const write of joined) params.push(...write.params);
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
    params.push(...ledgerRowValues(event));
    return event;
  });
  const prefix = joined.length === 0 ? '' : `with ${joined.map((write, i) => `w${i} as (${write.sql})`).join(', ')} `;
  const rows = await em.execute<{ id: string; sequence: string }[]>(
    `${prefix}insert into ledger_events (${EVENT_COLUMNS}) values ${events.map(() => EVENT_VALUES).join(', ')} returning id, sequence`,
    params,
  );
  const first = BigInt(events[0].sequence);
  for (const row of rows) events[Number(BigInt(row.sequence) - first)].id = String(row.id);
  noteLedgerAppend(em, orgId, sequence);
  return events;
}

/** What the hash covers, in order: the previous hash and the event's content. */
function hashedFields(event: Omit<LedgerEvent, 'id' | 'hash'>): unknown[] {
  return [
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
  ];
}

/** An event's values in EVENT_COLUMNS order, as an append (or the bench's raw baseline) sends them. */
export function ledgerRowValues(event: Omit<LedgerEvent, 'id'>): unknown[] {
  const fields = hashedFields(event);
  fields[METADATA] = JSON.stringify(event.metadata);
  return [...fields, event.hash];
}

/** SHA-256 over the canonical JSON of the hashed fields. */
export function ledgerHash(event: Omit<LedgerEvent, 'id' | 'hash'>): string {
  return createHash('sha256')
    .update(canonicalJson(hashedFields(event)))
    .digest('hex');
}
