import type { MikroORM } from '@mikro-orm/postgresql';
import { initOrm, migrateUp } from '../../src/db/orm';
import { ENTITIES } from '../../src/app/entities';
import { MIGRATIONS } from '../../migrations';
import { createEmptyDatabase, type TestDatabase } from '../support/database';
import { CLI, childEnv } from '../support/processes';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/**
 * Replicas that start together must not race the migrations: each migrating process takes
 * a PostgreSQL advisory lock first. And a start told not to migrate refuses a database with
 * pending migrations (the release step, `toolgate migrate`, comes first).
 */
let db: TestDatabase;
const orms: MikroORM[] = [];
beforeAll(async () => {
  db = await createEmptyDatabase();
});
afterAll(async () => {
  for (const orm of orms) await orm.close(true);
  await db?.drop();
});

test('three processes migrating one empty database at once apply every migration exactly once', async () => {
  for (let i = 0; i < 3; i++) orms.push(await initOrm({ entities: ENTITIES, clientUrl: db.url }));
  const applied = await Promise.all(orms.map((orm) => migrateUp(orm)));
  // One of them applied everything; the others waited for the lock and found nothing pending.
  expect(applied.map((names) => names.length).sort((a, b) => a - b)).toEqual([0, 0, MIGRATIONS.length]);
  const [row] = await orms[0].em.fork().execute<{ n: string }[]>('select count(*)::text as n from mikro_orm_migrations');
  expect(Number(row.n)).toBe(MIGRATIONS.length);
});

test('TOOLGATE_MIGRATE_ON_START=false: start refuses a database with pending migrations (exit 2), changing nothing', async () => {
  const empty = await createEmptyDatabase();
  try {
    const env = childEnv({
      NODE_ENV: 'test',
      DATABASE_URL: empty.url,
      LOG_LEVEL: 'silent',
      MASTER_ENCRYPTION_KEY: 'c4'.repeat(32),
      TOOLGATE_MIGRATE_ON_START: 'false',
      PORT: '0',
    });
    const result = await promisify(execFile)(process.execPath, [CLI, 'start'], { env, timeout: 60_000 }).catch(
      (error) => error as { code: number; stderr: string },
    );
    expect(result).toMatchObject({ code: 2 });
    expect((result as { stderr: string }).stderr).toMatch(
      /pending migration\(s\) and TOOLGATE_MIGRATE_ON_START is false: run `toolgate migrate` first/,
    );
    const orm = await initOrm({ entities: ENTITIES, clientUrl: empty.url });
    orms.push(orm);
    const [row] = await orm.em
      .fork()
      .execute<{ n: string }[]>("select count(*)::text as n from information_schema.tables where table_name = 'mikro_orm_migrations'");
    expect(row.n === '0' || row.n === '1').toBe(true);
    const [tables] = await orm.em
      .fork()
      .execute<{ n: string }[]>("select count(*)::text as n from information_schema.tables where table_name = 'agent_runs'");
    expect(tables.n).toBe('0');
  } finally {
    await empty.drop();
  }
});
