import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestApp, TEST_MASTER_KEY_HEX, type TestApp } from '../support/app';
import { seedDemo, type SeedResult } from '../../src/seed/demo-seed';
import { MasterKeyring } from '../../src/credentials/keyring';
import { countByKeyVersion, rotateCredentials } from '../../src/credentials/credential-rotation';
import { readCredential } from '../../src/credentials/credential.service';
import { SANDBOX_CREDENTIALS } from '../../src/vendors';
import { EXECUTE_TOOL_CALL, START_AGENT_RUN, jsonAs } from '../support/documents';
import { LedgerEventsDocument } from '../../gql/graphql';

// Rotation as an operator runs it: deploy with the new key added (v2 newest, v1 still
// configured), re-wrap everything while the server serves calls, then retire v1.
const run = promisify(execFile);
const CLI = path.join(__dirname, '..', '..', 'dist', 'src', 'cli.js');
const v1Hex = TEST_MASTER_KEY_HEX;
const v2Hex = randomBytes(32).toString('hex');
const ringV1 = new MasterKeyring([{ version: 1, key: Buffer.from(v1Hex, 'hex') }]);
const ringV2 = new MasterKeyring([{ version: 2, key: Buffer.from(v2Hex, 'hex') }]);

let app: TestApp;
let demo: SeedResult;

beforeAll(async () => {
  // The server runs with both versions; the data was written under v1 before the deploy.
  app = await startTestApp({ MASTER_ENCRYPTION_KEYS: `v2:${v2Hex},v1:${v1Hex}` }, { sandboxes: true });
  demo = await seedDemo(app.em(), ringV1);
});
afterAll(async () => app?.close());

async function orderLookup(runId: string): Promise<string> {
  const res = await app.gql(EXECUTE_TOOL_CALL, {
    key: demo.keys.agent,
    variables: {
      input: {
        runId,
        toolName: 'order_lookup',
        action: 'lookup',
        params: { orderId: '12345' },
        correlationId: `rot-${Math.random().toString(36).slice(2)}`,
      },
    },
  });
  return res.body.data?.executeToolCall.status ?? JSON.stringify(res.body.errors);
}

test('re-wraps every credential online, resumably, after which v1 can be retired', async () => {
  expect(await countByKeyVersion(app.em())).toEqual({ 1: 4 });
  const started = await app.gql(START_AGENT_RUN, {
    key: demo.keys.agent,
    variables: { input: { specialistId: demo.specialistId, driver: 'EXTERNAL' } },
  });
  const runId = started.body.data!.startAgentRun.id;

  // An interrupted first attempt: one batch of one credential, then the process "dies".
  await expect(
    rotateCredentials(app.orm, app.masterKey, {
      batchSize: 1,
      onBatch: () => {
        throw new Error('interrupted');
      },
    }),
  ).rejects.toThrow('interrupted');
  expect(await countByKeyVersion(app.em())).toEqual({ 1: 3, 2: 1 });

  // The rerun finishes the job while tool calls keep being served.
  const [report, ...statuses] = await Promise.all([
    rotateCredentials(app.orm, app.masterKey, { batchSize: 1 }),
    ...Array.from({ length: 6 }, () => orderLookup(runId)),
  ]);
  expect(statuses.every((s) => s === 'succeeded')).toBe(true);
  expect(report).toEqual({ rotated: 3, byKeyVersion: { 2: 4 } });

  // v1 retired: every credential still opens with v2 alone, and holds what was stored.
  for (const [integrationType, config] of Object.entries(SANDBOX_CREDENTIALS)) {
    expect(await readCredential(app.em(), ringV2, demo.orgId, integrationType)).toEqual(config);
  }

  // Each re-wrap is in the ledger, without secrets.
  const events = await app.gql(LedgerEventsDocument, { key: demo.keys.admin, variables: { first: 100, filter: { type: 'credential.rotated' } } });
  const rotations = events.body.data!.ledgerEvents.edges.map((e) => jsonAs<Record<string, unknown>>(e.node.metadata));
  expect(rotations).toHaveLength(4);
  expect(rotations.every((m) => m.fromKeyVersion === 1 && m.toKeyVersion === 2 && m.reason === 'master_key_rotation')).toBe(true);
  const plain = JSON.stringify(rotations);
  for (const config of Object.values(SANDBOX_CREDENTIALS)) {
    for (const value of Object.values(config)) if (typeof value === 'string' && value.length > 12) expect(plain).not.toContain(value);
  }

  // After the rotation, calls keep working, and a second rotation has nothing to do.
  expect(await orderLookup(runId)).toBe('succeeded');
  expect(await rotateCredentials(app.orm, app.masterKey)).toEqual({ rotated: 0, byKeyVersion: { 2: 4 } });
});

test('the CLI reports versions and rotates; a retired key makes an old credential unreadable, not a crash', async () => {
  const env = {
    ...process.env,
    DATABASE_URL: app.db.url,
    LOG_LEVEL: 'silent',
    MASTER_ENCRYPTION_KEYS: `v3:${randomBytes(32).toString('hex')},v2:${v2Hex}`,
  };
  const status = await run(process.execPath, [CLI, 'credentials', 'status'], { env });
  expect(status.stdout).toContain('v2: 4 credential(s)');
  expect(status.stdout).toContain('run `toolgate credentials rotate`');
  const rotated = await run(process.execPath, [CLI, 'credentials', 'rotate', '--batch', '2'], { env });
  expect(rotated.stdout).toContain('Re-wrapped 4 credential(s) with master key v3');
  expect(rotated.stdout).toContain('older master keys can be removed');

  // The server still has only v2 and v1: the v3-wrapped credentials are unreadable to it.
  const started = await app.gql(START_AGENT_RUN, {
    key: demo.keys.agent,
    variables: { input: { specialistId: demo.specialistId, driver: 'EXTERNAL' } },
  });
  const res = await app.gql(EXECUTE_TOOL_CALL, {
    key: demo.keys.agent,
    variables: {
      input: {
        runId: started.body.data!.startAgentRun.id,
        toolName: 'order_lookup',
        action: 'lookup',
        params: { orderId: '12345' },
        correlationId: 'rot-cli',
      },
    },
  });
  expect(res.body.data!.executeToolCall).toMatchObject({ status: 'failed', error: { code: 'CREDENTIALS_UNREADABLE' } });
});
