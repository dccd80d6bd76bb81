import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildSchema, parse, validate } from 'graphql';
import { createTestDatabase, type TestDatabase } from './support/database';
import { childEnv, freePort, killChildren, spawnCli, waitFor, withTimeout, type Running } from './support/processes';
import { scrape } from './support/metrics-text';

/**
 * The README's demo, extracted from the README itself and run as pasted against a fresh
 * `toolgate start`: the shell block (seed, ask, wait, approve, resume) with bash, then the
 * subscription snippet with node. If the README drifts from the server, this fails.
 */
const ROOT = path.join(__dirname, '..');
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const OPERATIONS = fs.readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8');
const METRICS_TOKEN = 'readme-demo-metrics-token-0123';

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
    METRICS_TOKEN,
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

test('after the demo, /metrics shows every family the README documents, with what the demo did', async () => {
  const { status, metrics } = await scrape(env.TOOLGATE_URL!.replace(/\/graphql$/, '/metrics'), METRICS_TOKEN);
  expect(status).toBe(200);
  const families = [...metrics.types.keys()].filter((name) => name.startsWith('toolgate_'));
  // Every family is documented in the README's table and has an example alert in docs/operations.md, and vice versa.
  const documented = [...README.matchAll(/^\| `(toolgate_[a-z_]+)` \|/gm)].map((m) => m[1]);
  expect(families.sort()).toEqual([...documented].sort());
  for (const family of families) expect([family, OPERATIONS.includes(family)]).toEqual([family, true]);
  // What the demo did: the order lookup, the invoice waiting for the expert and then sent, the model turns.
  const calls = (tool: string, decision: string, callStatus: string) =>
    metrics.value('toolgate_tool_calls_total', { tool, decision, status: callStatus, code: 'none' });
  expect(calls('order_lookup.lookup', 'allow', 'succeeded')).toBe(1);
  expect(calls('invoice.send', 'require_expert_approval', 'waiting_approval')).toBe(1);
  expect(calls('invoice.send', 'require_expert_approval', 'succeeded')).toBe(1);
  expect(metrics.value('toolgate_approval_resolution_seconds_count', { kind: 'expert', outcome: 'approved' })).toBe(1);
  expect(metrics.value('toolgate_approvals_pending', { kind: 'expert' })).toBe(0);
  expect(metrics.value('toolgate_vendor_request_duration_seconds_count', { vendor: 'shopify', outcome: 'success' })).toBe(1);
  expect(metrics.value('toolgate_vendor_breaker_state')).toBe(0);
  expect(metrics.value('toolgate_model_time_to_first_token_seconds_count')).toBeGreaterThanOrEqual(4);
  expect(metrics.value('toolgate_model_tokens_total', { direction: 'output' })).toBeGreaterThan(0);
  expect(metrics.find('toolgate_job_queue_depth', { task: 'run_agent' })).toHaveLength(4);
  expect(metrics.find('process_cpu_seconds_total')).toHaveLength(1);
  // Without the token: refused.
  expect((await scrape(env.TOOLGATE_URL!.replace(/\/graphql$/, '/metrics'), null)).status).toBe(401);
});

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
