import { createHash, randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { initOrm, migrateUp } from '../../src/db/orm';
import { ENTITIES } from '../../src/app/entities';
import { canonicalJson } from '../../src/ledger/canonical-json';
import { appendLedgerEvent } from '../../src/ledger/ledger.service';
import { verifyLedger } from '../../src/ledger/ledger-verify';
import { createEmptyDatabase, type TestDatabase } from '../support/database';

/**
 * A database with events written before the ledger_tamper migration (hash version 1, as
 * the code of that time computed it), migrated: the old events keep their hashes and
 * verify as written, the heads start at each org's newest event, new events are version 2
 * and link to the old ones.
 */
let db: TestDatabase;
let orm: MikroORM;

beforeAll(async () => {
  db = await createEmptyDatabase();
  orm = await initOrm({ entities: ENTITIES, clientUrl: db.url, poolMax: 2 });
  await orm.getMigrator().up({ to: 'Migration20261201160000_ledger_head' });
});

afterAll(async () => {
  await orm?.close(true);
  await db?.drop();
});

/** The hash of the code before the migration, verbatim. */
function oldHash(event: { prevHash: string | null; orgId: string; sequence: string; type: string; metadata: object; createdAt: Date }): string {
  const fields = [event.prevHash, event.orgId, event.sequence, event.type, null, null, 'admin', null, event.metadata, event.createdAt.toISOString()];
  return createHash('sha256').update(canonicalJson(fields)).digest('hex');
}

test('old events verify as written after the migration; new ones are version 2 and link to them', async () => {
  const orgId = randomUUID();
  const em = orm.em.fork();
  await em.execute("insert into orgs (id, name, created_at) values (?, 'Before', now())", [orgId]);
  let prevHash: string | null = null;
  const hashes: string[] = [];
  for (let i = 1; i <= 3; i++) {
    const event = {
      prevHash,
      orgId,
      sequence: String(i),
      type: 'policy.changed',
      metadata: { i },
      createdAt: new Date(Date.UTC(2026, 10, 30, 10, 0, i, 123)),
    };
    const hash = oldHash(event);
    await em.execute(
      `insert into ledger_events (prev_hash, org_id, sequence, type, actor_role, metadata, created_at, hash) values (?, ?, ?, ?, 'admin', ?, ?, ?)`,
      [prevHash, orgId, event.sequence, event.type, JSON.stringify(event.metadata), event.createdAt.toISOString(), hash],
    );
    prevHash = hash;
    hashes.push(hash);
  }

  await migrateUp(orm);
  const rows = await em.execute<{ hash: string; hash_version: number }[]>(
    'select hash, hash_version from ledger_events where org_id = ? order by sequence',
    [orgId],
  );
  expect(rows).toEqual(hashes.map((hash) => ({ hash, hash_version: 1 })));
  expect(await em.execute('select sequence::text as sequence, hash from ledger_heads where org_id = ?', [orgId])).toEqual([
    { sequence: '3', hash: hashes[2] },
  ]);
  expect(await verifyLedger(orm.em.fork(), orgId)).toMatchObject({ ok: true, eventsChecked: 3 });

  const next = await orm.em.fork().transactional((tx) => appendLedgerEvent(tx, { orgId, type: 'policy.changed', metadata: { i: 4 } }));
  expect(next).toMatchObject({ sequence: '4', prevHash: hashes[2], hashVersion: 2 });
  expect(await verifyLedger(orm.em.fork(), orgId)).toMatchObject({ ok: true, eventsChecked: 4 });
});
