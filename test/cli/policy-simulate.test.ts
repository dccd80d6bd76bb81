import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { CLI, childEnv, killChildren, spawnCli, withTimeout, type ExitResult } from '../support/processes';

/** `toolgate policy simulate`: a draft replayed over recorded calls from the command line. */
let db: TestDatabase;
let pg: Client;
let dir: string;
let orgId: string;
let rulesFile: string;

const env = () =>
  childEnv({ NODE_ENV: 'test', DATABASE_URL: db.url, LOG_LEVEL: 'silent', MASTER_ENCRYPTION_KEY: 'b3'.repeat(32), TOOLGATE_DATA_DIR: dir });

async function runCli(args: string[]): Promise<ExitResult> {
  const running = spawnCli(args, env());
  return withTimeout(running.exited, 25_000, () => {
    running.child.kill('SIGKILL');
    return `toolgate ${args.join(' ')} did not exit\nstdout: ${running.stdout()}\nstderr: ${running.stderr()}`;
  });
}

const T0 = '2026-11-01T00:00:00Z';

beforeAll(async () => {
  expect(fs.existsSync(CLI)).toBe(true);
  db = await createTestDatabase();
  pg = new Client({ connectionString: db.url });
  await pg.connect();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-simulate-'));
  const seeded = await runCli(['seed', '--json']);
  expect(seeded.code).toBe(0);
  const seed = JSON.parse(seeded.stdout) as { orgId: string; specialistId: string };
  orgId = seed.orgId;
  // Three invoices the catalog default allowed, of 500, 1500 and 2500, a minute apart.
  const runId = randomUUID();
  await pg.query(
    `insert into agent_runs (id, org_id, specialist_id, status, metadata, driver, correlation_id, created_at, updated_at, completed_at)
     values ($1, $2, $3, 'completed', '{}', 'external', 'cli-replay', $4, $4, $4)`,
    [runId, orgId, seed.specialistId, T0],
  );
  for (const [i, amount] of [500, 1500, 2500].entries()) {
    const decisionId = randomUUID();
    const at = new Date(Date.parse(T0) + (i + 1) * 60_000).toISOString();
    await pg.query(
      `insert into policy_decisions (id, org_id, run_id, tool_name, action, outcome, risk, policy_version, caller_role, reason, created_at)
       values ($1, $2, $3, 'invoice', 'send', 'allow', 'low', 1, 'agent', 'no rule matched; catalog default risk low', $4)`,
      [decisionId, orgId, runId, at],
    );
    await pg.query(
      `insert into tool_calls (id, org_id, run_id, tool_name, action, correlation_id, status, input_redacted, policy_decision_id, risk_level, created_at, updated_at)
       values ($1::uuid, $2, $3, 'invoice', 'send', $1::text, 'succeeded', $4, $5, 'low', $6, $6)`,
      [randomUUID(), orgId, runId, JSON.stringify({ amount }), decisionId, at],
    );
  }
  rulesFile = path.join(dir, 'draft.json');
  const draft = [
    {
      name: 'big invoices',
      position: 1,
      toolPattern: 'invoice',
      conditions: [{ path: 'amount', op: 'gt', value: 1000 }],
      risk: 'high',
      decision: 'block',
    },
  ];
  fs.writeFileSync(rulesFile, JSON.stringify(draft));
});

afterAll(async () => {
  await killChildren();
  await pg?.end();
  await db?.drop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('policy simulate prints the changed decisions (and the whole answer with --json); nothing is written', async () => {
  const counts = async () => (await pg.query('select (select count(*) from ledger_events) as e, (select count(*) from policy_rules) as r')).rows[0];
  const before = await counts();
  const args = ['policy', 'simulate', '--org', orgId, '--from', '2026-11-01', '--to', '2026-11-02', '--rules', rulesFile];
  const text = await runCli(args);
  expect({ code: text.code, stderr: text.stderr }).toEqual({ code: 0, stderr: '' });
  expect(text.stdout).toContain('Replayed 3 recorded call(s): 2 decided otherwise, 0 undecidable');
  expect(text.stdout).toContain('2 × allow → block (rule #0 "big invoices")');
  expect(text.stdout).toContain('invoice.send: allow → block');

  const json = await runCli([...args, '--json', '--first', '1']);
  expect(json.code).toBe(0);
  const answer = JSON.parse(json.stdout);
  expect(answer).toMatchObject({
    callsRead: 3,
    changedCount: 2,
    undecidableCount: 0,
    changes: [{ oldOutcome: 'allow', newOutcome: 'block', count: 2, rule: { index: 0, name: 'big invoices' } }],
    examples: [{ toolName: 'invoice', action: 'send', createdAt: '2026-11-01T00:02:00.000Z', oldOutcome: 'allow', newOutcome: 'block' }],
  });
  expect(await counts()).toEqual(before);
});

test('a refused simulation exits 1 with its code; bad usage exits 2', async () => {
  const base = ['policy', 'simulate', '--org', orgId, '--rules', rulesFile];
  const tooLong = await runCli([...base, '--from', '2026-01-01', '--to', '2026-06-01']);
  expect(tooLong.code).toBe(1);
  expect(tooLong.stderr).toContain('toolgate: SIMULATION_RANGE_TOO_LARGE:');
  expect(tooLong.stdout).toBe('');

  const backwards = await runCli([...base, '--from', '2026-11-02', '--to', '2026-11-01']);
  expect(backwards.code).toBe(2);
  expect(backwards.stderr).toContain('--from (2026-11-02) must be before --to (2026-11-01)');

  const notAList = path.join(dir, 'not-a-list.json');
  fs.writeFileSync(notAList, '{"name": "x"}');
  const badFile = await runCli(['policy', 'simulate', '--org', orgId, '--from', '2026-11-01', '--to', '2026-11-02', '--rules', notAList]);
  expect(badFile.code).toBe(2);
  expect(badFile.stderr).toContain('must be a JSON list of rules');
});

test('a draft with a rule over history is replayed as of each call; a bad history condition exits 1 naming its field', async () => {
  const historyFile = path.join(dir, 'history.json');
  const rule = { name: 'invoice total per run', position: 1, toolPattern: 'invoice', risk: 'high', decision: 'block' };
  const history = { kind: 'sum', tool: 'invoice', scope: 'run', paramPath: 'amount', limit: 2000 };
  fs.writeFileSync(historyFile, JSON.stringify([{ ...rule, history: [history] }]));
  const args = ['policy', 'simulate', '--org', orgId, '--from', '2026-11-01', '--to', '2026-11-02', '--rules', historyFile, '--json'];
  const replayed = await runCli(args);
  expect({ code: replayed.code, stderr: replayed.stderr }).toEqual({ code: 0, stderr: '' });
  // 500, then 2000 (not above the limit), then 4500: only the third changes.
  expect(JSON.parse(replayed.stdout)).toMatchObject({
    callsRead: 3,
    changedCount: 1,
    examples: [{ createdAt: '2026-11-01T00:03:00.000Z', oldOutcome: 'allow', newOutcome: 'block' }],
  });

  fs.writeFileSync(historyFile, JSON.stringify([{ ...rule, history: [{ ...history, kind: 'avg' }] }]));
  const refused = await runCli(args);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('toolgate: BAD_USER_INPUT: history[0].kind must be one of count, sum, not_after');
});

test('policy publish puts a draft in force; with replays required, only with the replay simulate printed for that draft', async () => {
  await pg.query('update orgs set policy_replay_required = true where id = $1', [orgId]);
  const without = await runCli(['policy', 'publish', '--org', orgId, '--rules', rulesFile]);
  expect(without.code).toBe(1);
  expect(without.stderr).toContain('toolgate: POLICY_REPLAY_REQUIRED:');
  expect((await pg.query('select count(*)::int as n from policy_rules where org_id = $1', [orgId])).rows[0].n).toBe(0);

  const simulated = await runCli(['policy', 'simulate', '--org', orgId, '--from', '2026-11-01', '--to', '2026-11-02', '--rules', rulesFile]);
  const replayId = /^Replay ([0-9a-f-]{36}) \(policy version \d+\)/m.exec(simulated.stdout)?.[1];
  expect(replayId).toBeDefined();
  const published = await runCli(['policy', 'publish', '--org', orgId, '--rules', rulesFile, '--replay', replayId!, '--json']);
  expect({ code: published.code, stderr: published.stderr }).toEqual({ code: 0, stderr: '' });
  expect(JSON.parse(published.stdout).rules).toMatchObject([{ name: 'big invoices', position: 1, decision: 'block' }]);
  const [event] = (
    await pg.query("select metadata, actor_role from ledger_events where org_id = $1 and type = 'policy.changed' order by sequence desc limit 1", [
      orgId,
    ])
  ).rows;
  expect(event).toMatchObject({ actor_role: null, metadata: { change: 'published', replayId } });
});

test('policy cedar-schema prints the org’s Cedar schema (Cedar syntax, or its JSON with --json)', async () => {
  const text = await runCli(['policy', 'cedar-schema', '--org', orgId]);
  expect({ code: text.code, stderr: text.stderr }).toEqual({ code: 0, stderr: '' });
  expect(text.stdout).toContain('namespace Toolgate {');
  expect(text.stdout).toMatch(/action "invoice\.send" appliesTo \{[\s\S]*amount: __cedar::decimal/);
  const json = await runCli(['policy', 'cedar-schema', '--org', orgId, '--json']);
  expect(json.code).toBe(0);
  expect(JSON.parse(json.stdout).Toolgate.actions['invoice.send'].appliesTo.resourceTypes).toEqual(['Tool']);
});
