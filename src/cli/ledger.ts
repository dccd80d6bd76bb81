// `toolgate ledger verify` and `toolgate ledger checkpoint` (src/cli/program.ts declares them).
import fs from 'node:fs';
import type { KeyObject } from 'node:crypto';
import { ConfigError, type Config } from '../config';
import type { Logger } from '../support/logger';
import { findOrg } from '../orgs/org.service';
import { Org } from '../orgs/org.entity';
import { verifyLedger, type ChainAnchor, type LedgerVerification } from '../ledger/ledger-verify';
import { openCheckpoint, takeCheckpoint, type CheckpointStatement } from '../ledger/ledger-checkpoint';
import { keyIdOf, parseVerifyingKey } from '../ledger/signing-key';
import { EXPORT_FORMATS, exportLedger, type ExportFormat, type ExportRange } from '../ledger/ledger-export';
import { detectFormat, verifyExport, type ExportVerification } from '../ledger/ledger-export-verify';
import { UsageError, withRuntime } from './commands';

export interface VerifyOptions {
  orgId: string | null;
  json: boolean;
  /** A checkpoint file, and the public key file to check its signature with (else the configured signing key's). */
  checkpointFile: string | null;
  publicKeyFile: string | null;
}

/** One line per org; exit 1 when a chain is broken (or the checkpoint is not to be trusted). */
export async function verifyLedgers(config: Config, logger: Logger, options: VerifyOptions): Promise<number> {
  // The checkpoint is checked before the database is opened: a bad signature is the whole answer.
  const checkpoint = options.checkpointFile ? readCheckpoint(options.checkpointFile, verifyingKey(config, options.publicKeyFile)) : null;
  const anchors = new Map<string, ChainAnchor>((checkpoint?.heads ?? []).map((h) => [h.orgId, h]));
  let broken = 0;
  const code = await withRuntime(
    config,
    logger,
    async (runtime) => {
      const em = runtime.orm.em.fork();
      let orgIds: string[];
      if (options.orgId) orgIds = anchors.has(options.orgId) ? [options.orgId] : [(await findOrg(em, options.orgId)).id];
      else {
        orgIds = (await em.find(Org, {}, { orderBy: { createdAt: 'asc' } })).map((o) => o.id);
        // An org the checkpoint names but the database no longer has: its whole chain is gone.
        const known = new Set(orgIds);
        for (const orgId of anchors.keys()) if (!known.has(orgId)) orgIds.push(orgId);
      }
      for (const id of orgIds) {
        const result = await verifyLedger(runtime.orm.em.fork(), id, anchors.get(id) ?? null);
        if (!result.ok) broken += 1;
        const withCheckpoint = checkpoint ? { checkpointSequence: anchors.get(id)?.sequence ?? null } : {};
        process.stdout.write(options.json ? `${JSON.stringify({ ...result, ...withCheckpoint })}\n` : `${describe(result, anchors.get(id))}\n`);
      }
    },
    { migrate: false },
  );
  return code === 0 && broken > 0 ? 1 : code;
}

export interface ExportOptions {
  orgId: string;
  format: ExportFormat;
  range: ExportRange;
  /** A new file to write; null: stdout. */
  out: string | null;
}

/** Streams one org's events (with their hashes) to a file or stdout; `ledger verify --file` checks it offline. */
export async function exportLedgerEvents(config: Config, logger: Logger, options: ExportOptions): Promise<number> {
  return withRuntime(
    config,
    logger,
    async (runtime) => {
      const org = await findOrg(runtime.orm.em.fork(), options.orgId);
      const out = options.out ? fs.createWriteStream(options.out, { flags: 'wx' }) : process.stdout;
      const summary = await exportLedger(runtime.orm.em.fork(), org.id, options.range, options.format, out);
      if (options.out) {
        const range = summary.firstSequence ? `, sequences ${summary.firstSequence} to ${summary.lastSequence}` : '';
        process.stdout.write(`Exported ${summary.events} event(s) of org ${org.id}${range} to ${options.out} (${options.format}).\n`);
      }
    },
    { migrate: false },
  );
}

export interface VerifyFileOptions {
  file: string;
  format: ExportFormat | null;
  json: boolean;
  checkpointFile: string | null;
  publicKeyFile: string | null;
}

/** Verifies an export offline (no database); exit 1 when its chain is broken. */
export async function verifyExportFile(config: Config, options: VerifyFileOptions): Promise<number> {
  const checkpoint = options.checkpointFile ? readCheckpoint(options.checkpointFile, verifyingKey(config, options.publicKeyFile)) : null;
  if (!fs.existsSync(options.file)) throw new UsageError(`--file ${options.file}: no such file`);
  const anchorOf = (orgId: string) => {
    if (!checkpoint) return null;
    const anchor = checkpoint.heads.find((h) => h.orgId === orgId);
    if (!anchor) throw new UsageError(`--checkpoint ${options.checkpointFile}: it names no head of org ${orgId}, the export's org`);
    return anchor;
  };
  const result = await verifyExport(options.file, options.format ?? detectFormat(options.file), anchorOf);
  const checkpointSequence = checkpoint && result.orgId ? { checkpointSequence: anchorOf(result.orgId)?.sequence ?? null } : {};
  process.stdout.write(
    options.json ? `${JSON.stringify({ ...result, ...checkpointSequence })}\n` : `${describeExport(result, checkpointSequence.checkpointSequence)}\n`,
  );
  return result.ok ? 0 : 1;
}

function describeExport(result: ExportVerification, checkpointSequence: string | null | undefined): string {
  if (result.orgId === null) return 'export: ok (0 events)';
  if (!result.ok) return describe(result as LedgerVerification, undefined);
  const checkpoint = checkpointSequence ? `, checkpoint at sequence ${checkpointSequence}` : '';
  return `org ${result.orgId}: ok (${result.eventsChecked} events, sequences ${result.fromSequence} to ${result.toSequence}${checkpoint})`;
}

/** `--from`/`--to`: a date (midnight UTC) or an ISO 8601 timestamp with its offset. */
export function exportRange(from: string | undefined, to: string | undefined): ExportRange {
  const range = { from: from === undefined ? null : isoTime('--from', from), to: to === undefined ? null : isoTime('--to', to) };
  if (range.from && range.to && Date.parse(range.from) >= Date.parse(range.to)) {
    throw new UsageError(`--from (${from}) must be before --to (${to}): the range is from inclusive, to exclusive`);
  }
  return range;
}

function isoTime(option: string, value: string): string {
  const date = /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value;
  const timestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/i.test(date);
  if (!timestamp || Number.isNaN(Date.parse(date))) {
    throw new UsageError(`${option} must be an ISO 8601 date or timestamp with its offset (2026-12-01 or 2026-12-01T18:00:00Z), got "${value}"`);
  }
  return date;
}

export function exportFormat(value: string): ExportFormat {
  if (!(EXPORT_FORMATS as readonly string[]).includes(value))
    throw new UsageError(`--format must be one of ${EXPORT_FORMATS.join(', ')}, got "${value}"`);
  return value as ExportFormat;
}

function describe(result: LedgerVerification, anchor: ChainAnchor | undefined): string {
  const checkpoint = anchor ? `, checkpoint at sequence ${anchor.sequence}` : '';
  if (result.ok) return `org ${result.orgId}: ok (${result.eventsChecked} events${checkpoint})`;
  const event = result.firstBadEventId ? `event ${result.firstBadEventId}` : 'missing';
  return `org ${result.orgId}: BROKEN at sequence ${result.firstBadSequence} (${event}): ${result.problem}`;
}

function verifyingKey(config: Config, file: string | null): KeyObject {
  if (file) {
    try {
      return parseVerifyingKey(fs.readFileSync(file, 'utf8'));
    } catch (error) {
      throw new UsageError(`--public-key ${file}: not an Ed25519 public key (${(error as Error).message})`);
    }
  }
  if (config.ledgerSigningKey) return config.ledgerSigningKey;
  throw new UsageError('--checkpoint needs --public-key FILE (or TOOLGATE_LEDGER_SIGNING_KEY) to check its signature');
}

function readCheckpoint(file: string, key: KeyObject): CheckpointStatement {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--checkpoint ${file}: ${(error as Error).message}`);
  }
  return openCheckpoint(text, key);
}

/** Signs every org's head; the statement goes to `out` (or stdout), meant to be kept outside the database. */
export async function writeCheckpoint(config: Config, logger: Logger, out: string | null): Promise<number> {
  const key = config.ledgerSigningKey;
  if (!key) throw new ConfigError('TOOLGATE_LEDGER_SIGNING_KEY is not set: `ledger checkpoint` signs with it (openssl genpkey -algorithm ed25519)');
  return withRuntime(
    config,
    logger,
    async (runtime) => {
      const checkpoint = await takeCheckpoint(runtime.orm.em.fork(), key);
      const text = `${JSON.stringify(checkpoint)}\n`;
      if (!out) return void process.stdout.write(text);
      fs.writeFileSync(out, text, { flag: 'wx' });
      process.stdout.write(`Checkpoint of ${checkpoint.statement.heads.length} org head(s) signed with ${keyIdOf(key)} written to ${out}.\n`);
    },
    { migrate: false },
  );
}
