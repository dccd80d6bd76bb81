import { Client } from 'pg';
import { version } from 'graphile-worker/package.json';
import { createTestDatabase, type TestDatabase } from '../support/database';

/**
 * Three modules reach past graphile-worker's public API into its private tables
 * (src/runs/local-steps.ts: a step claimed by the committing node; src/recovery/node-liveness.ts
 * and src/jobs/job-locks.ts: locks of dead pools and this node's own stale locks — the
 * library's force_unlock_workers releases a whole owner, never one job). They were written
 * against the version pinned here; an upgrade must fail this test before it can change the
 * columns under them. (Replacing those reads is the codebase-shape issue's work.)
 */
const PINNED = '0.17.3';
const PRIVATE_COLUMNS: Record<string, string[]> = {
  _private_jobs: ['id', 'job_queue_id', 'locked_by', 'locked_at', 'attempts', 'is_available', 'run_at'],
  _private_job_queues: ['id', 'queue_name', 'locked_by', 'locked_at'],
};

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => db?.drop());

test('graphile-worker is the version whose private tables Toolgate reads', () => {
  expect(version).toBe(PINNED);
});

test('the private columns Toolgate reads and writes exist', async () => {
  const client = new Client({ connectionString: db.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string; column_name: string }>(
      "select table_name, column_name from information_schema.columns where table_schema = 'graphile_worker' and table_name = any($1)",
      [Object.keys(PRIVATE_COLUMNS)],
    );
    for (const [table, columns] of Object.entries(PRIVATE_COLUMNS)) {
      const present = new Set(rows.filter((r) => r.table_name === table).map((r) => r.column_name));
      expect({ table, missing: columns.filter((c) => !present.has(c)) }).toEqual({ table, missing: [] });
    }
  } finally {
    await client.end();
  }
});
