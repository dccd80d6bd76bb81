import path from 'node:path';
import { createHash, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { runCliOn } from '../support/processes';
import { startTestApp, errorCode, TEST_MASTER_KEY_HEX, type TestApp } from '../support/app';
import { newOrg, type TestOrg } from '../support/factories';
import { recordOf, ledgerRowsOf, type LedgerRow } from '../support/ledger-rows';
import { graphql } from '../gql';
import type { VerifyLedgerQuery } from '../gql/graphql';
import { appendLedgerEvent, appendLedgerEvents } from '../../src/ledger/ledger.service';
import { ledgerHash, type LedgerRecord } from '../../src/ledger/ledger-hash';
import { VERIFY_PAGE, verifyLedger } from '../../src/ledger/ledger-verify';

/**
 * verifyLedger (GraphQL and `toolgate ledger verify`) against a chain tampered with
 * directly in PostgreSQL: the append-only trigger is bypassed for one session with
 * session_replication_role = replica (the test user is a superuser), as an attacker with
 * database access would. Each tampering must be named at the exact row.
 */
const _CLI = path.join(__dirname, '..', '..', 'dist', 'src', 'cli.js');

// Each CLI run is a fresh node process (about 1-3 s under load).
jest.setTimeout(60_000);

const VERIFY = graphql(`
  query VerifyLedger {
    verifyLedger { ok eventsChecked firstBadSequence firstBadEventId problem }
  }
`);
type Verification = VerifyLedgerQuery['verifyLedger'];

let app: TestApp;
/** Tampering connection: triggers (the append-only one included) off for this session. */
let tamper: Client;

beforeAll(async () => {
  app = await startTestApp();
  tamper = new Client({ connectionString: app.db.url });
  await tamper.connect();
  await tamper.query('set session_replication_role = replica');
});

afterAll(async () => {
  await tamper?.end();
  await app?.close();
});

/** An org with its own events (org, keys, specialist) and `extra` more, 1..n in order. */
async function chain(extra = 8): Promise<{ owner: TestOrg; rows: LedgerRow[] }> {
  const owner = await newOrg(app.em());
  for (let i = 0; i < extra; i++) {
    await app.em().transactional((tx) =>
      appendLedgerEvent(tx, {
        orgId: owner.org.id,
        type: 'policy.changed',
        resourceId: randomUUID(),
        actor: { role: 'admin', keyId: randomUUID() },
        metadata: { i, nested: { amount: 120.5, tags: ['a', 'b'] } },
      }),
    );
  }
  const rows = await rowsOf(owner.org.id);
  expect(rows.map((r) => r.sequence)).toEqual(rows.map((_, i) => String(i + 1)));
  return { owner, rows };
}

const rowsOf = (orgId: string) => ledgerRowsOf(tamper, orgId);

async function viaGraphql(key: string): Promise<Verification> {
  const res = await app.gql(VERIFY, { key });
  expect(res.body.errors).toBeUndefined();
  return res.body.data!.verifyLedger;
}

const cli = (args: string[]) => runCliOn(app.db, TEST_MASTER_KEY_HEX, args, {}, 25_000);

async function viaCli(orgId: string): Promise<{ code: number; result: Verification & { orgId: string } }> {
  const { code, stdout, stderr } = await cli(['ledger', 'verify', '--org', orgId, '--json']);
  const lines = stdout.trim().split('\n');
  expect({ lines: lines.length, stderr }).toEqual({ lines: 1, stderr: '' });
  return { code, result: JSON.parse(lines[0]) };
}

/**
 * GraphQL (admin and expert keys) and the CLI (--json, and the text line when `text`)
 * agree: broken at `row` with `problem`, exit 1.
 */
async function expectBrokenAt(owner: TestOrg, row: LedgerRow, problem: string, eventsChecked: number, text = false): Promise<void> {
  const expected = { ok: false, eventsChecked, firstBadSequence: row.sequence, firstBadEventId: String(row.id), problem };
  const [json, plain] = await Promise.all([viaCli(owner.org.id), text ? cli(['ledger', 'verify', '--org', owner.org.id]) : null]);
  expect(await viaGraphql(owner.keys.admin)).toEqual(expected);
  expect(await viaGraphql(owner.keys.expert)).toEqual(expected);
  expect(json).toEqual({ code: 1, result: { orgId: owner.org.id, ...expected } });
  if (plain) {
    expect(plain.code).toBe(1);
    expect(plain.stdout).toBe(`org ${owner.org.id}: BROKEN at sequence ${row.sequence} (event ${row.id}): ${problem}\n`);
  }
}

describe('a clean chain', () => {
  test('verifies ok over GraphQL (admin, expert) and the CLI (exit 0)', async () => {
    const { owner, rows } = await chain();
    const expected = { ok: true, eventsChecked: rows.length, firstBadSequence: null, firstBadEventId: null, problem: null };
    expect(await viaGraphql(owner.keys.admin)).toEqual(expected);
    expect(await viaGraphql(owner.keys.expert)).toEqual(expected);
    const [json, text] = await Promise.all([viaCli(owner.org.id), cli(['ledger', 'verify', '--org', owner.org.id])]);
    expect(json).toEqual({ code: 0, result: { orgId: owner.org.id, ...expected } });
    expect(text).toMatchObject({ code: 0, stdout: `org ${owner.org.id}: ok (${rows.length} events)\n` });
  });

  test('client, partner and agent keys are FORBIDDEN; no key is UNAUTHENTICATED', async () => {
    const { owner } = await chain(0);
    for (const role of ['client', 'partner', 'agent'] as const) {
      const res = await app.gql(VERIFY, { key: owner.keys[role] });
      expect(errorCode(res)).toBe('FORBIDDEN');
    }
    expect(errorCode(await app.gql(VERIFY))).toBe('UNAUTHENTICATED');
  });

  test('each org is verified on its own: tampering in one does not fail another', async () => {
    const a = await chain(3);
    const b = await chain(3);
    await tamper.query(`update ledger_events set metadata = '{"forged": true}' where id = $1`, [a.rows[1].id]);
    expect((await viaGraphql(a.owner.keys.admin)).ok).toBe(false);
    expect(await viaGraphql(b.owner.keys.admin)).toMatchObject({ ok: true, eventsChecked: b.rows.length });
    expect((await viaCli(b.owner.org.id)).code).toBe(0);
  });

  test('the CLI refuses an unknown org (exit 1, NOT_FOUND)', async () => {
    const res = await cli(['ledger', 'verify', '--org', randomUUID(), '--json']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('NOT_FOUND');
  });
});

describe('tampering is detected at the exact row', () => {
  test("an edited event's metadata: hash_mismatch at its sequence", async () => {
    const { owner, rows } = await chain();
    const k = 5;
    await tamper.query(`update ledger_events set metadata = jsonb_set(metadata, '{i}', '99') where id = $1`, [rows[k - 1].id]);
    await expectBrokenAt(owner, rows[k - 1], 'hash_mismatch', k - 1, true);
  });

  test('an edited actor: hash_mismatch at its sequence', async () => {
    const { owner, rows } = await chain();
    await tamper.query(`update ledger_events set actor_role = 'expert' where id = $1`, [rows[6].id]);
    await expectBrokenAt(owner, rows[6], 'hash_mismatch', 6);
  });

  test('an edited timestamp: hash_mismatch at its sequence', async () => {
    const { owner, rows } = await chain();
    await tamper.query(`update ledger_events set created_at = created_at + interval '1 second' where id = $1`, [rows[2].id]);
    await expectBrokenAt(owner, rows[2], 'hash_mismatch', 2);
  });

  test('an edit that also recomputes the own hash: broken_link at the next event', async () => {
    const { owner, rows } = await chain();
    const k = 4;
    const event = recordOf(rows[k - 1]);
    event.metadata = { ...event.metadata, i: 1000 };
    await tamper.query('update ledger_events set metadata = $1, hash = $2 where id = $3', [event.metadata, ledgerHash(event), rows[k - 1].id]);
    await expectBrokenAt(owner, rows[k], 'broken_link', k);
  });

  test('a deleted event: sequence_gap at the next one', async () => {
    const { owner, rows } = await chain();
    const k = 6;
    await tamper.query('delete from ledger_events where id = $1', [rows[k - 1].id]);
    await expectBrokenAt(owner, rows[k], 'sequence_gap', k - 1, true);
  });

  test("two events' content swapped: broken_link at the first swapped", async () => {
    const { owner, rows } = await chain();
    const k = 3;
    const [a, b] = [rows[k - 1], rows[k]];
    const set = `type = $2, run_id = $3, resource_id = $4, actor_role = $5, actor_key_id = $6, metadata = $7, prev_hash = $8, hash = $9, created_at = $10`;
    const values = (r: LedgerRow) => [r.type, r.run_id, r.resource_id, r.actor_role, r.actor_key_id, r.metadata, r.prev_hash, r.hash, r.created_at];
    await tamper.query(`update ledger_events set ${set} where id = $1`, [a.id, ...values(b)]);
    await tamper.query(`update ledger_events set ${set} where id = $1`, [b.id, ...values(a)]);
    await expectBrokenAt(owner, a, 'broken_link', k - 1);
  });

  test("two events' metadata swapped (links and hashes left): hash_mismatch at the first swapped", async () => {
    const { owner, rows } = await chain();
    const k = 7;
    const [a, b] = [rows[k - 1], rows[k]];
    await tamper.query('update ledger_events set metadata = $1 where id = $2', [b.metadata, a.id]);
    await tamper.query('update ledger_events set metadata = $1 where id = $2', [a.metadata, b.id]);
    await expectBrokenAt(owner, a, 'hash_mismatch', k - 1);
  });

  test('two events swapped by sequence number: broken_link at the first position', async () => {
    const { owner, rows } = await chain();
    const k = 4;
    const [a, b] = [rows[k - 1], rows[k]];
    await tamper.query('update ledger_events set sequence = -1 where id = $1', [a.id]);
    await tamper.query('update ledger_events set sequence = $1 where id = $2', [a.sequence, b.id]);
    await tamper.query('update ledger_events set sequence = $1 where id = $2', [b.sequence, a.id]);
    // Position k now holds b, whose prevHash is a's hash, not that of k - 1.
    await expectBrokenAt(owner, { ...b, sequence: a.sequence }, 'broken_link', k - 1);
  });

  test('a forged event inserted mid-chain (later sequences renumbered): detected at the forged row', async () => {
    const { owner, rows } = await chain();
    const k = 5;
    const forged = await insertForged(owner.org.id, rows, k, (event) => createHash('sha256').update(`forged ${event.sequence}`).digest('hex'));
    await expectBrokenAt(owner, forged, 'hash_mismatch', k - 1, true);
  });

  test('a forged event with a self-consistent hash: the chain breaks at the event it displaced', async () => {
    const { owner, rows } = await chain();
    const k = 5;
    const forged = await insertForged(owner.org.id, rows, k, (event) => ledgerHash(event)!);
    expect(forged.hash).toBe(ledgerHash(recordOf(forged)));
    // The forged row links and hashes correctly; the displaced event's link does not.
    const displaced = (await rowsOf(owner.org.id))[k];
    expect(displaced.id).toBe(rows[k - 1].id);
    await expectBrokenAt(owner, displaced, 'broken_link', k);
  });
});

describe('a chain of several pages (the walk reads it in keyset pages)', () => {
  /** An org whose chain runs two and a half pages: its own events and `extra` appended in one statement. */
  async function longChain(): Promise<{ owner: TestOrg; rows: LedgerRow[] }> {
    const owner = await newOrg(app.em());
    const extra = Array.from({ length: 2.5 * VERIFY_PAGE }, (_, i) => ({
      orgId: owner.org.id,
      type: 'policy.changed' as const,
      resourceId: randomUUID(),
      actor: { role: 'admin' as const, keyId: randomUUID() },
      metadata: { i },
    }));
    await app.em().transactional((tx) => appendLedgerEvents(tx, extra));
    const rows = await rowsOf(owner.org.id);
    expect(rows.length).toBeGreaterThan(2.5 * VERIFY_PAGE);
    return { owner, rows };
  }

  test('verifies ok to its last event, over GraphQL and the CLI', async () => {
    const { owner, rows } = await longChain();
    const expected = { ok: true, eventsChecked: rows.length, firstBadSequence: null, firstBadEventId: null, problem: null };
    expect(await viaGraphql(owner.keys.admin)).toEqual(expected);
    expect(await viaCli(owner.org.id)).toEqual({ code: 0, result: { orgId: owner.org.id, ...expected } });
  });

  test('an edit at the first event of the third page, and one in the first page of a long chain: each named at its row', async () => {
    const third = await longChain();
    const k = 2 * VERIFY_PAGE + 1;
    await tamper.query(`update ledger_events set metadata = '{"forged": true}' where id = $1`, [third.rows[k - 1].id]);
    await expectBrokenAt(third.owner, third.rows[k - 1], 'hash_mismatch', k - 1);

    const first = await longChain();
    await tamper.query(`update ledger_events set actor_role = 'expert' where id = $1`, [first.rows[9].id]);
    await expectBrokenAt(first.owner, first.rows[9], 'hash_mismatch', 9);
  });

  test("the last event of a page deleted: sequence_gap at the next one, the page's new last", async () => {
    const { owner, rows } = await longChain();
    await tamper.query('delete from ledger_events where id = $1', [rows[VERIFY_PAGE - 1].id]);
    await expectBrokenAt(owner, rows[VERIFY_PAGE], 'sequence_gap', VERIFY_PAGE - 1);
  });
});

describe('50 concurrent writers', () => {
  test('parallel appends for one org: sequences 1..N without gaps or duplicates, chain verifies', async () => {
    const owner = await newOrg(app.em());
    const before = (await rowsOf(owner.org.id)).length;
    const appended = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        app
          .em()
          .transactional((tx) =>
            appendLedgerEvent(tx, { orgId: owner.org.id, type: 'permission.changed', resourceId: `w${i}`, metadata: { writer: i } }),
          ),
      ),
    );
    const sequences = appended.map((e) => Number(e.sequence)).sort((x, y) => x - y);
    expect(sequences).toEqual(Array.from({ length: 50 }, (_, i) => before + i + 1));

    const rows = await rowsOf(owner.org.id);
    expect(rows).toHaveLength(before + 50);
    expect(rows.map((r) => r.sequence)).toEqual(rows.map((_, i) => String(i + 1)));
    expect(new Set(rows.map((r) => r.hash)).size).toBe(rows.length);
    for (let i = 1; i < rows.length; i++) expect(rows[i].prev_hash).toBe(rows[i - 1].hash);
    expect(
      rows
        .filter((r) => r.type === 'permission.changed')
        .map((r) => (r.metadata as { writer: number }).writer)
        .sort((x, y) => x - y),
    ).toEqual(Array.from({ length: 50 }, (_, i) => i));

    expect(await verifyLedger(app.em(), owner.org.id)).toEqual({
      orgId: owner.org.id,
      ok: true,
      eventsChecked: before + 50,
      firstBadSequence: null,
      firstBadEventId: null,
      problem: null,
    });
    expect(await viaGraphql(owner.keys.admin)).toMatchObject({ ok: true, eventsChecked: before + 50 });
  });
});

/**
 * Moves events k.. one place up and inserts a forged event at sequence k, linked to the
 * real event k - 1. `hashOf` decides how well the forger covers its tracks.
 */
async function insertForged(orgId: string, rows: LedgerRow[], k: number, hashOf: (event: LedgerRecord) => string): Promise<LedgerRow> {
  await tamper.query('update ledger_events set sequence = -sequence where org_id = $1 and sequence >= $2', [orgId, k]);
  await tamper.query('update ledger_events set sequence = -sequence + 1 where org_id = $1 and sequence < 0', [orgId]);
  const [{ id }] = (await tamper.query<{ id: string }>("select nextval('ledger_events_id_seq')::text as id")).rows;
  const event: LedgerRecord = {
    id,
    sequence: String(k),
    orgId,
    hashVersion: 2,
    runId: null,
    resourceId: randomUUID(),
    type: 'credential.rotated',
    actorRole: 'admin',
    actorKeyId: null,
    metadata: { forged: true },
    prevHash: rows[k - 2].hash,
    createdAt: rows[k - 2].created_at_text.replace(/\d{6}Z$/, '999999Z'),
  };
  await tamper.query(
    `insert into ledger_events (id, sequence, org_id, run_id, resource_id, type, actor_role, actor_key_id, metadata, prev_hash, hash, hash_version, created_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      event.id,
      event.sequence,
      orgId,
      event.runId,
      event.resourceId,
      event.type,
      event.actorRole,
      event.actorKeyId,
      event.metadata,
      event.prevHash,
      hashOf(event),
      event.hashVersion,
      event.createdAt,
    ],
  );
  const all = await rowsOf(orgId);
  expect(all.map((r) => r.sequence)).toEqual(all.map((_, i) => String(i + 1)));
  expect(all[k - 1].id).toBe(id);
  return all[k - 1];
}
