import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestApp, type TestApp } from '../support/app';
import { newOrg, newRun, newToolCall, type TestOrg } from '../support/factories';
import { CLI, childEnv } from '../support/processes';
import partnerManifest from '../../gql/partner/persisted-documents.json';

/**
 * The partner kit as a partner gets it: `toolgate persisted list|export` hands out the
 * partner manifest (with names, also as Apollo's persisted query list), and the README's
 * typed client (examples/partner-client.mts) compiles and runs against a live server.
 */
const run = promisify(execFile);
const ROOT = path.join(__dirname, '..', '..');
const CLIENT = path.join(ROOT, 'examples', 'partner-client.mts');

let app: TestApp;
let owner: TestOrg;
let runId: string;
beforeAll(async () => {
  app = await startTestApp();
  owner = await newOrg(app.em(), 'Kit Org');
  const created = await newRun(app.em(), owner);
  runId = created.id;
  await newToolCall(app.em(), owner, created, { toolName: 'order_lookup', action: 'lookup', status: 'succeeded' });
});
afterAll(async () => app?.close());

const cli = (args: string[]) => run(process.execPath, [CLI, ...args], { env: childEnv({ LOG_LEVEL: 'silent' }) });

describe('toolgate persisted', () => {
  test('list names every operation with its audience, type and id', async () => {
    const { stdout } = await cli(['persisted', 'list', '--json']);
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { audience: string; type: string; name: string; id: string });
    const partner = lines.filter((l) => l.audience === 'partner');
    expect(partner.map((l) => l.name).sort()).toEqual(['PartnerRunToolCalls', 'PartnerRuns', 'PartnerToolCall', 'PartnerViewer']);
    expect(partner.map((l) => l.id).sort()).toEqual(Object.keys(partnerManifest).sort());
    expect(lines.filter((l) => l.audience === 'first-party').map((l) => l.name)).toContain('SetFeatureFlag');
  });

  test("export gives the partner operations only, as Apollo's persisted query list with names", async () => {
    const { stdout } = await cli(['persisted', 'export']);
    const list = JSON.parse(stdout) as { format: string; version: number; operations: { id: string; name: string; type: string; body: string }[] };
    expect([list.format, list.version]).toEqual(['apollo-persisted-query-manifest', 1]);
    expect(list.operations.map((o) => o.name).sort()).toEqual(['PartnerRunToolCalls', 'PartnerRuns', 'PartnerToolCall', 'PartnerViewer']);
    for (const op of list.operations) {
      expect(createHash('sha256').update(op.body).digest('hex')).toBe(op.id);
      expect(op.type).toBe('query');
    }
  });

  test('export --format documents is the manifest the server loads', async () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-kit-')), 'partner.json');
    await cli(['persisted', 'export', '--audience', 'partner', '--format', 'documents', '--out', out]);
    expect(JSON.parse(fs.readFileSync(out, 'utf8'))).toEqual(partnerManifest);
  });

  test('an unknown audience is bad usage (exit 2)', async () => {
    await expect(cli(['persisted', 'export', '--audience', 'everyone'])).rejects.toMatchObject({ code: 2 });
  });
});

describe('the partner quickstart client', () => {
  test("is the README's code", () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const block = /<!-- partner-client -->\n```ts\n([\s\S]*?)```/.exec(readme);
    expect(block?.[1]).toBe(fs.readFileSync(CLIENT, 'utf8'));
  });

  test('compiles with tsc and runs against a live server with a partner key', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-partner-'));
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    await run(process.execPath, [
      tsc,
      ...['--outDir', out, '--rootDir', ROOT, '--module', 'nodenext', '--target', 'es2022', '--strict', '--skipLibCheck'],
      ...['--rewriteRelativeImportExtensions', '--types', 'node', CLIENT],
    ]);
    const env = childEnv({ TOOLGATE_URL: app.url, TOOLGATE_KEY: owner.keys.partner });
    const { stdout } = await run(process.execPath, [path.join(out, 'examples', 'partner-client.mjs')], { env, cwd: ROOT });
    const expected = ['signed in to Kit Org as partner', '1 run(s)', `${runId} completed order_lookup.lookup=succeeded`, ''];
    expect(stdout.split('\n')).toEqual(expected);
    // As pasted, on a Node that strips types (22.18+, CI's 24): the same output.
    if ((process as { features?: { typescript?: unknown } }).features?.typescript) {
      expect((await run(process.execPath, [CLIENT], { env, cwd: ROOT })).stdout.split('\n')).toEqual(expected);
    }
  });
});
