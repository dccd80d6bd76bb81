import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { initOrm, migrateUp } from '../../src/db/orm';
import { ENTITIES } from '../../src/app/entities';
import { APPEND_POINT, type AppendPoint, chainRecords, EVENT_COLUMNS, type LedgerEntry, ledgerRowValues } from '../../src/ledger/ledger.service';
import { createEmptyDatabase, type TestDatabase } from '../support/database';

/**
 * Runs opened before owners were recorded keep their driver: the `…_run_owner` migration
 * takes each run's owner from its `run.created` event (the key that opened it); a run whose
 * event names no key is owned by nobody (an admin hands it over).
 */
let db: TestDatabase;
let orm: MikroORM;

beforeAll(async () => {
  db = await createEmptyDatabase();
  orm = await initOrm({ entities: ENTITIES, clientUrl: db.url, poolMax: 2 });
  await orm.getMigrator().up({ to: 'Migration20261205120000_message_stop_reason' });
});

afterAll(async () => {
  await orm?.close(true);
  await db?.drop();
});

/** An append as the database of that release took it (its append point; toolgate_ledger_append came later). */
async function appendAsThen(tx: Pick<MikroORM['em'], 'execute'>, entry: LedgerEntry): Promise<void> {
  const [point] = await tx.execute<AppendPoint[]>(APPEND_POINT, [entry.orgId, 1, null, null]);
  const [record] = chainRecords(entry.orgId, point, [entry]);
  await tx.execute(
    `insert into ledger_events (${EVENT_COLUMNS}) values (${EVENT_COLUMNS.split(',')
      .map(() => '?')
      .join(', ')})`,
    ledgerRowValues(record),
  );
}

test("each run's owner is the actor of its run.created event", async () => {
  const em = orm.em.fork();
  const [orgId, keyId, specialistId] = [randomUUID(), randomUUID(), randomUUID()];
  await em.execute("insert into orgs (id, name, created_at) values (?, 'Before owners', now())", [orgId]);
  await em.execute("insert into api_keys (id, org_id, role, prefix, secret_hash, created_at) values (?, ?, 'agent', 'tg_agent_x', ?, now())", [
    keyId,
    orgId,
    randomUUID(),
  ]);
  await em.execute("insert into specialists (id, org_id, name, created_at) values (?, ?, 'Support', now())", [specialistId, orgId]);
  const runs = { opened: randomUUID(), keyless: randomUUID() };
  for (const [name, runId] of Object.entries(runs)) {
    await em.execute(
      `insert into agent_runs (id, org_id, specialist_id, status, metadata, correlation_id, driver, created_at, updated_at)
       values (?, ?, ?, 'running', '{}', ?, 'external', now(), now())`,
      [runId, orgId, specialistId, name],
    );
    const actor = name === 'opened' ? { role: 'agent' as const, keyId } : null;
    await em.transactional((tx) => appendAsThen(tx, { orgId, type: 'run.created', runId, resourceId: runId, actor }));
  }

  await migrateUp(orm);
  const owners = await em.execute<{ id: string; owner_key_id: string | null }[]>('select id, owner_key_id from agent_runs where org_id = ?', [orgId]);
  expect(Object.fromEntries(owners.map((r) => [r.id, r.owner_key_id]))).toEqual({ [runs.opened]: keyId, [runs.keyless]: null });
});
