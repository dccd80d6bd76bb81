import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { initOrm } from '../../src/db/orm';
import { ENTITIES } from '../../src/app/entities';
import { pinHash } from '../../src/upstream/upstream-pin';
import { createEmptyDatabase, type TestDatabase } from '../support/database';

/**
 * The migration `…_upstream_pins` pins the imported tools enabled before it (their admin let
 * that text through), so they are not reported as drifted at the next import; a tool not
 * enabled stays unpinned.
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

test('tools enabled before the migration are pinned as they were; others are not', async () => {
  const em = orm.em.fork();
  const [org, server, enabled, disabled] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
  await em.execute(`insert into orgs (id, name, created_at) values (?, 'Acme', now())`, [org]);
  await em.execute(
    `insert into upstream_mcp_servers (id, org_id, name, url, transport, default_risk, default_idempotent, created_at)
     values (?, ?, 'sbx', 'http://127.0.0.1/mcp', 'streamable_http', 'low', true, now())`,
    [server, org],
  );
  for (const [id, action] of [
    [enabled, 'weather_lookup'],
    [disabled, 'contact_notify'],
  ]) {
    await em.execute(
      `insert into tool_definitions (id, tool_name, action, vendor, description, default_risk, idempotent, input_schema, created_at, org_id, upstream_server_id, upstream_name)
       values (?, 'mcp.sbx', ?, 'mcp.sbx', 'It''s the forecast', 'low', true, ?::jsonb, now(), ?, ?, ?)`,
      [id, action, JSON.stringify(schema), org, server, action],
    );
    await em.execute(`insert into tool_permissions (id, org_id, tool_id, enabled, updated_at) values (?, ?, ?, ?, now())`, [
      randomUUID(),
      org,
      id,
      id === enabled,
    ]);
  }

  await orm.getMigrator().up();

  const rows = await em.execute<{ id: string; pinned: unknown; pinned_hash: string | null; pinned_at: Date | null; upstream_title: string | null }[]>(
    'select id, pinned, pinned_hash, pinned_at, upstream_title from tool_definitions where org_id = ?',
    [org],
  );
  const text = { title: null, description: "It's the forecast", inputSchema: schema };
  expect(rows.find((r) => r.id === enabled)).toMatchObject({ pinned: text, pinned_hash: pinHash(text), upstream_title: null });
  expect(rows.find((r) => r.id === enabled)?.pinned_at).not.toBeNull();
  expect(rows.find((r) => r.id === disabled)).toMatchObject({ pinned: null, pinned_hash: null, pinned_at: null });
});
