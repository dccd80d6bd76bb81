import { executeLast, type SqlTransaction } from '../db/raw-transaction';
import { LedgerEvent } from './ledger-event.entity';
import { canonicalParts, HASH_VERSION, ledgerHash, type LedgerRecord } from './ledger-hash';
import type { LedgerEventType } from './ledger-event-types';
import { type Caller, personOfRecord } from '../auth/caller';
import { noteLedgerAppend } from './ledger-appends';
import { arrayLiteral } from '../db/array-literal';

export interface LedgerEntry {
  orgId: string;
  type: LedgerEventType;
  runId?: string | null;
  resourceId?: string | null;
  /** Who did it; a person (`actor.person`) is recorded in the metadata as `person` (issuer, subject, name). */
  actor?: Pick<Caller, 'role' | 'keyId' | 'person'> | null;
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

/** The columns an append writes, in the order of ledgerRowValues. */
export const EVENT_COLUMNS =
  'id, org_id, sequence, hash_version, type, run_id, resource_id, actor_role, actor_key_id, metadata, created_at, prev_hash, hash';
/**
 * The org's lock, its head, `n` event ids and the time (see the migration …_ledger_tamper),
 * and the call a racing request recorded for the same tool use meanwhile (…_append_point_tool_use).
 */
export const APPEND_POINT = 'select hash, sequence, ids, created_at, recorded_call from toolgate_ledger_append_point(?, ?, ?, ?)';

/** What the append point answers. */
export interface AppendPoint {
  hash: string | null;
  sequence: string;
  ids: string[];
  /** Canonical UTC text to the microsecond (ledger-hash.ts). */
  created_at: string;
  /** The call already recorded for the append's tool use (`AppendOptions.toolUse`), else null. */
  recorded_call: string | null;
}

export interface AppendOptions {
  /**
   * The append is its transaction's last statement (the caller commits right after it): it
   * goes alone, a transaction of its own, when nothing was written before it (executeLast).
   */
  last?: boolean;
  /**
   * The append records this tool use of a run: when a racing request recorded it while this
   * one waited for the org's lock, the append stops with `ToolUseRecorded` before its INSERT
   * (whose unique check would wait on that call's outcome transaction, which waits on this lock).
   */
  toolUse?: { runId: string; toolUseId: string };
  /**
   * An SQL expression that checks, in the append's own statement, what the append's events
   * were decided on, and answers the org's id; it raises to roll the statement back. The
   * append takes the org from it, so it runs first (gateway/run-cache.ts: the run a node
   * last read, checked instead of read again).
   */
  precondition?: JoinedWrite;
}

/** The run's tool use was recorded by another request first; nothing was appended. */
export class ToolUseRecorded extends Error {
  constructor(readonly toolCallId: string) {
    super(`tool use already recorded as call ${toolCallId}`);
  }
}

/**
 * One ledger append (`toolgate_ledger_append`, migration …_ledger_append): the org's lock,
 * the racing tool use, the head, the ids and the time, each event hashed and chained by
 * the database from the canonical pieces the caller sends (canonicalParts), one INSERT.
 */
export const LEDGER_APPEND =
  'select id, sequence, created_at, prev_hash, hash from toolgate_ledger_append(?, ?, ?, ?::text[], ?::uuid[], ?::text[], ?::text[], ?::uuid[], ?::jsonb[], ?::text[])';

/** What the append answers per event, in order. */
interface AppendedRow {
  id: string;
  sequence: string;
  created_at: string;
  prev_hash: string | null;
  hash: string;
}

/** SQLSTATE of the append that found its tool use recorded by a racing request (the message is that call's id). */
const TOOL_USE_RECORDED = 'TGL02';

/** An entry as the chain records it: ids in PostgreSQL's lower case, the person in the metadata. */
function contentOf(
  orgId: string,
  entry: Omit<LedgerEntry, 'orgId'>,
): Omit<LedgerRecord, 'id' | 'sequence' | 'createdAt' | 'prevHash' | 'hashVersion'> {
  return {
    // PostgreSQL prints uuids in lower case; the hash must see what it stores.
    orgId: orgId.toLowerCase(),
    type: entry.type,
    runId: entry.runId?.toLowerCase() ?? null,
    resourceId: entry.resourceId ?? null,
    actorRole: entry.actor?.role ?? null,
    actorKeyId: entry.actor?.keyId?.toLowerCase() ?? null,
    metadata: entry.actor?.person ? { ...entry.metadata, person: personOfRecord(entry.actor.person) } : (entry.metadata ?? {}),
  };
}

/** The parameters of LEDGER_APPEND for these events (all of `orgId`). */
export function ledgerAppendParams(orgId: string, entries: Omit<LedgerEntry, 'orgId'>[], toolUse?: { runId: string; toolUseId: string }) {
  const contents = entries.map((entry) => contentOf(orgId, entry));
  return {
    contents,
    params: [
      orgId,
      toolUse?.runId ?? null,
      toolUse?.toolUseId ?? null,
      arrayLiteral(contents.map((c) => c.type)),
      arrayLiteral(contents.map((c) => c.runId)),
      arrayLiteral(contents.map((c) => c.resourceId)),
      arrayLiteral(contents.map((c) => c.actorRole)),
      arrayLiteral(contents.map((c) => c.actorKeyId)),
      arrayLiteral(contents.map((c) => JSON.stringify(c.metadata))),
      arrayLiteral(contents.flatMap((c) => canonicalParts(c))),
    ],
  };
}

/**
 * Appends events (all of one org) to that org's hash chain, in order, in one round trip
 * (LEDGER_APPEND) that also carries the `joined` writes; a trigger on the INSERT moves the
 * org's head (ledger_heads) in the same statement. Must run inside the caller's
 * transaction: the lock serialises appends so each event links to its predecessor
 * without forks or gaps, and the events and the head commit or roll back with the change
 * they record.
 */
export async function appendLedgerEvents(
  em: SqlTransaction,
  entries: LedgerEntry[],
  joined: JoinedWrite[] = [],
  options: AppendOptions = {},
): Promise<LedgerEvent[]> {
  if (entries.length === 0) return [];
  const orgId = orgOf(em, entries);
  const { contents, params: appendParams } = ledgerAppendParams(orgId, entries, options.toolUse);
  const params: unknown[] = [];
  for (const write of joined) params.push(...write.params);
  // The joined writes are CTEs the main SELECT does not read: PostgreSQL runs them after it,
  // so the lock and the racing tool use's check come before any of their rows.
  const ctes = joined.map((write, i) => `w${i} as (${write.sql})`);
  const { precondition } = options;
  if (precondition) {
    // The append reads the org from the check's row: the check runs first, and raises before anything is written.
    ctes.push(`guard as (select ${precondition.sql} as org_id)`);
    params.push(...precondition.params, ...appendParams.slice(1));
  } else {
    params.push(...appendParams);
  }
  const sql = `${ctes.length === 0 ? '' : `with ${ctes.join(', ')} `}${precondition ? LEDGER_APPEND_FROM_ROW : LEDGER_APPEND}`;
  return appended(em, orgId, contents, await sendAppend(em, sql, params, options.last ?? false));
}

/** LEDGER_APPEND on the org of the row a `guard` CTE returned (its first parameter dropped). */
export const LEDGER_APPEND_FROM_ROW = `select a.id, a.sequence, a.created_at, a.prev_hash, a.hash from guard cross join lateral
  toolgate_ledger_append(guard.org_id, ?, ?, ?::text[], ?::uuid[], ?::text[], ?::text[], ?::uuid[], ?::jsonb[], ?::text[]) a`;

/**
 * A change to an existing row and the events that record it, in one statement: `guard` is
 * an UPDATE … RETURNING org_id, and the append runs only for the row it returns (a lateral
 * call on it: after the row is locked, as on every path, before the ledger's lock). Null,
 * and nothing appended, when the guard matched no row. One round trip where an UPDATE and
 * an append took two.
 */
export async function appendAfterUpdate(em: SqlTransaction, guard: JoinedWrite, entries: LedgerEntry[]): Promise<LedgerEvent[] | null> {
  const orgId = orgOf(em, entries);
  const { contents, params } = ledgerAppendParams(orgId, entries);
  // The org comes from the guarded row, so the append depends on it and cannot run first.
  const rows = await sendAppend(em, `with guard as (${guard.sql}) ${LEDGER_APPEND_FROM_ROW}`, [...guard.params, ...params.slice(1)], false);
  if (rows.length === 0) return null;
  return appended(em, orgId, contents, rows);
}

function orgOf(em: SqlTransaction, entries: LedgerEntry[]): string {
  if (entries.length === 0) throw new Error('an append records at least one event');
  if (!em.isInTransaction()) throw new Error('appendLedgerEvent must run inside a transaction');
  const orgId = entries[0].orgId;
  if (entries.some((e) => e.orgId !== orgId)) throw new Error('appendLedgerEvents takes events of one org');
  return orgId;
}

async function sendAppend(em: SqlTransaction, sql: string, params: unknown[], last: boolean): Promise<AppendedRow[]> {
  try {
    return await (last ? executeLast<AppendedRow[]>(em, sql, params) : em.execute<AppendedRow[]>(sql, params));
  } catch (error) {
    const sqlState = (error as { code?: string }).code;
    if (sqlState === TOOL_USE_RECORDED) throw new ToolUseRecorded((error as Error).message);
    throw error;
  }
}

/** The appended events as entities; their last sequence noted for the commit's notice. */
function appended(em: SqlTransaction, orgId: string, contents: ReturnType<typeof contentOf>[], rows: AppendedRow[]): LedgerEvent[] {
  const events = rows.map((row, i) =>
    toEntity({
      ...contents[i],
      id: row.id,
      sequence: row.sequence,
      hashVersion: HASH_VERSION,
      createdAt: row.created_at,
      prevHash: row.prev_hash,
      hash: row.hash,
    }),
  );
  noteLedgerAppend(em, orgId, BigInt(events[events.length - 1].sequence));
  return events;
}

/** The events after the append point (the two-statement append of the previous release, kept for bulk loads), each hashed and linked to the one before. */
export function chainRecords(orgId: string, point: AppendPoint, entries: Omit<LedgerEntry, 'orgId'>[]): (LedgerRecord & { hash: string })[] {
  let prevHash = point.hash;
  let sequence = BigInt(point.sequence);
  return entries.map((entry, i) => {
    const record: LedgerRecord = {
      ...contentOf(orgId, entry),
      id: point.ids[i],
      sequence: String(++sequence),
      hashVersion: HASH_VERSION,
      createdAt: point.created_at,
      prevHash,
    };
    const hash = ledgerHash(record)!;
    prevHash = hash;
    return { ...record, hash };
  });
}

/** A record's values in EVENT_COLUMNS order, as an append (or the bench's raw baseline) sends them. */
export function ledgerRowValues(record: LedgerRecord & { hash: string }): unknown[] {
  return [
    record.id,
    record.orgId,
    record.sequence,
    record.hashVersion,
    record.type,
    record.runId,
    record.resourceId,
    record.actorRole,
    record.actorKeyId,
    JSON.stringify(record.metadata),
    record.createdAt,
    record.prevHash,
    record.hash,
  ];
}

function toEntity(record: LedgerRecord & { hash: string }): LedgerEvent {
  const event = new LedgerEvent();
  Object.assign(event, record);
  // A JavaScript date holds milliseconds; the stored microseconds are in the record.
  event.createdAt = new Date(`${record.createdAt.slice(0, 23)}Z`);
  return event;
}
