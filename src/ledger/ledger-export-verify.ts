import fs from 'node:fs';
import readline from 'node:readline';
import { parse } from 'csv-parse';
import { AppError } from '../errors/app-error';
import { EXPORT_COLUMNS, type ExportFormat } from './ledger-export';
import { ChainCheck, brokenAt, type ChainAnchor, type ChainEvent, type LedgerVerification } from './ledger-verify';

/**
 * `toolgate ledger verify --file`: an export (src/ledger/ledger-export.ts) checked offline,
 * read as a stream so a file of millions of events takes constant memory. Each event's hash
 * is recomputed from its columns and each must link to the one before, sequences without
 * gaps; the first event's previous hash is taken as given (the export may start mid-chain).
 * With a checkpoint, the export must hold the checkpoint's hash at its sequence.
 */
export interface ExportVerification extends Omit<LedgerVerification, 'orgId'> {
  /** The export's org (its first event's); null for an empty export. */
  orgId: string | null;
  /** The range of sequences the export covers (first and last event read); null when empty. */
  fromSequence: string | null;
  toSequence: string | null;
}

/** The checkpoint's head of the export's org, given the org (null when the checkpoint names none). */
export type AnchorOf = (orgId: string) => ChainAnchor | null;

/** From the file name, else from its first byte: `{` is JSON Lines. */
export function detectFormat(file: string): ExportFormat {
  if (/\.(jsonl|ndjson)$/i.test(file)) return 'jsonl';
  if (/\.csv$/i.test(file)) return 'csv';
  const fd = fs.openSync(file, 'r');
  try {
    const first = Buffer.alloc(1);
    fs.readSync(fd, first, 0, 1, 0);
    return first.toString('utf8') === '{' ? 'jsonl' : 'csv';
  } finally {
    fs.closeSync(fd);
  }
}

export async function verifyExport(file: string, format: ExportFormat, anchorOf: AnchorOf = () => null): Promise<ExportVerification> {
  const rows = format === 'jsonl' ? jsonlRecords(file) : csvRecords(file);
  let chain: ChainCheck | null = null;
  let orgId = '';
  let first: string | null = null;
  for await (const event of rows) {
    if (!chain) {
      orgId = event.orgId;
      first = event.sequence;
      chain = new ChainCheck(
        { sequence: BigInt(event.sequence), prevHash: event.prevHash },
        { checkpoint: anchorIn(anchorOf(orgId), event), head: null },
      );
    }
    // An event of another org does not belong to this chain, whatever its own hash says.
    const problem = event.orgId !== orgId ? 'broken_link' : chain.next(event);
    if (problem) return { ...brokenAt(orgId, BigInt(event.sequence), event.id, problem, chain.checked), fromSequence: first, toSequence: null };
  }
  if (!chain)
    return {
      orgId: null,
      ok: true,
      eventsChecked: 0,
      firstBadSequence: null,
      firstBadEventId: null,
      problem: null,
      fromSequence: null,
      toSequence: null,
    };
  const last = String(chain.expected - 1n);
  if (chain.shortOfCheckpoint())
    return { ...brokenAt(orgId, chain.expected, null, 'truncated', chain.checked), fromSequence: first, toSequence: last };
  return {
    orgId,
    ok: true,
    eventsChecked: chain.checked,
    firstBadSequence: null,
    firstBadEventId: null,
    problem: null,
    fromSequence: first,
    toSequence: last,
  };
}

/** A checkpoint can vouch for an export only if the export starts at or before its sequence. */
function anchorIn(anchor: ChainAnchor | null, firstEvent: ChainEvent): ChainAnchor | null {
  if (anchor && BigInt(anchor.sequence) < BigInt(firstEvent.sequence)) {
    throw new AppError(
      'LEDGER_EXPORT_INVALID',
      `the checkpoint's head of org ${firstEvent.orgId} is at sequence ${anchor.sequence}, before the export's first event (${firstEvent.sequence}): export from sequence ${anchor.sequence} or earlier`,
    );
  }
  return anchor;
}

async function* jsonlRecords(file: string): AsyncGenerator<ChainEvent> {
  const lines = readline.createInterface({ input: fs.createReadStream(file, { encoding: 'utf8' }), crlfDelay: Number.POSITIVE_INFINITY });
  let n = 0;
  for await (const line of lines) {
    n += 1;
    if (line.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      throw invalid(`line ${n} is not JSON`);
    }
    yield eventOf(parsed, `line ${n}`);
  }
}

async function* csvRecords(file: string): AsyncGenerator<ChainEvent> {
  const parser = fs.createReadStream(file).pipe(
    parse({
      columns: (header: string[]) => {
        if (header.join(',') !== EXPORT_COLUMNS.join(',')) throw invalid(`its header is not ${EXPORT_COLUMNS.join(',')}`);
        return header;
      },
      // The raw text tells a null (an unquoted empty field) from the empty text (""); a cast
      // function would too, but makes csv-parse about ten times slower.
      raw: true,
    }),
  );
  let n = 1;
  try {
    for await (const { record, raw } of parser as AsyncIterable<{ record: Record<string, string | null>; raw: string }>) {
      n += 1;
      const empty = NULLABLE.filter((column) => record[column] === '');
      if (empty.length > 0) {
        const unquoted = unquotedEmptyFields(raw);
        for (const column of empty) if (unquoted.has(EXPORT_COLUMNS.indexOf(column))) record[column] = null;
      }
      let metadata: unknown;
      try {
        metadata = JSON.parse(String(record.metadata));
      } catch {
        throw invalid(`record ${n}: metadata is not JSON`);
      }
      const hashVersion = /^\d{1,4}$/.test(String(record.hash_version)) ? Number(record.hash_version) : record.hash_version;
      yield eventOf({ ...record, hash_version: hashVersion, metadata }, `record ${n}`);
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw invalid(`not RFC 4180 CSV near record ${n} (${(error as Error).message})`);
  }
}

const NULLABLE = ['run_id', 'resource_id', 'actor_role', 'actor_key_id', 'prev_hash'] as const;

/** The positions of the fields of one CSV record (already parsed, so well-formed) that are empty and unquoted. */
function unquotedEmptyFields(raw: string): Set<number> {
  const empty = new Set<number>();
  let field = 0;
  let fieldStart = true;
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (quoted) {
      if (c === '"' && raw[i + 1] === '"') i++;
      else if (c === '"') quoted = false;
    } else if (c === ',' || c === '\r' || c === '\n') {
      if (fieldStart) empty.add(field);
      if (c !== ',') return empty;
      field += 1;
      fieldStart = true;
    } else {
      if (c === '"' && fieldStart) quoted = true;
      fieldStart = false;
    }
  }
  if (fieldStart) empty.add(field);
  return empty;
}

const DECIMAL = /^-?\d{1,19}$/;

/** One exported row as the hash sees it; anything not shaped as the export writes it is refused. */
function eventOf(value: unknown, where: string): ChainEvent {
  const row = value as Record<string, unknown>;
  const text = (name: string, nullable: boolean): string | null => {
    const v = row?.[name];
    if (typeof v === 'string' || (nullable && v === null)) return v;
    throw invalid(`${where}: ${name} must be ${nullable ? 'text or null' : 'text'}`);
  };
  if (!row || typeof row !== 'object' || Array.isArray(row)) throw invalid(`${where} is not an object`);
  const [id, sequence] = [text('id', false)!, text('sequence', false)!];
  if (!DECIMAL.test(id) || !DECIMAL.test(sequence)) throw invalid(`${where}: id and sequence must be decimal text`);
  if (!Number.isInteger(row.hash_version)) throw invalid(`${where}: hash_version must be an integer`);
  const metadata = row.metadata;
  if (!metadata || typeof metadata !== 'object' || Array.isArray(metadata)) throw invalid(`${where}: metadata must be a JSON object`);
  return {
    id,
    orgId: text('org_id', false)!,
    sequence,
    hashVersion: row.hash_version as number,
    type: text('type', false)!,
    runId: text('run_id', true),
    resourceId: text('resource_id', true),
    actorRole: text('actor_role', true),
    actorKeyId: text('actor_key_id', true),
    metadata: metadata as Record<string, unknown>,
    createdAt: text('created_at', false)!,
    prevHash: text('prev_hash', true),
    hash: text('hash', false)!,
  };
}

const invalid = (why: string) => new AppError('LEDGER_EXPORT_INVALID', `not a Toolgate ledger export: ${why}`);
