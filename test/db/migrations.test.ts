import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { initOrm, migrateUp, pendingMigrations } from '../../src/db/orm';
import { ENTITIES } from '../../src/app/entities';
import { MIGRATIONS } from '../../migrations';
import { createEmptyDatabase, createTestDatabase, type TestDatabase } from '../support/database';

const DOMAIN_TABLES = [
  'orgs',
  'specialists',
  'api_keys',
  'feature_flags',
  'tool_definitions',
  'tool_permissions',
  'tool_specialist_bindings',
  'integration_credentials',
  'agent_runs',
  'run_messages',
  'tool_calls',
  'policy_rules',
  'policy_replays',
  'policy_decisions',
  'approval_requests',
  'ledger_events',
  'upstream_mcp_servers',
  'identity_bindings',
  'people',
  'person_sessions',
  'oidc_logins',
];

/** Tables whose rows belong to one org. The catalog (tool_definitions) and orgs itself are global. */
const TENANT_TABLES = DOMAIN_TABLES.filter((t) => t !== 'orgs' && t !== 'tool_definitions');

describe('migrations from an empty database', () => {
  let db: TestDatabase;
  let orm: MikroORM;
  let firstRun: string[];

  beforeAll(async () => {
    db = await createEmptyDatabase();
    orm = await initOrm({ entities: ENTITIES, clientUrl: db.url, poolMax: 2 });
    firstRun = await migrateUp(orm);
  });

  afterAll(async () => {
    await orm?.close(true);
    await db?.drop();
  });

  test('migrateUp applies every migration and none is left pending', async () => {
    expect(firstRun).toEqual(MIGRATIONS.map((m) => m.name));
    expect(firstRun.length).toBeGreaterThan(0);
    expect(await pendingMigrations(orm)).toEqual([]);
  });

  test('every domain table exists', async () => {
    const rows = await orm.em
      .fork()
      .execute<{ table_name: string }[]>(
        "select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'",
      );
    const tables = rows.map((r) => r.table_name);
    for (const table of DOMAIN_TABLES) expect(tables).toContain(table);
  });

  test('every tenant table has a NOT NULL org_id uuid column', async () => {
    const rows = await orm.em
      .fork()
      .execute<{ table_name: string; is_nullable: string; data_type: string }[]>(
        "select table_name, is_nullable, data_type from information_schema.columns where table_schema = 'public' and column_name = 'org_id'",
      );
    const byTable = new Map(rows.map((r) => [r.table_name, r]));
    for (const table of TENANT_TABLES) {
      expect({ table, column: byTable.get(table) }).toEqual({
        table,
        column: { table_name: table, is_nullable: 'NO', data_type: 'uuid' },
      });
    }
  });

  test('the entities and the migrated schema agree (the ORM schema diff is empty)', async () => {
    const diff = await orm.schema.getUpdateSchemaSQL({ wrap: false });
    // On failure the received value is the SQL a new migration would have to contain.
    expect(diff.trim()).toBe('');
  });

  test('running migrateUp again is a no-op', async () => {
    const before = await orm.em.fork().execute<{ n: string }[]>('select count(*)::text as n from mikro_orm_migrations');
    expect(await migrateUp(orm)).toEqual([]);
    expect(await pendingMigrations(orm)).toEqual([]);
    const after = await orm.em.fork().execute<{ n: string }[]>('select count(*)::text as n from mikro_orm_migrations');
    expect(after[0].n).toBe(before[0].n);
    expect(Number(after[0].n)).toBe(MIGRATIONS.length);
  });
});

describe('CHECK constraints', () => {
  let db: TestDatabase;
  let orm: MikroORM;
  let orgId: string;
  let specialistId: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    orm = await initOrm({ entities: ENTITIES, clientUrl: db.url, poolMax: 2 });
    orgId = randomUUID();
    specialistId = randomUUID();
    const em = orm.em.fork();
    await em.execute("insert into orgs (id, name, created_at) values (?, 'Checks', now())", [orgId]);
    await em.execute("insert into specialists (id, org_id, name, created_at) values (?, ?, 'S', now())", [specialistId, orgId]);
  });

  afterAll(async () => {
    await orm?.close(true);
    await db?.drop();
  });

  const insertRun = (status: string, pendingApprovalCount = 0) =>
    orm.em.fork().execute(
      `insert into agent_runs (id, org_id, specialist_id, status, metadata, pending_approval_count, correlation_id, created_at, updated_at)
         values (?, ?, ?, ?, '{}', ?, 'corr', now(), now())`,
      [randomUUID(), orgId, specialistId, status, pendingApprovalCount],
    );

  const insertKey = (role: string) =>
    orm.em
      .fork()
      .execute(`insert into api_keys (id, org_id, role, prefix, secret_hash, created_at) values (?, ?, ?, 'tg_x', ?, now())`, [
        randomUUID(),
        orgId,
        role,
        randomUUID(),
      ]);

  test('a valid run and a valid key are accepted (the fixtures themselves are sound)', async () => {
    await expect(insertRun('queued')).resolves.toBeDefined();
    await expect(insertKey('admin')).resolves.toBeDefined();
  });

  test("an agent run with status 'bogus' is refused (23514)", async () => {
    await expect(insertRun('bogus')).rejects.toMatchObject({ code: '23514' });
  });

  test('a negative pending_approval_count is refused (23514)', async () => {
    await expect(insertRun('running', -1)).rejects.toMatchObject({ code: '23514' });
  });

  test("an api key with role 'root' is refused (23514)", async () => {
    await expect(insertKey('root')).rejects.toMatchObject({ code: '23514' });
  });

  test('refused rows were not written', async () => {
    const rows = await orm.em
      .fork()
      .execute<{ runs: string; keys: string }[]>(
        'select (select count(*) from agent_runs where org_id = ?)::text as runs, (select count(*) from api_keys where org_id = ?)::text as keys',
        [orgId, orgId],
      );
    expect(rows[0]).toEqual({ runs: '1', keys: '1' });
  });
});
