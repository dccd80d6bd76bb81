import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { CLI, childEnv, freePort, killChildren, spawnCli, waitFor, withTimeout, type ExitResult } from '../support/processes';
import { TOOL_CATALOG } from '../../src/catalog/tool-catalog';
import { SANDBOX_CREDENTIALS as DEMO_CREDENTIALS } from '../../src/vendors';
import { openCredential, type CredentialEnvelope } from '../../src/credentials/credential-envelope';
import { MasterKeyring } from '../../src/credentials/keyring';
import { ROLES } from '../../src/auth/roles';
import { embeddedDataDirProblem } from '../../src/db/embedded-postgres';
import { hashSecret } from '../../src/auth/api-key.service';
import { openSocket } from '../support/graphql-http';

const MASTER_KEY_HEX = 'a7'.repeat(32);

let db: TestDatabase;
let pg: Client;
let dataDir: string;

function baseEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return childEnv({
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    LOG_LEVEL: 'silent',
    MASTER_ENCRYPTION_KEY: MASTER_KEY_HEX,
    TOOLGATE_DATA_DIR: dataDir,
    ...extra,
  });
}

/** Runs one command to completion; a command that hangs is killed and fails the test. */
async function runCli(args: string[], env: NodeJS.ProcessEnv = baseEnv(), timeoutMs = 25_000): Promise<ExitResult> {
  const running = spawnCli(args, env);
  return withTimeout(running.exited, timeoutMs, () => {
    running.child.kill('SIGKILL');
    return `toolgate ${args.join(' ')} did not exit within ${timeoutMs} ms\nstdout: ${running.stdout()}\nstderr: ${running.stderr()}`;
  });
}

function jsonLine<T>(result: ExitResult): T {
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  const lines = result.stdout.split('\n').filter((line) => line.trim() !== '');
  expect(lines).toHaveLength(1);
  expect(result.stdout.endsWith('\n')).toBe(true);
  return JSON.parse(lines[0]) as T;
}

async function count(sql: string, params: unknown[] = []): Promise<number> {
  const result = await pg.query<{ n: string }>(`select count(*)::text as n from (${sql}) as counted`, params);
  return Number(result.rows[0].n);
}

interface SeedJson {
  orgId: string;
  specialistId: string;
  keys: Record<(typeof ROLES)[number], string>;
}

beforeAll(async () => {
  expect(fs.existsSync(CLI)).toBe(true);
  db = await createTestDatabase();
  pg = new Client({ connectionString: db.url });
  await pg.connect();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-cli-'));
});

afterAll(async () => {
  await killChildren();
  await pg?.end();
  await db?.drop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('toolgate seed', () => {
  let first: SeedJson;
  let second: SeedJson;
  /** The keys of the last seed (printed for people): the only demo keys still valid. */
  const latest = {} as SeedJson['keys'];

  beforeAll(async () => {
    first = jsonLine<SeedJson>(await runCli(['seed', '--json']));
    second = jsonLine<SeedJson>(await runCli(['seed', '--json']));
  }, 90_000);

  test('a start whose master key cannot open the stored credentials exits 2 at once with one line, before serving', async () => {
    const result = await runCli(
      ['start', '--port', String(await freePort()), '--host', '127.0.0.1'],
      baseEnv({ MASTER_ENCRYPTION_KEY: 'e1'.repeat(32) }),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/cannot open the stored credentials sealed with key version 1/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  test('--json prints exactly one line: orgId, specialistId and one key per role', () => {
    expect(Object.keys(first).sort()).toEqual(['keys', 'orgId', 'specialistId']);
    expect(Object.keys(first.keys).sort()).toEqual([...ROLES].sort());
    expect(first.orgId).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.specialistId).toMatch(/^[0-9a-f-]{36}$/);
    for (const role of ROLES) expect(first.keys[role]).toMatch(new RegExp(`^tg_${role}_[A-Za-z0-9_-]{20,}$`));
  });

  test('is idempotent: the same org and specialist, fresh keys', async () => {
    expect(second.orgId).toBe(first.orgId);
    expect(second.specialistId).toBe(first.specialistId);
    for (const role of ROLES) expect(second.keys[role]).not.toBe(first.keys[role]);

    const orgId = first.orgId;
    expect(await count("select 1 from orgs where slug = 'demo'")).toBe(1);
    expect(await count('select 1 from orgs')).toBe(1);
    expect(await count('select 1 from specialists where org_id = $1', [orgId])).toBe(1);
    expect(await count('select 1 from tool_permissions where org_id = $1', [orgId])).toBe(TOOL_CATALOG.length);
    expect(await count('select 1 from tool_specialist_bindings where org_id = $1', [orgId])).toBe(TOOL_CATALOG.length);
    expect(await count('select 1 from feature_flags where org_id = $1', [orgId])).toBe(1);
    expect(await count('select 1 from integration_credentials where org_id = $1', [orgId])).toBe(4);
    // One key per role per run; the second run revoked the first run's keys (ledger: seed_reissued).
    expect(await count('select 1 from api_keys where org_id = $1', [orgId])).toBe(2 * ROLES.length);
    const firstHashes = ROLES.map((role) => hashSecret(first.keys[role]));
    expect(await count('select 1 from api_keys where secret_hash = any($1) and revoked_at is not null', [firstHashes])).toBe(ROLES.length);
    expect(await count('select 1 from api_keys where org_id = $1 and revoked_at is null', [orgId])).toBe(ROLES.length);
    expect(
      await count("select 1 from ledger_events where org_id = $1 and type = 'api_key.revoked' and metadata->>'reason' = 'seed_reissued'", [orgId]),
    ).toBe(ROLES.length);
  });

  test('the demo org has every catalog tool enabled and bound to the specialist, and tool calling on', async () => {
    expect(TOOL_CATALOG).toHaveLength(7);
    const tools = await pg.query<{ tool: string; enabled: boolean; bound: boolean }>(
      `select d.tool_name || '.' || d.action as tool, p.enabled,
              exists (select 1 from tool_specialist_bindings b where b.tool_id = d.id and b.specialist_id = $2 and b.org_id = $1) as bound
         from tool_definitions d
         join tool_permissions p on p.tool_id = d.id and p.org_id = $1
        order by 1`,
      [first.orgId, first.specialistId],
    );
    expect(tools.rows).toEqual(
      TOOL_CATALOG.map((t) => ({ tool: `${t.toolName}.${t.action}`, enabled: true, bound: true })).sort((a, b) => (a.tool < b.tool ? -1 : 1)),
    );
    const flag = await pg.query('select enabled from feature_flags where org_id = $1 and key = $2', [first.orgId, 'tool_calling_enabled']);
    expect(flag.rows).toEqual([{ enabled: true }]);
  });

  test('stores four sandbox credentials encrypted: no plaintext secret in the database', async () => {
    const rows = await pg.query<{ id: string; integration_type: string; encrypted_config: CredentialEnvelope; raw: string }>(
      'select id, integration_type, encrypted_config, encrypted_config::text as raw from integration_credentials where org_id = $1 order by integration_type',
      [first.orgId],
    );
    expect(rows.rows.map((r) => r.integration_type)).toEqual(['amazon', 'jumio', 'nango', 'shopify']);
    // Every secret-bearing field of the sandbox credentials (ids such as realmId are not secret).
    const secrets = Object.values(DEMO_CREDENTIALS).flatMap((config) =>
      Object.entries(config)
        .filter(([field, v]) => typeof v === 'string' && /token|secret|key/i.test(field))
        .map(([, v]) => v as string),
    );
    expect(secrets).toContain(DEMO_CREDENTIALS.shopify.accessToken);
    expect(secrets.length).toBeGreaterThanOrEqual(6);
    const ledger = await pg.query<{ raw: string }>('select metadata::text as raw from ledger_events where org_id = $1', [first.orgId]);
    for (const row of [...rows.rows.map((r) => r.raw), ...ledger.rows.map((r) => r.raw)]) {
      for (const secret of secrets) expect(row).not.toContain(secret);
    }
    // ...and they decrypt, with the configured master key, to the sandbox configs.
    const key = Buffer.from(MASTER_KEY_HEX, 'hex');
    for (const row of rows.rows) {
      const identity = { orgId: first.orgId, credentialId: row.id, integrationType: row.integration_type };
      expect(openCredential(new MasterKeyring([{ version: 1, key }]), identity, row.encrypted_config)).toEqual(
        DEMO_CREDENTIALS[row.integration_type],
      );
    }
  });

  test('without --json prints the keys for people, and says it revoked the earlier demo keys', async () => {
    const result = await runCli(['seed']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(first.orgId);
    for (const role of ROLES) {
      const line = new RegExp(`^  ${role}\\s+(tg_${role}_\\S+)$`, 'm').exec(result.stdout);
      expect(line).not.toBeNull();
      latest[role] = line![1];
    }
    expect(result.stdout).toContain(`Revoked the ${ROLES.length} demo keys an earlier seed issued`);
  });

  describe('issued keys work against a real server', () => {
    let server: ReturnType<typeof spawnCli> | undefined;
    let port: number;

    afterAll(async () => {
      if (server && server.child.exitCode === null && server.child.signalCode === null) {
        server.child.kill('SIGKILL');
        await server.exited.catch(() => undefined);
      }
    });

    test('`start --port` serves the seeded org there (the flag wins over PORT), then exits 0 on SIGTERM within 10 s', async () => {
      port = await freePort();
      server = spawnCli(['start', '--port', String(port)], baseEnv({ PORT: '1', HOST: '127.0.0.1' }));
      const running = server;
      const early = running.exited.then((r) => {
        throw new Error(`start exited early with ${r.code}: ${r.stderr}`);
      });
      early.catch(() => undefined);
      await Promise.race([
        early,
        waitFor('GET /healthz', async () => ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok ? true : undefined), 30_000),
      ]);

      const viewer = (key: string) =>
        fetch(`http://127.0.0.1:${port}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify({ query: '{ viewer { org { id } role } }' }),
        });
      const response = await viewer(latest.expert);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ data: { viewer: { org: { id: first.orgId }, role: 'expert' } } });
      // The earlier seeds' keys were revoked by the later ones.
      for (const keys of [first.keys, second.keys]) expect((await viewer(keys.expert)).status).toBe(401);

      // `keys revoke`, another process, closes the key's open websocket on the server (over the event bus).
      const key = jsonLine<{ id: string; key: string }>(await runCli(['keys', 'create', '--org', first.orgId, '--role', 'client', '--json']));
      const ws = await openSocket(`ws://127.0.0.1:${port}/graphql`, key.key);
      try {
        const revoked = await runCli(['keys', 'revoke', key.id, '--org', first.orgId]);
        expect({ code: revoked.code, stderr: revoked.stderr }).toEqual({ code: 0, stderr: '' });
        expect(revoked.stdout).toBe(`Revoked client key ${key.id} (${key.key.slice(0, 'tg_'.length + 'client'.length + 7)}…).\n`);
        expect(await withTimeout(ws.closed, 5000, () => 'the websocket was not closed within 5 s')).toEqual({
          code: 4403,
          reason: 'Forbidden: the API key is no longer valid',
        });
      } finally {
        await ws.client.dispose();
      }

      running.child.kill('SIGTERM');
      const result = await withTimeout(running.exited, 10_000, () => `start did not exit within 10 s of SIGTERM`);
      expect({ code: result.code, signal: result.signal, stderr: result.stderr }).toEqual({ code: 0, signal: null, stderr: '' });
      expect(result.stdout).toContain(`http://127.0.0.1:${port}/graphql`);
    }, 60_000);
  });
});

describe('toolgate org create / keys create', () => {
  let org: { orgId: string; name: string; adminKey: string };

  test('org create --name Acme --json prints the org and its admin key', async () => {
    org = jsonLine(await runCli(['org', 'create', '--name', 'Acme', '--json']));
    expect(org).toEqual({ orgId: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Acme', adminKey: expect.stringMatching(/^tg_admin_/) });
    const rows = await pg.query('select name, slug from orgs where id = $1', [org.orgId]);
    expect(rows.rows).toEqual([{ name: 'Acme', slug: null }]);
    expect(await count("select 1 from api_keys where org_id = $1 and role = 'admin'", [org.orgId])).toBe(1);
  });

  test('keys create --org ID --role expert --json prints a key for that org', async () => {
    const key = jsonLine<{ id: string; orgId: string; role: string; key: string }>(
      await runCli(['keys', 'create', '--org', org.orgId, '--role', 'expert', '--json']),
    );
    expect(key).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      orgId: org.orgId,
      role: 'expert',
      name: null,
      expiresAt: null,
      key: expect.stringMatching(/^tg_expert_/),
    });
    const rows = await pg.query('select org_id, role from api_keys where id = $1', [key.id]);
    expect(rows.rows).toEqual([{ org_id: org.orgId, role: 'expert' }]);
  });

  test('keys create with role root exits 2 and names the allowed roles', async () => {
    const before = await count('select 1 from api_keys');
    const result = await runCli(['keys', 'create', '--org', org.orgId, '--role', 'root']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('--role must be one of admin, expert, client, partner, agent');
    expect(await count('select 1 from api_keys')).toBe(before);
  });

  test('org create without --name exits 2', async () => {
    const result = await runCli(['org', 'create']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--name is required');
  });

  test('keys create --name --expires 90d; keys list shows every key without secrets; keys revoke; a past --expires exits 2', async () => {
    const before = Date.now();
    const key = jsonLine<{ id: string; name: string; expiresAt: string; key: string }>(
      await runCli(['keys', 'create', '--org', org.orgId, '--role', 'agent', '--name', 'ci bot', '--expires', '90d', '--json']),
    );
    expect(key.name).toBe('ci bot');
    const expires = Date.parse(key.expiresAt);
    expect(expires).toBeGreaterThanOrEqual(before + 90 * 86_400_000);
    expect(expires).toBeLessThan(Date.now() + 90 * 86_400_000);

    const past = await runCli(['keys', 'create', '--org', org.orgId, '--role', 'agent', '--expires', '2020-01-01T00:00:00Z']);
    expect(past.code).toBe(2);
    expect(past.stderr).toContain('--expires must be in the future');

    const listed = await runCli(['keys', 'list', '--org', org.orgId, '--json']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(key.key);
    expect(listed.stdout).not.toContain(org.adminKey);
    const rows = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(rows.map((r) => r.role)).toEqual(['agent', 'expert', 'admin']);
    expect(rows[0]).toEqual({
      id: key.id,
      orgId: org.orgId,
      role: 'agent',
      name: 'ci bot',
      prefix: key.key.slice(0, 'tg_'.length + 'agent'.length + 7),
      createdAt: expect.any(String),
      lastUsedAt: null,
      expiresAt: key.expiresAt,
      revokedAt: null,
    });

    const revoked = jsonLine<{ id: string; revokedAt: string; changed: boolean }>(
      await runCli(['keys', 'revoke', key.id, '--org', org.orgId, '--json']),
    );
    expect(revoked).toMatchObject({ id: key.id, revokedAt: expect.any(String), changed: true });
    const again = await runCli(['keys', 'revoke', key.id, '--org', org.orgId]);
    expect(again.stdout).toContain('was already revoked');
    const elsewhere = await runCli(['keys', 'revoke', key.id, '--org', '00000000-0000-0000-0000-000000000000']);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain('NOT_FOUND');
    expect(await count("select 1 from ledger_events where org_id = $1 and type = 'api_key.revoked'", [org.orgId])).toBe(1);
  }, 90_000);

  test('org suspend marks the org suspended (once) and is recorded with its reason; org resume lifts it; an unknown org is NOT_FOUND', async () => {
    const suspended = jsonLine(await runCli(['org', 'suspend', org.orgId, '--reason', 'unpaid', '--json']));
    expect(suspended).toEqual({ orgId: org.orgId, suspended: true, changed: true });
    const [row] = (await pg.query('select suspended_at is not null as suspended from orgs where id = $1', [org.orgId])).rows;
    expect(row).toEqual({ suspended: true });
    const again = await runCli(['org', 'suspend', org.orgId]);
    expect(again.stdout).toContain('was already suspended; nothing changed');

    const resumed = await runCli(['org', 'resume', org.orgId]);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('Resumed org Acme');
    const events = await pg.query("select type, metadata from ledger_events where org_id = $1 and type like 'org.%' order by sequence", [org.orgId]);
    expect(events.rows).toEqual([
      { type: 'org.created', metadata: { name: 'Acme' } },
      { type: 'org.suspended', metadata: { reason: 'unpaid' } },
      { type: 'org.resumed', metadata: {} },
    ]);
    const unknown = await runCli(['org', 'suspend', '00000000-0000-0000-0000-000000000000']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('NOT_FOUND');
  }, 90_000);

  test('keys create for an unknown org exits 1 with NOT_FOUND', async () => {
    const result = await runCli(['keys', 'create', '--org', '00000000-0000-0000-0000-000000000000', '--role', 'admin']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('NOT_FOUND');
  });
});

describe('toolgate other commands', () => {
  test('migrate exits 0 on an up-to-date database', async () => {
    const result = await runCli(['migrate']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Migrations are up to date.');
  });

  test('an unknown command exits 2 with the usage', async () => {
    const result = await runCli(['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Unknown command "frobnicate"');
    expect(result.stderr).toContain('Usage: toolgate');
  });

  test('as root, an embedded start in a data folder below a 0700 folder exits 2 with one line saying what to change', async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-private-'));
    try {
      if (process.getuid?.() !== 0) {
        // Not root: postgres runs as this user, who owns the folder; the check stays out of the way.
        expect(await embeddedDataDirProblem(path.join(parent, 'data'))).toBeNull();
        return;
      }
      const result = await runCli(['start'], baseEnv({ DATABASE_URL: undefined, TOOLGATE_DATA_DIR: path.join(parent, 'data') }));
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`cannot enter ${parent} (mode 0700)`);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    } finally {
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });

  test('a production start without a model exits 2 before touching a database, naming ANTHROPIC_API_KEY and TOOLGATE_OFFLINE_MODEL', async () => {
    const result = await runCli(
      ['start'],
      baseEnv({
        NODE_ENV: 'production',
        ANTHROPIC_API_KEY: undefined,
        ANTHROPIC_BASE_URL: undefined,
        DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      }),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('ANTHROPIC_API_KEY');
    expect(result.stderr).toContain('TOOLGATE_OFFLINE_MODEL=true');
    expect(result.stdout).toBe('');
  });

  test('NODE_ENV=production without MASTER_ENCRYPTION_KEY exits 2 naming the variable', async () => {
    const result = await runCli(['migrate'], baseEnv({ NODE_ENV: 'production', MASTER_ENCRYPTION_KEY: undefined }));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('MASTER_ENCRYPTION_KEY');
    expect(result.stdout).toBe('');
  });
});

describe('toolgate command line', () => {
  test('--version prints the package version', async () => {
    const result = await runCli(['--version']);
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
    expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });

  test('each command has help: `seed --help` and `help seed` name its options', async () => {
    for (const args of [
      ['seed', '--help'],
      ['help', 'seed'],
    ]) {
      const result = await runCli(args);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Usage: toolgate seed');
      expect(result.stdout).toContain('--json');
    }
  });

  test('an unknown flag exits 2 with a suggestion and changes nothing', async () => {
    const before = await count('select 1 from api_keys');
    const result = await runCli(['seed', '--jsn']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain("unknown option '--jsn'");
    expect(result.stderr).toContain('--json');
    expect(await count('select 1 from api_keys')).toBe(before);
  });

  test('keys and org list their subcommands; `org suspend --help` names its argument and options; a missing key id exits 2', async () => {
    const keys = await runCli(['keys']);
    expect(keys.code).toBe(2);
    for (const sub of ['list', 'create', 'revoke']) expect(keys.stderr).toMatch(new RegExp(`^  ${sub} `, 'm'));
    const org = await runCli(['org']);
    for (const sub of ['create', 'suspend', 'resume']) expect(org.stderr).toMatch(new RegExp(`^  ${sub} `, 'm'));
    const help = await runCli(['org', 'suspend', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: toolgate org suspend [options] <orgId>');
    expect(help.stdout).toContain('--reason <text>');
    const missing = await runCli(['keys', 'revoke', '--org', '00000000-0000-0000-0000-000000000000']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("missing required argument 'keyId'");
  }, 60_000);

  test('a group without its subcommand exits 2 and lists the subcommands', async () => {
    const result = await runCli(['ledger']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/verify .*recompute the audit hash chains/);
    expect(result.stderr).toContain('a subcommand is required');
  });

  test('an unreachable database is one line with DATABASE_UNREACHABLE and exit 1; --verbose adds the stack', async () => {
    const closed = `postgres://postgres@127.0.0.1:${await freePort()}/nothing`;
    const result = await runCli(['migrate'], baseEnv({ DATABASE_URL: closed }));
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^toolgate: DATABASE_UNREACHABLE: cannot reach the database at 127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    const verbose = await runCli(['--verbose', 'migrate'], baseEnv({ DATABASE_URL: closed }));
    expect(verbose.code).toBe(1);
    expect(verbose.stderr).toContain('DATABASE_UNREACHABLE');
    expect(verbose.stderr).toMatch(/\n\s+at /);
  });

  test('`start` on a port in use is one line with PORT_IN_USE and exit 1', async () => {
    const busy = net.createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => busy.listen(port, '127.0.0.1', resolve));
    try {
      const result = await runCli(['start', '--port', String(port), '--host', '127.0.0.1']);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `toolgate: PORT_IN_USE: port ${port} on 127.0.0.1 is already in use; stop the other process or choose another port with --port (or PORT)\n`,
      );
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  });
});
