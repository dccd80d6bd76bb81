import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { initOrm } from '../../src/db/orm';
import { ENTITIES } from '../../src/app/entities';
import { appendLedgerEvent } from '../../src/ledger/ledger.service';
import { canonicalColumns, ledgerHash } from '../../src/ledger/ledger-hash';
import { verifyLedger } from '../../src/ledger/ledger-verify';
import type { LedgerEventType } from '../../src/ledger/ledger-event-types';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { recordOf, ledgerRowsOf, type LedgerRow } from '../support/ledger-rows';

let db: TestDatabase;
let orm: MikroORM;
let pg: Client;

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await initOrm({ entities: ENTITIES, clientUrl: db.url, poolMax: 8 });
  pg = new Client({ connectionString: db.url });
  await pg.connect();
});

afterAll(async () => {
  await pg?.end();
  await orm?.close(true);
  await db?.drop();
});

/** A bare org row; the ledger only needs the foreign key to hold. */
async function newOrgId(): Promise<string> {
  const id = randomUUID();
  await pg.query("insert into orgs (id, name, created_at) values ($1, 'Ledger test', now())", [id]);
  return id;
}

async function append(orgId: string, type: LedgerEventType = 'policy.changed', metadata: Record<string, unknown> = {}) {
  return orm.em.fork().transactional((tx) => appendLedgerEvent(tx, { orgId, type, resourceId: randomUUID(), metadata }));
}

const rowsOf = (orgId: string) => ledgerRowsOf(pg, orgId);

/** Sequences 1..n without gaps, in insertion order; each prevHash is the previous hash. */
function expectUnbrokenChain(rows: LedgerRow[]): void {
  expect(rows.length).toBeGreaterThan(0);
  expect(rows.map((r) => r.sequence)).toEqual(rows.map((_, i) => String(i + 1)));
  expect(rows.map((r) => BigInt(r.id))).toEqual(rows.map((r) => BigInt(r.id)).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
  expect(rows[0].prev_hash).toBeNull();
  for (let i = 1; i < rows.length; i++) expect(rows[i].prev_hash).toBe(rows[i - 1].hash);
  expect(new Set(rows.map((r) => r.hash)).size).toBe(rows.length);
}

describe('hash chain', () => {
  test('each org has its own chain: first prevHash null, then each links to the previous hash', async () => {
    const a = await newOrgId();
    const b = await newOrgId();
    const a1 = await append(a, 'org.created', { n: 1 });
    const b1 = await append(b, 'org.created', { n: 1 });
    const a2 = await append(a, 'api_key.created', { n: 2 });
    const b2 = await append(b, 'api_key.created', { n: 2 });
    const a3 = await append(a, 'policy.changed', { n: 3 });

    expect([a1, a2, a3].map((e) => String(e.sequence))).toEqual(['1', '2', '3']);
    expect([b1, b2].map((e) => String(e.sequence))).toEqual(['1', '2']);
    expect(a1.prevHash).toBeNull();
    expect(b1.prevHash).toBeNull();
    expect(a2.prevHash).toBe(a1.hash);
    expect(a3.prevHash).toBe(a2.hash);
    expect(b2.prevHash).toBe(b1.hash);

    const rowsA = await rowsOf(a);
    const rowsB = await rowsOf(b);
    expect(rowsA.map((r) => r.hash)).toEqual([a1.hash, a2.hash, a3.hash]);
    expect(rowsB.map((r) => r.hash)).toEqual([b1.hash, b2.hash]);
    expectUnbrokenChain(rowsA);
    expectUnbrokenChain(rowsB);
  });

  test('ledgerHash recomputed from the stored row equals the stored hash', async () => {
    const orgId = await newOrgId();
    await append(orgId, 'org.created', { name: 'x', nested: { b: 2, a: [1, { z: true, y: null }] } });
    await orm.em.fork().transactional((tx) =>
      appendLedgerEvent(tx, {
        orgId,
        type: 'api_key.created',
        resourceId: 'key-1',
        actor: { role: 'admin', keyId: randomUUID() },
        metadata: { role: 'expert' },
      }),
    );
    const rows = await rowsOf(orgId);
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(ledgerHash(recordOf(row))).toBe(row.hash);

    // And the hash covers the content: a changed field gives another hash.
    const tampered = recordOf(rows[1]);
    tampered.metadata = { role: 'admin' };
    expect(ledgerHash(tampered)).not.toBe(rows[1].hash);
    const moved = recordOf(rows[1]);
    moved.sequence = '3';
    const renumbered = recordOf(rows[1]);
    renumbered.id = String(BigInt(renumbered.id) + 1n);
    expect(ledgerHash(renumbered)).not.toBe(rows[1].hash);
    const later = recordOf(rows[1]);
    later.createdAt = later.createdAt.replace(/\d(?=Z$)/, (d) => String((Number(d) + 1) % 10));
    expect(ledgerHash(later)).not.toBe(rows[1].hash);
    expect(ledgerHash(moved)).not.toBe(rows[1].hash);
  });

  test('appendLedgerEvent outside a transaction throws and writes nothing', async () => {
    const orgId = await newOrgId();
    await expect(appendLedgerEvent(orm.em.fork(), { orgId, type: 'org.created' })).rejects.toThrow(/transaction/);
    expect(await rowsOf(orgId)).toEqual([]);
  });

  test('a rolled-back transaction leaves no event and does not break the chain', async () => {
    const orgId = await newOrgId();
    const first = await append(orgId);
    await expect(
      orm.em.fork().transactional(async (tx) => {
        await appendLedgerEvent(tx, { orgId, type: 'policy.changed' });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    const second = await append(orgId);
    expect(second.prevHash).toBe(first.hash);
    const rows = await rowsOf(orgId);
    expect(rows).toHaveLength(2);
    expectUnbrokenChain(rows);
  });

  test('20 concurrent appends for one org produce an unbroken chain of 20 distinct links', async () => {
    const orgId = await newOrgId();
    const events = await Promise.all(Array.from({ length: 20 }, (_, i) => append(orgId, 'policy.changed', { i })));
    expect(new Set(events.map((e) => e.hash)).size).toBe(20);

    const rows = await rowsOf(orgId);
    expect(rows).toHaveLength(20);
    expectUnbrokenChain(rows);
    expect(new Set(rows.map((r) => r.prev_hash)).size).toBe(20);
    expect(rows.map((r) => (r.metadata as { i: number }).i).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    for (const row of rows) expect(ledgerHash(recordOf(row))).toBe(row.hash);
  });
});

describe('the hash covers every stored column', () => {
  test('the version 2 canonical form names each column of ledger_events but the hash itself', async () => {
    const orgId = await newOrgId();
    await append(orgId);
    const [row] = await rowsOf(orgId);
    const columns = await pg.query<{ column_name: string }>(
      "select column_name from information_schema.columns where table_schema = 'public' and table_name = 'ledger_events'",
    );
    // A column added later without being hashed fails here.
    expect(Object.keys(canonicalColumns(recordOf(row))).sort()).toEqual(
      columns.rows
        .map((c) => c.column_name)
        .filter((c) => c !== 'hash')
        .sort(),
    );
    expect(row.hash_version).toBe(2);
  });

  test('the timestamp is hashed to the microsecond as stored; the ids run with the sequence', async () => {
    const orgId = await newOrgId();
    const [a, b] = [await append(orgId), await append(orgId)];
    const rows = await rowsOf(orgId);
    for (const row of rows) expect(row.created_at_text).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(rows.map((r) => String(r.id))).toEqual([a.id, b.id]);
    expect(BigInt(b.id)).toBeGreaterThan(BigInt(a.id));
    // What the append returned is what was stored (the entity's date holds milliseconds).
    expect(a.createdAt.toISOString()).toBe(`${rows[0].created_at_text.slice(0, 23)}Z`);
  });
});

describe("each org's head", () => {
  const headOf = async (orgId: string) =>
    (await pg.query<{ sequence: string; hash: string }>('select sequence, hash from ledger_heads where org_id = $1', [orgId])).rows[0] ?? null;

  test('follows every append, and a rolled-back append leaves it where it was', async () => {
    const orgId = await newOrgId();
    expect(await headOf(orgId)).toBeNull();
    await append(orgId);
    const second = await append(orgId);
    expect(await headOf(orgId)).toEqual({ sequence: '2', hash: second.hash });
    await expect(
      orm.em.fork().transactional(async (tx) => {
        await appendLedgerEvent(tx, { orgId, type: 'policy.changed' });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await headOf(orgId)).toEqual({ sequence: '2', hash: second.hash });
  });

  test('a connection killed between the append and its commit leaves chain and head as they were; appends go on', async () => {
    const orgId = await newOrgId();
    const first = await append(orgId);
    // An ORM of its own: the killed connection is not handed to the other tests.
    const doomed = await initOrm({ entities: ENTITIES, clientUrl: db.url, poolMax: 1 });
    try {
      await expect(
        doomed.em.fork().transactional(async (tx) => {
          await appendLedgerEvent(tx, { orgId, type: 'policy.changed' });
          const [{ pid }] = await tx.execute<{ pid: number }[]>('select pg_backend_pid() as pid');
          await pg.query('select pg_terminate_backend($1)', [pid]);
          await tx.execute('select 1');
        }),
      ).rejects.toThrow();
    } finally {
      await doomed.close(true);
    }
    expect(await headOf(orgId)).toEqual({ sequence: '1', hash: first.hash });
    const second = await append(orgId);
    expect(second.prevHash).toBe(first.hash);
    expect(await headOf(orgId)).toEqual({ sequence: '2', hash: second.hash });
    expect(await verifyLedger(orm.em.fork(), orgId)).toMatchObject({ ok: true, eventsChecked: 2 });
  });

  test('only moves forward: moving it back, deleting or truncating it is refused with TGL01', async () => {
    const orgId = await newOrgId();
    const event = await append(orgId);
    await expect(pg.query('update ledger_heads set sequence = 0 where org_id = $1', [orgId])).rejects.toMatchObject({ code: 'TGL01' });
    await expect(pg.query("update ledger_heads set hash = 'forged' where org_id = $1", [orgId])).rejects.toMatchObject({ code: 'TGL01' });
    await expect(pg.query('delete from ledger_heads where org_id = $1', [orgId])).rejects.toMatchObject({ code: 'TGL01' });
    await expect(pg.query('truncate ledger_heads')).rejects.toMatchObject({ code: 'TGL01' });
    expect(await headOf(orgId)).toEqual({ sequence: '1', hash: event.hash });
  });
});

describe('append-only in the database', () => {
  let orgId: string;
  let before: LedgerRow;

  beforeAll(async () => {
    orgId = await newOrgId();
    await append(orgId, 'org.created', { name: 'immutable' });
    [before] = await rowsOf(orgId);
  });

  afterEach(async () => {
    // Whatever was attempted, the row is exactly as written.
    expect(await rowsOf(orgId)).toEqual([before]);
  });

  test('UPDATE is refused with TGL01 (pg client)', async () => {
    await expect(pg.query("update ledger_events set type = 'rewritten' where id = $1", [before.id])).rejects.toMatchObject({
      code: 'TGL01',
      message: expect.stringContaining('append-only'),
    });
  });

  test('UPDATE of the hash through the ORM connection is refused with TGL01', async () => {
    await expect(orm.em.fork().execute("update ledger_events set hash = 'forged' where org_id = ?", [orgId])).rejects.toMatchObject({
      code: 'TGL01',
    });
  });

  test('DELETE is refused with TGL01', async () => {
    await expect(pg.query('delete from ledger_events where id = $1', [before.id])).rejects.toMatchObject({ code: 'TGL01' });
  });

  test('a second event with the same org sequence is refused by the unique constraint', async () => {
    await expect(
      pg.query(
        `insert into ledger_events (sequence, org_id, type, metadata, hash, hash_version, created_at)
         values ($1, $2, 'org.created', '{}', 'dup', 2, now())`,
        [before.sequence, orgId],
      ),
    ).rejects.toMatchObject({ code: '23505' });
  });

  test('TRUNCATE is refused with TGL01', async () => {
    await expect(pg.query('truncate ledger_events')).rejects.toMatchObject({ code: 'TGL01' });
  });

  test('an UPDATE that matches no row is harmless (the trigger is per row)', async () => {
    await expect(pg.query("update ledger_events set type = 'x' where org_id = $1", [randomUUID()])).resolves.toMatchObject({
      rowCount: 0,
    });
  });
});
