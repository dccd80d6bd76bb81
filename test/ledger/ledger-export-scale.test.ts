import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { CLI } from '../support/processes';
import { startTestApp, TEST_MASTER_KEY_HEX, type TestApp } from '../support/app';
import { newOrg } from '../support/factories';
import { Client } from 'pg';
import { APPEND_POINT, EVENT_COLUMNS, chainRecords, ledgerRowValues, type AppendPoint } from '../../src/ledger/ledger.service';

/**
 * The issue's done-when: an export of 100,000 events verifies offline, and neither the
 * exporter nor the verifier grows with the export. Both commands run as processes whose
 * peak RSS (process.resourceUsage().maxRSS, printed at exit by a preloaded one-liner) is
 * compared between an org of 10,000 events and one of 100,000: buffering the export (53 MB
 * of JSON Lines for 100,000 events, about twice that as row objects) would add far more
 * than the bound. docs/ledger.md notes the figures.
 */
jest.setTimeout(240_000);

const SMALL = 10_000;
const LARGE = 100_000;
/** Events per INSERT. */
const BATCH = 10_000;
/** Buffering would hold 100,000 rows as objects (about 1 kB each): far above this. */
const GROWTH_BOUND_KB = 40 * 1024;
/**
 * Every command runs with V8's old space capped at this (the app itself needs about 60 MB):
 * a buffered export of 100,000 events (53 MB of text, about twice that as row objects) would
 * not fit, and the cap makes V8 collect instead of growing lazily, so peak RSS measures what
 * is held, not garbage not yet collected (uncapped, the growth varied from 5 to 130 MB).
 */
const HEAP_CAP_MB = 96;
/**
 * The young generation, capped too: Node 24's V8 sizes its semi-spaces by the machine's
 * memory (tens of MB each), outside the old-space cap, so peak RSS varied by up to 40 MB
 * between runs of the same export. 8 MB keeps the measure on what is held.
 */
const SEMI_SPACE_MB = 8;
const REPORT_RSS = `data:text/javascript,process.on('exit',()=>process.stderr.write('maxrss_kb='+process.resourceUsage().maxRSS+'\\n'))`;

let app: TestApp;
let dir: string;

beforeAll(async () => {
  app = await startTestApp();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-export-scale-'));
});

afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await app?.close();
});

/**
 * An org whose chain is `count` events long. Batches are appended as the ledger service
 * does (the append point, then chainRecords), but sent as one INSERT of arrays per batch:
 * the head trigger moves with them, and 100,000 events take seconds instead of minutes.
 */
async function orgOf(count: number): Promise<string> {
  const orgId = (await newOrg(app.em())).org.id;
  const pg = new Client({ connectionString: app.db.url });
  await pg.connect();
  try {
    const [{ n }] = (await pg.query<{ n: string }>('select count(*) as n from ledger_events where org_id = $1', [orgId])).rows;
    let left = count - Number(n);
    let i = 0;
    const types = ['bigint', 'uuid', 'bigint', 'smallint', 'text', 'uuid', 'text', 'text', 'uuid', 'jsonb', 'timestamptz', 'text', 'text'];
    const insert = `insert into ledger_events (${EVENT_COLUMNS}) select * from unnest(${types.map((t, k) => `$${k + 1}::${t}[]`).join(', ')})`;
    while (left > 0) {
      const size = Math.min(BATCH, left);
      await pg.query('begin');
      const { rows } = await pg.query<AppendPoint>(APPEND_POINT.replace('?, ?, ?, ?', '$1, $2, $3, $4'), [orgId, size, null, null]);
      const entries = Array.from({ length: size }, () => ({
        type: 'tool_call.requested' as const,
        resourceId: randomUUID(),
        actor: { role: 'agent' as const, keyId: randomUUID() },
        metadata: { i: i++, tool: 'order_lookup.lookup', amount: 120.5 },
      }));
      const values = chainRecords(orgId, rows[0], entries).map(ledgerRowValues);
      await pg.query(
        insert,
        types.map((_, k) => values.map((v) => v[k])),
      );
      await pg.query('commit');
      left -= size;
    }
  } finally {
    await pg.end();
  }
  return orgId;
}

/** One command with its peak RSS in kB. */
function measured(args: string[]): Promise<{ code: number; stdout: string; stderr: string; maxRssKb: number }> {
  const env = { PATH: process.env.PATH, NODE_ENV: 'test', DATABASE_URL: app.db.url, LOG_LEVEL: 'silent', MASTER_ENCRYPTION_KEY: TEST_MASTER_KEY_HEX };
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [`--max-old-space-size=${HEAP_CAP_MB}`, `--max-semi-space-size=${SEMI_SPACE_MB}`, '--import', REPORT_RSS, CLI, ...args],
      { env, timeout: 120_000 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') return reject(error);
        const rss = /maxrss_kb=(\d+)/.exec(stderr);
        if (!rss) return reject(new Error(`no maxrss reported: ${stderr}`));
        resolve({ code: error ? (error.code as number) : 0, stdout, stderr: stderr.replace(rss[0], '').trim(), maxRssKb: Number(rss[1]) });
      },
    );
  });
}

async function exportAndVerify(orgId: string, count: number, format: 'jsonl' | 'csv') {
  const out = path.join(dir, `${count}.${format}`);
  const started = Date.now();
  const exported = await measured(['ledger', 'export', '--org', orgId, '--format', format, '--out', out]);
  const exportMs = Date.now() - started;
  expect(exported).toMatchObject({ code: 0, stderr: '' });
  expect(exported.stdout).toBe(`Exported ${count} event(s) of org ${orgId}, sequences 1 to ${count} to ${out} (${format}).\n`);
  const verified = await measured(['ledger', 'verify', '--file', out]);
  const verifyMs = Date.now() - started - exportMs;
  expect(verified).toMatchObject({ code: 0, stdout: `org ${orgId}: ok (${count} events, sequences 1 to ${count})\n`, stderr: '' });
  return { bytes: fs.statSync(out).size, exporterKb: exported.maxRssKb, verifierKb: verified.maxRssKb, exportMs, verifyMs };
}

test(`an export of ${LARGE.toLocaleString('en')} events verifies offline; exporter and verifier memory stays flat (vs ${SMALL.toLocaleString('en')})`, async () => {
  const started = Date.now();
  const [small, large] = [await orgOf(SMALL), await orgOf(LARGE)];
  const insertMs = Date.now() - started;
  const figures: Record<string, Awaited<ReturnType<typeof exportAndVerify>>> = {};
  for (const format of ['jsonl', 'csv'] as const) {
    figures[`${SMALL} ${format}`] = await exportAndVerify(small, SMALL, format);
    figures[`${LARGE} ${format}`] = await exportAndVerify(large, LARGE, format);
  }
  // The figures docs/ledger.md quotes.
  process.stdout.write(
    `ledger export scale (maxRSS kB, file bytes, ms; ${SMALL + LARGE} events inserted in ${insertMs} ms): ${JSON.stringify(figures)}\n`,
  );
  for (const format of ['jsonl', 'csv'] as const) {
    const [s, l] = [figures[`${SMALL} ${format}`], figures[`${LARGE} ${format}`]];
    expect(l.bytes).toBeGreaterThan(s.bytes * 9);
    expect(l.exporterKb - s.exporterKb).toBeLessThan(GROWTH_BOUND_KB);
    expect(l.verifierKb - s.verifierKb).toBeLessThan(GROWTH_BOUND_KB);
  }
});
