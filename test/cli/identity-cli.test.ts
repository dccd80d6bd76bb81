import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { CLI, childEnv, killChildren, spawnCli, withTimeout, type ExitResult } from '../support/processes';

/** `toolgate identity bind|show|unbind`: an operator binds an org to an issuer of OIDC_ISSUERS. */
let db: TestDatabase;
let pg: Client;
let dir: string;
let orgId: string;

const ISSUERS = JSON.stringify([{ name: 'okta', issuer: 'https://acme.okta.example', clientId: 'toolgate', clientSecret: 'shh' }]);
const env = () =>
  childEnv({
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    LOG_LEVEL: 'silent',
    MASTER_ENCRYPTION_KEY: 'b3'.repeat(32),
    TOOLGATE_DATA_DIR: dir,
    OIDC_ISSUERS: ISSUERS,
  });

async function runCli(args: string[]): Promise<ExitResult> {
  const running = spawnCli(args, env());
  return withTimeout(running.exited, 25_000, () => {
    running.child.kill('SIGKILL');
    return `toolgate ${args.join(' ')} did not exit\nstdout: ${running.stdout()}\nstderr: ${running.stderr()}`;
  });
}

beforeAll(async () => {
  expect(fs.existsSync(CLI)).toBe(true);
  db = await createTestDatabase();
  pg = new Client({ connectionString: db.url });
  await pg.connect();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-identity-'));
  const seeded = await runCli(['seed', '--json']);
  expect(seeded.code).toBe(0);
  orgId = (JSON.parse(seeded.stdout) as { orgId: string }).orgId;
});

afterAll(async () => {
  killChildren();
  await pg?.end();
  await db?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('bind, show and unbind an org; the ledger records each change', async () => {
  const bound = await runCli([
    'identity',
    'bind',
    '--org',
    orgId,
    '--issuer',
    'okta',
    '--role',
    'expert=risk-team',
    '--role',
    'expert=auditors',
    '--role',
    'admin=toolgate-admins',
    '--agent-scope',
    'toolgate:agent',
    '--json',
  ]);
  expect(bound.code).toBe(0);
  expect(JSON.parse(bound.stdout)).toEqual({
    issuerName: 'okta',
    issuer: 'https://acme.okta.example',
    tenantClaim: null,
    tenantValue: null,
    roleClaim: 'groups',
    admin: ['toolgate-admins'],
    expert: ['risk-team', 'auditors'],
    client: [],
    agentScope: 'toolgate:agent',
    recordNames: true,
  });
  const shown = await runCli(['identity', 'show', '--org', orgId]);
  expect(shown.code).toBe(0);
  expect(shown.stdout).toContain('people sign in with okta (https://acme.okta.example)');
  expect(shown.stdout).toContain('expert: risk-team, auditors');
  const unbound = await runCli(['identity', 'unbind', '--org', orgId]);
  expect([unbound.code, unbound.stdout]).toEqual([0, `org ${orgId}: single sign-on removed\n`]);
  const { rows } = await pg.query(
    "select metadata->>'change' as change from ledger_events where org_id = $1 and type = 'identity.changed' order by sequence",
    [orgId],
  );
  expect(rows.map((r) => r.change)).toEqual(['bound', 'removed']);
});

test('bad input is refused with its code and changes nothing', async () => {
  const unknown = await runCli(['identity', 'bind', '--org', orgId, '--issuer', 'entra']);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain('BAD_USER_INPUT');
  expect(unknown.stderr).toContain('okta');
  const usage = await runCli(['identity', 'bind', '--org', orgId, '--issuer', 'okta', '--role', 'root=wheel']);
  expect(usage.code).toBe(2);
  const { rows } = await pg.query('select count(*)::int as n from identity_bindings where org_id = $1', [orgId]);
  expect(rows[0].n).toBe(0);
});
