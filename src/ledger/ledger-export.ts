import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { IsolationLevel } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { stringify } from 'csv-stringify';
import { LEDGER_RECORD_SELECT, canonicalColumns } from './ledger-hash';
import type { ChainEvent } from './ledger-verify';

/**
 * `toolgate ledger export` (docs/ledger.md, "Exports"): an org's events with every column
 * the hash covers plus the hash, so `ledger verify --file` can recompute the chain offline.
 * Streamed: keyset pages by sequence inside one read-only snapshot, each page pulled only
 * when the output has drained the one before, so memory does not grow with the export.
 */
export type ExportFormat = 'jsonl' | 'csv';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['jsonl', 'csv'];

/** The exported members (JSONL) or columns (CSV), in this order: ledger_events' columns. */
export const EXPORT_COLUMNS = [
  'id',
  'org_id',
  'sequence',
  'hash_version',
  'type',
  'run_id',
  'resource_id',
  'actor_role',
  'actor_key_id',
  'metadata',
  'created_at',
  'prev_hash',
  'hash',
] as const;

/** Timestamps as PostgreSQL reads them (timestamptz): `from` inclusive, `to` exclusive; null is open. */
export interface ExportRange {
  from: string | null;
  to: string | null;
}

export interface ExportSummary {
  events: number;
  /** The first and last exported sequences; null when nothing was in the range. */
  firstSequence: string | null;
  lastSequence: string | null;
}

const PAGE = 1000;
// The range in sequences: an org's times rise with its sequence, so the events of a time
// range are one unbroken stretch of the chain, exported without gaps.
const BOUNDS = `select min(sequence)::text as "first", max(sequence)::text as "last" from ledger_events
  where org_id = ? and sequence > 0 and (?::timestamptz is null or created_at >= ?::timestamptz) and (?::timestamptz is null or created_at < ?::timestamptz)`;
const ROWS = `select ${LEDGER_RECORD_SELECT} from ledger_events e
  where e.org_id = ? and e.sequence > ? and e.sequence <= ? order by e.sequence limit ${PAGE}`;

/** Writes the org's events of `range` to `out` in `format`; ends `out`. */
export function exportLedger(em: EntityManager, orgId: string, range: ExportRange, format: ExportFormat, out: Writable): Promise<ExportSummary> {
  return em.transactional(
    async (tx) => {
      const [bounds] = await tx.execute<{ first: string | null; last: string | null }[]>(BOUNDS, [orgId, range.from, range.from, range.to, range.to]);
      const summary: ExportSummary = { events: 0, firstSequence: bounds.first, lastSequence: bounds.last };
      const rows = Readable.from(pages(tx, orgId, bounds.first, bounds.last, summary));
      if (format === 'jsonl') await pipeline(rows, jsonLines, out);
      else await pipeline(rows, stringify({ header: true, columns: [...EXPORT_COLUMNS], quoted_string: true, record_delimiter: 'windows' }), out);
      return summary;
    },
    { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true },
  );
}

async function* pages(
  em: EntityManager,
  orgId: string,
  first: string | null,
  last: string | null,
  summary: ExportSummary,
): AsyncGenerator<Record<string, unknown>> {
  if (first === null || last === null) return;
  let after = String(BigInt(first) - 1n);
  for (;;) {
    const batch = await em.execute<ChainEvent[]>(ROWS, [orgId, after, last]);
    for (const event of batch) {
      summary.events += 1;
      yield exportRow(event);
    }
    if (batch.length < PAGE) return;
    after = batch[batch.length - 1].sequence;
  }
}

/** An event as exported: the hash's own column forms (docs/ledger.md), then the hash. */
function exportRow(event: ChainEvent): Record<string, unknown> {
  return { ...canonicalColumns(event), hash: event.hash };
}

async function* jsonLines(rows: AsyncIterable<Record<string, unknown>>): AsyncGenerator<string> {
  for await (const row of rows) yield `${JSON.stringify(row)}\n`;
}
