import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildSchema, parse, validate } from 'graphql';
import { createTestDatabase, type TestDatabase } from './support/database';
import { childEnv, freePort, killChildren, spawnCli, waitFor, withTimeout, type Running } from './support/processes';

/**
 * The README's demo, extracted from the README itself and run as pasted against a fresh
 * `toolgate start`: the shell block (seed, ask, wait, approve, resume) with bash, then the
 * subscription snippet with node. If the README drifts from the server, this fails.
 */
const ROOT = path.join(__dirname, '..');
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

function block(marker: string): string {
  const found = new RegExp(`<!-- ${marker} -->\\n\`\`\`\\w+\\n([\\s\\S]*?)\`\`\``).exec(README);
  if (!found) throw new Error(`README has no <!-- ${marker} --> code block`);
  return found[1];
}

/** Runs a child to its end (or kills it at `timeoutMs`), collecting its output. */
function runChild(command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number) {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return {
    child,
    output: () => ({ stdout, stderr }),
    done: () =>
      withTimeout(exited, timeoutMs, () => {
        child.kill('SIGKILL');
        return `${command} did not finish within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`;
      }).then((code) => ({ code, stdout, stderr })),
  };
}

let db: TestDatabase;
let server: Running;
let env: NodeJS.ProcessEnv;
const scratch: string[] = [];
beforeAll(async () => {
  db = await createTestDatabase();
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-readme-'));
  scratch.push(dataDir);
  env = childEnv({
    NODE_ENV: 'development',
    DATABASE_URL: db.url,
    PORT: String(port),
    LOG_LEVEL: 'silent',
    MASTER_ENCRYPTION_KEY: '3c'.repeat(32),
    TOOLGATE_DATA_DIR: dataDir,
    // The embedded default serves the sandboxes; on DATABASE_URL they are asked for.
    TOOLGATE_VENDOR_SANDBOXES: 'true',
    TOOLGATE_URL: `http://127.0.0.1:${port}/graphql`,
  });
  server = spawnCli(['start'], env);
  await waitFor('GET /readyz', async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.ok || undefined, 60_000, server);
}, 90_000);
afterAll(async () => {
  await killChildren();
  await db?.drop();
  for (const dir of scratch) fs.rmSync(dir, { recursive: true, force: true });
});

test('the shell demo runs as pasted: the order answer, then the invoice approved by an expert', async () => {
  const demo = runChild('bash', ['-euo', 'pipefail', '-c', block('demo')], env, 120_000);
  const { code, stdout, stderr } = await demo.done();
  expect({ code, stderr: stderr.split('\n').filter((l) => l && !/npm warn/i.test(l)) }).toEqual({ code: 0, stderr: [] });
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(3);
  expect(JSON.parse(lines[0])).toEqual({
    reply: expect.stringContaining('TRACK-001'),
    toolCalls: [{ toolName: 'order_lookup', status: 'succeeded' }],
  });
  expect(lines[1]).toBe('approved');
  expect(lines[2]).toMatch(/^Invoice \S+ for 120\.50( USD)? was sent to Birds@Intuit\.com\.$/);
}, 150_000);

test('the subscription snippet replays the approval queue and stays live', async () => {
  const seed = runChild(process.execPath, [path.join(ROOT, 'dist', 'src', 'cli.js'), 'seed', '--json'], env, 60_000);
  const { stdout } = await seed.done();
  const expert = (JSON.parse(stdout) as { keys: { expert: string } }).keys.expert;
  // In the project folder, as the README says (graphql-ws resolves from its node_modules).
  const file = path.join(ROOT, `.readme-approvals-${process.pid}.mjs`);
  fs.writeFileSync(file, block('subscription'));
  scratch.push(file);
  // Node 22+ has WebSocket built in; Node 20 (this machine's, not CI's) behind a flag.
  const flags = Number(process.versions.node.split('.')[0]) < 22 ? ['--experimental-websocket'] : [];
  const dashboard = runChild(process.execPath, [...flags, file], { ...env, EXPERT: expert }, 60_000);
  const events = await waitFor(
    'the replayed approval events',
    async () => {
      const lines = dashboard.output().stdout.trim().split('\n').filter(Boolean);
      return lines.length >= 2 ? lines.map((l) => JSON.parse(l) as { change: string; approvalRequest: { status: string } }) : undefined;
    },
    30_000,
  );
  expect(events.map((e) => e.change)).toEqual(['requested', 'approved']);
  expect(dashboard.child.exitCode).toBeNull(); // still live
  dashboard.child.kill('SIGTERM');
  expect(dashboard.output().stderr).toBe('');
}, 90_000);

test('every gql example in the README is valid against the schema', () => {
  const schema = buildSchema(fs.readFileSync(path.join(ROOT, 'schema.graphql'), 'utf8'));
  const examples = [...README.matchAll(/(?:^|\$\()gql "\$\w+" \S+ '([^']+)'/gm)].map((m) => m[1]);
  expect(examples.length).toBeGreaterThanOrEqual(15);
  const invalid = examples.flatMap((query) => validate(schema, parse(query)).map((e) => `${query}: ${e.message}`));
  expect(invalid).toEqual([]);
});
