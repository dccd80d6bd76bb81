import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { startTestApp, type TestApp } from '../support/app';
import { newOrg } from '../support/factories';
import { ledgerRowsOf, recordOf } from '../support/ledger-rows';
import { appendLedgerEvents, type LedgerEntry } from '../../src/ledger/ledger.service';
import { canonicalColumns, canonicalParts, ledgerHash, type LedgerRecord } from '../../src/ledger/ledger-hash';
import { canonicalJson } from '../../src/ledger/canonical-json';
import { arrayLiteral } from '../../src/db/array-literal';
import { verifyLedger } from '../../src/ledger/ledger-verify';

/**
 * The one-round-trip append (`toolgate_ledger_append`): the database splices the id,
 * sequence, time and previous hash into the canonical pieces the node sends and hashes
 * them. What it hashes must be byte for byte what ledgerHash hashes, for any metadata.
 */

/** Metadata a JSON or array-literal encoder could get wrong. */
const AWKWARD: Record<string, unknown>[] = [
  {},
  { quote: 'say "hi"', backslash: 'C:\\path\\', braces: '{a,b}', comma: 'a,b', null: null, NULL: 'NULL' },
  { unicode: 'café ☕ 東京 𝄞', rtl: 'שלום', zwj: '👩‍💻', control: '\u0001\t\n' },
  { nested: { z: 1, a: [3, { y: true, b: null }], m: { '': 'empty key', ' ': 'space' } }, numbers: [0, -1.5, 1e21, 123456789.123] },
  { z: 'keys', a: 'out of order', B: 'capital', _: 'underscore', '10': 'digit' },
];

function record(metadata: Record<string, unknown>, overrides: Partial<LedgerRecord> = {}): LedgerRecord {
  return {
    id: '123456789',
    orgId: randomUUID(),
    sequence: '42',
    hashVersion: 2,
    type: 'policy.changed',
    runId: randomUUID(),
    resourceId: 'res "1"',
    actorRole: 'admin',
    actorKeyId: randomUUID(),
    metadata,
    createdAt: '2026-12-06T01:02:03.456789Z',
    prevHash: 'ab'.repeat(32),
    ...overrides,
  };
}

describe('canonical pieces', () => {
  it.each(AWKWARD.map((m, i) => [i, m]))('metadata %i: the pieces joined with the four chain values are the canonical JSON', (_i, metadata) => {
    for (const r of [record(metadata), record(metadata, { runId: null, actorKeyId: null, actorRole: null, resourceId: null, prevHash: null })]) {
      const [a, b, c, d, e] = canonicalParts(r);
      const text = JSON.stringify;
      const spliced = `${a}${text(r.createdAt)}${b}${text(r.id)}${c}${r.prevHash === null ? 'null' : text(r.prevHash)}${d}${text(r.sequence)}${e}`;
      expect(spliced).toBe(canonicalJson(canonicalColumns(r)));
    }
  });

  it('an array literal round-trips through PostgreSQL element for element', async () => {
    const app = await startTestApp();
    try {
      const values = [...AWKWARD.map((m) => JSON.stringify(m)), null, '', 'NULL', ' spaced ', '\\', '"'];
      const [row] = await app.em().execute<{ values: (string | null)[] }[]>('select ?::text[] as values', [arrayLiteral(values)]);
      expect(row.values).toEqual(values);
    } finally {
      await app.close();
    }
  });
});

describe('toolgate_ledger_append', () => {
  let app: TestApp;
  let pg: Client;
  beforeAll(async () => {
    app = await startTestApp();
    pg = new Client({ connectionString: app.db.url });
    await pg.connect();
  });
  afterAll(async () => {
    await pg?.end();
    await app?.close();
  });

  it('chains events the node did not hash: every hash is ledgerHash of the stored row, and the chain verifies', async () => {
    const owner = await newOrg(app.em());
    const before = (await ledgerRowsOf(pg, owner.org.id)).length;
    const entries: LedgerEntry[] = AWKWARD.map((metadata, i) => ({
      orgId: owner.org.id,
      type: 'policy.changed',
      resourceId: `resource ${i} "quoted"`,
      actor: i % 2 === 0 ? { role: 'admin', keyId: randomUUID().toUpperCase() } : null,
      metadata,
    }));
    // One append of several events (chained within the statement), then one of a single event.
    const many = await app.em().transactional((tx) => appendLedgerEvents(tx, entries.slice(0, 3)));
    const one = await app.em().transactional((tx) => appendLedgerEvents(tx, entries.slice(3)));
    expect([...many, ...one].map((e) => Number(e.sequence))).toEqual(entries.map((_, i) => before + i + 1));
    expect(many[1].prevHash).toBe(many[0].hash);
    expect(one[0].prevHash).toBe(many[2].hash);

    const rows = await ledgerRowsOf(pg, owner.org.id);
    const appended = rows.slice(before);
    expect(appended).toHaveLength(entries.length);
    for (const [i, row] of appended.entries()) {
      expect(row.hash).toBe(ledgerHash(recordOf(row)));
      expect(row.hash).toBe([...many, ...one][i].hash);
      expect(row.metadata).toEqual(entries[i].metadata);
    }
    const verified = await verifyLedger(app.em(), owner.org.id);
    expect(verified).toMatchObject({ ok: true, eventsChecked: rows.length });
  });
});
