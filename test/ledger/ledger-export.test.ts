import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { runCliOn } from '../support/processes';
import { startTestApp, TEST_MASTER_KEY_HEX, type TestApp } from '../support/app';
import { newOrg, type TestOrg } from '../support/factories';
import { appendLedgerEvent } from '../../src/ledger/ledger.service';
import { ledgerHash, type LedgerRecord } from '../../src/ledger/ledger-hash';
import { EXPORT_COLUMNS, exportLedger, type ExportFormat, type ExportRange } from '../../src/ledger/ledger-export';
import { verifyExport } from '../../src/ledger/ledger-export-verify';
import { takeCheckpoint } from '../../src/ledger/ledger-checkpoint';

/**
 * `toolgate ledger export` and `toolgate ledger verify --file` against a real database: an
 * export verifies offline in both formats, and an edit to the file (a changed column, a
 * dropped line, a consistently re-hashed tail against a checkpoint) is named at the exact
 * event. The commands run as processes where their wiring is under test; the many tampered
 * files are checked in-process (the same functions), as each process costs seconds here.
 */
jest.setTimeout(180_000);

let app: TestApp;
let dir: string;

beforeAll(async () => {
  app = await startTestApp();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-export-'));
});

afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await app?.close();
});

const cli = (args: string[], env: Record<string, string> = {}) => runCliOn(app.db, TEST_MASTER_KEY_HEX, args, env, 30_000);
const file = (name: string) => path.join(dir, `${randomUUID().slice(0, 8)}-${name}`);

/** An org with its own events and `extra` more, whose metadata needs CSV quoting and carries an empty text. */
async function orgWithEvents(extra = 6): Promise<TestOrg> {
  const owner = await newOrg(app.em());
  for (let i = 0; i < extra; i++) {
    await app.em().transactional((tx) =>
      appendLedgerEvent(tx, {
        orgId: owner.org.id,
        type: 'policy.changed',
        resourceId: i === 0 ? '' : randomUUID(),
        actor: { role: 'admin', keyId: randomUUID() },
        metadata: { i, note: 'a "quoted", comma\nand newline', amount: 120.5, tags: ['a', 'b'] },
      }),
    );
  }
  return owner;
}

async function exported(orgId: string, format: 'jsonl' | 'csv', extra: string[] = []): Promise<string> {
  const out = file(`export.${format}`);
  const res = await cli(['ledger', 'export', '--org', orgId, '--format', format, '--out', out, ...extra]);
  expect(res).toMatchObject({ code: 0, stderr: '' });
  expect(res.stdout).toMatch(new RegExp(`^Exported \\d+ event\\(s\\) of org ${orgId}`));
  return out;
}

async function verifyFile(name: string, extra: string[] = []) {
  const res = await cli(['ledger', 'verify', '--file', name, '--json', ...extra]);
  expect(res.stderr).toBe('');
  return { code: res.code, result: JSON.parse(res.stdout) };
}

/** The export written in-process (what `ledger export --out` runs). */
async function exportedHere(orgId: string, format: ExportFormat, range: ExportRange = { from: null, to: null }): Promise<string> {
  const out = file(`here.${format}`);
  await exportLedger(app.em(), orgId, range, format, fs.createWriteStream(out));
  return out;
}

const jsonlRows = (name: string) =>
  fs
    .readFileSync(name, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
const writeJsonl = (name: string, rows: unknown[]) => fs.writeFileSync(name, rows.map((r) => `${JSON.stringify(r)}\n`).join(''));

describe('an export verifies offline', () => {
  test('JSON Lines: every hashed column and the hash, one event a line; verify --file ok (exit 0)', async () => {
    const owner = await orgWithEvents();
    const out = await exported(owner.org.id, 'jsonl');
    const rows = jsonlRows(out);
    expect(rows.length).toBeGreaterThan(6);
    expect(Object.keys(rows[0])).toEqual([...EXPORT_COLUMNS]);
    expect(rows.map((r) => r.sequence)).toEqual(rows.map((_, i) => String(i + 1)));
    expect(rows[0].prev_hash).toBeNull();
    expect(rows.find((r) => r.resource_id === '')).toBeDefined();
    const [{ code, result }, text] = await Promise.all([verifyFile(out), cli(['ledger', 'verify', '--file', out])]);
    expect({ code, result }).toEqual({
      code: 0,
      result: {
        orgId: owner.org.id,
        ok: true,
        eventsChecked: rows.length,
        firstBadSequence: null,
        firstBadEventId: null,
        problem: null,
        fromSequence: '1',
        toSequence: String(rows.length),
      },
    });
    expect(text).toEqual({ code: 0, stdout: `org ${owner.org.id}: ok (${rows.length} events, sequences 1 to ${rows.length})\n`, stderr: '' });
  });

  test('CSV (RFC 4180): a header of the columns, null unquoted and empty text quoted, metadata as JSON text; verify ok', async () => {
    const owner = await orgWithEvents();
    const out = await exported(owner.org.id, 'csv');
    const text = fs.readFileSync(out, 'utf8');
    expect(text.split('\r\n')[0]).toBe(EXPORT_COLUMNS.map((c) => `"${c}"`).join(','));
    const records: Record<string, string>[] = parse(text, { columns: true });
    const quoted = records.find((r) => JSON.parse(r.metadata).note);
    expect(JSON.parse(quoted!.metadata).note).toBe('a "quoted", comma\nand newline');
    expect(text).toContain(',"",'); // the empty resource_id, told apart from a null
    const { code, result } = await verifyFile(out);
    expect({ code, ok: result.ok, eventsChecked: result.eventsChecked }).toEqual({ code: 0, ok: true, eventsChecked: records.length });
  });

  test('the same events exported to stdout (the default format jsonl) match the file export', async () => {
    const owner = await orgWithEvents(2);
    const out = await exported(owner.org.id, 'jsonl');
    const res = await cli(['ledger', 'export', '--org', owner.org.id]);
    expect(res).toEqual({ code: 0, stdout: fs.readFileSync(out, 'utf8'), stderr: '' });
  });

  test('a time range (from inclusive, to exclusive) exports that stretch of the chain; it verifies from its first event', async () => {
    const owner = await orgWithEvents(6);
    const all = jsonlRows(await exported(owner.org.id, 'jsonl'));
    // The last six events were appended one a transaction: each has a time of its own.
    const n = all.length;
    const [from, to] = [all[n - 5].created_at, all[n - 1].created_at];
    const range = { fromSequence: String(n - 4), toSequence: String(n - 1) };
    for (const format of ['jsonl', 'csv'] as const) {
      const out = await exportedHere(owner.org.id, format, { from, to });
      expect(await verifyExport(out, format)).toMatchObject({ ok: true, eventsChecked: 4, ...range });
    }
    const viaCli = await exported(owner.org.id, 'jsonl', ['--from', from, '--to', to]);
    expect(await verifyFile(viaCli)).toMatchObject({ code: 0, result: { ok: true, eventsChecked: 4, ...range } });
    const empty = await exportedHere(owner.org.id, 'jsonl', { from: '2001-01-01T00:00:00Z', to: '2001-01-02T00:00:00Z' });
    expect(fs.readFileSync(empty, 'utf8')).toBe('');
    expect(await verifyExport(empty, 'jsonl')).toMatchObject({ ok: true, orgId: null, eventsChecked: 0 });
  });
});

describe('an edited export is named at the exact event', () => {
  test('a changed column in a JSON Lines export: hash_mismatch at it (exit 1)', async () => {
    const owner = await orgWithEvents();
    const out = await exportedHere(owner.org.id, 'jsonl');
    const rows = jsonlRows(out);
    rows[4].metadata.i = 99;
    writeJsonl(out, rows);
    const [json, text] = await Promise.all([verifyFile(out), cli(['ledger', 'verify', '--file', out])]);
    expect(json).toEqual({
      code: 1,
      result: expect.objectContaining({ ok: false, eventsChecked: 4, firstBadSequence: '5', firstBadEventId: rows[4].id, problem: 'hash_mismatch' }),
    });
    expect(text).toMatchObject({ code: 1, stdout: `org ${owner.org.id}: BROKEN at sequence 5 (event ${rows[4].id}): hash_mismatch\n` });
  });

  test('a changed field in a CSV export: hash_mismatch; a dropped line: sequence_gap at the next', async () => {
    const owner = await orgWithEvents();
    const out = await exportedHere(owner.org.id, 'csv');
    const lines = fs.readFileSync(out, 'utf8').split('\r\n');
    const edited = lines.map((line) => line.replace('"admin"', '"expert"'));
    const firstEdited = edited.findIndex((line, i) => line !== lines[i]);
    const editedFile = file('edited.csv');
    fs.writeFileSync(editedFile, edited.join('\r\n'));
    expect(await verifyExport(editedFile, 'csv')).toMatchObject({ ok: false, problem: 'hash_mismatch', firstBadSequence: String(firstEdited) });

    const rows = jsonlRows(await exportedHere(owner.org.id, 'jsonl'));
    const dropped = file('dropped.jsonl');
    writeJsonl(
      dropped,
      rows.filter((_, i) => i !== 2),
    );
    expect(await verifyExport(dropped, 'jsonl')).toMatchObject({
      ok: false,
      problem: 'sequence_gap',
      firstBadSequence: '4',
      firstBadEventId: rows[3].id,
    });
  });

  test('swapped events: sequence_gap; an event of another org spliced in: broken_link', async () => {
    const owner = await orgWithEvents(3);
    const other = await orgWithEvents(3);
    const rows = jsonlRows(await exportedHere(owner.org.id, 'jsonl'));
    const foreign = jsonlRows(await exportedHere(other.org.id, 'jsonl'));
    const swapped = file('swapped.jsonl');
    writeJsonl(swapped, [rows[0], rows[2], rows[1], ...rows.slice(3)]);
    expect(await verifyExport(swapped, 'jsonl')).toMatchObject({ ok: false, problem: 'sequence_gap', firstBadSequence: '3' });
    const spliced = file('spliced.jsonl');
    writeJsonl(spliced, [...rows.slice(0, 2), foreign[2], ...rows.slice(3)]);
    expect(await verifyExport(spliced, 'jsonl')).toMatchObject({
      ok: false,
      problem: 'broken_link',
      firstBadSequence: '3',
      firstBadEventId: foreign[2].id,
    });
  });

  test('a tail re-hashed from an edited event holds against itself, but not against a signed checkpoint', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const publicKeyFile = file('signer.pub.pem');
    fs.writeFileSync(publicKeyFile, publicKey.export({ type: 'spki', format: 'pem' }));
    const owner = await orgWithEvents(4);
    const checkpoint = await takeCheckpoint(app.em(), privateKey);
    const checkpointFile = file('checkpoint.json');
    fs.writeFileSync(checkpointFile, JSON.stringify(checkpoint));
    const anchor = checkpoint.statement.heads.find((h) => h.orgId === owner.org.id)!;
    const anchorOf = () => anchor;
    const out = await exportedHere(owner.org.id, 'jsonl');
    const rows = jsonlRows(out);
    const last = String(rows.length);
    expect(anchor.sequence).toBe(last);
    expect(await verifyExport(out, 'jsonl', anchorOf)).toMatchObject({ ok: true });

    const forged = file('forged.jsonl');
    rows[3].metadata = { forged: true };
    for (let i = 3; i < rows.length; i++) {
      if (i > 3) rows[i].prev_hash = rows[i - 1].hash;
      rows[i].hash = ledgerHash(recordOf(rows[i]));
    }
    writeJsonl(forged, rows);
    expect(await verifyExport(forged, 'jsonl')).toMatchObject({ ok: true });
    expect(await verifyExport(forged, 'jsonl', anchorOf)).toMatchObject({ ok: false, problem: 'checkpoint_mismatch', firstBadSequence: last });
    const cut = file('cut.jsonl');
    writeJsonl(cut, jsonlRows(out).slice(0, -1));
    expect(await verifyExport(cut, 'jsonl', anchorOf)).toMatchObject({ ok: false, problem: 'truncated', firstBadSequence: last });
    // The command: the signature checked with the public key file, then the chain against the checkpoint.
    const withCheckpoint = ['--checkpoint', checkpointFile, '--public-key', publicKeyFile];
    const [good, bad] = await Promise.all([verifyFile(out, withCheckpoint), verifyFile(forged, withCheckpoint)]);
    expect(good).toMatchObject({ code: 0, result: { ok: true, checkpointSequence: last } });
    expect(bad).toMatchObject({ code: 1, result: { ok: false, problem: 'checkpoint_mismatch', checkpointSequence: last } });
  });
});

describe('bad input: a clear error, exit 2 for usage, 1 for what is wrong with the data', () => {
  test('an unknown org: NOT_FOUND (exit 1), no file written', async () => {
    const out = file('none.jsonl');
    const res = await cli(['ledger', 'export', '--org', randomUUID(), '--out', out]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('NOT_FOUND');
    expect(fs.existsSync(out)).toBe(false);
  });

  test('export with a bad --format, --from or --to, or an empty range, exits 2 naming the option', async () => {
    const cases: [string[], string][] = [
      [['--format', 'xml'], '--format must be one of jsonl, csv, got "xml"'],
      [['--from', '2026-13-45'], '--from must be an ISO 8601 date or timestamp with its offset'],
      [['--to', '2026-12-01T10:00:00'], '--to must be an ISO 8601 date or timestamp with its offset'],
      [['--from', '2026-12-02', '--to', '2026-12-01'], '--from (2026-12-02) must be before --to (2026-12-01)'],
    ];
    const results = await Promise.all(cases.map(([args]) => cli(['ledger', 'export', '--org', randomUUID(), ...args])));
    results.forEach((res, i) => {
      expect(res).toMatchObject({ code: 2, stdout: '' });
      expect(res.stderr).toContain(cases[i][1]);
    });
  });

  test('a file that is not an export: LEDGER_EXPORT_INVALID (exit 1); a missing file or --org with --file: exit 2', async () => {
    const notJson = file('bad.jsonl');
    fs.writeFileSync(notJson, `${JSON.stringify({ id: '1' }).slice(0, -1)}\n`);
    const badCsv = file('bad.csv');
    fs.writeFileSync(badCsv, 'a,b\n1,2\n');
    const [bad, csv, missing, withOrg] = await Promise.all([
      cli(['ledger', 'verify', '--file', notJson]),
      cli(['ledger', 'verify', '--file', badCsv]),
      cli(['ledger', 'verify', '--file', file('missing.jsonl')]),
      cli(['ledger', 'verify', '--file', notJson, '--org', randomUUID()]),
    ]);
    expect(bad).toMatchObject({ code: 1, stdout: '' });
    expect(bad.stderr).toContain('LEDGER_EXPORT_INVALID: not a Toolgate ledger export: line 1 is not JSON');
    expect(csv.stderr).toContain('LEDGER_EXPORT_INVALID: not a Toolgate ledger export: its header');
    expect(missing).toMatchObject({ code: 2 });
    expect(withOrg).toMatchObject({ code: 2 });
  });
});

/** An exported row as the hash sees it. */
function recordOf(row: Record<string, never>): LedgerRecord {
  return {
    id: row.id,
    orgId: row.org_id,
    sequence: row.sequence,
    hashVersion: row.hash_version,
    type: row.type,
    runId: row.run_id,
    resourceId: row.resource_id,
    actorRole: row.actor_role,
    actorKeyId: row.actor_key_id,
    metadata: row.metadata,
    createdAt: row.created_at,
    prevHash: row.prev_hash,
  };
}
