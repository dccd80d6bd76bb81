import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

/**
 * The import rules `npm run lint` enforces (.dependency-cruiser.cjs, scripts/lint-private-sql.mjs),
 * each shown refusing a deliberately wrong import: a throwaway tree with the project's folder
 * names, one small module per side of a rule, checked by the same command and configuration.
 */
const ROOT = path.join(__dirname, '..', '..');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = path.join(ROOT, 'node_modules', '.bin', 'depcruise');

/** Files of a tree: path → the modules it imports (paths without `src/` and `.ts`). */
type Tree = Record<string, string[]>;

function writeTree(tree: Tree): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-rules-'));
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'commonjs', target: 'es2022', strict: true } }));
  for (const [file, imports] of Object.entries(tree)) {
    const full = path.join(dir, 'src', `${file}.ts`);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    const lines = imports.map((target, i) => {
      let spec = path.relative(path.dirname(full), path.join(dir, 'src', target));
      if (!spec.startsWith('.')) spec = `./${spec}`;
      return `import { value as v${i} } from '${spec}';`;
    });
    fs.writeFileSync(full, `${lines.join('\n')}\nexport const value = ${imports.map((_, i) => `v${i}`).join(' + ') || '1'};\n`);
  }
  return dir;
}

/** The rules `depcruise src` reports on the tree (sorted, once each). */
function violatedRules(tree: Tree): string[] {
  const dir = writeTree(tree);
  try {
    const result = spawnSync(DEPCRUISE, ['src', '--config', CONFIG, '--output-type', 'json'], { cwd: dir, encoding: 'utf8' });
    const report = JSON.parse(result.stdout) as { summary: { violations: { rule: { name: string } }[] } };
    return [...new Set(report.summary.violations.map((v) => v.rule.name))].sort();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test.each<[string, Tree]>([
  ['no-circular', { 'gateway/a': ['gateway/b'], 'gateway/b': ['gateway/a'] }],
  // Through a module in between: the rule follows imports, not just the direct one.
  ['state-owners-below-runtime', { 'runs/run-state': ['policy/helper'], 'policy/helper': ['realtime/bus'], 'realtime/bus': [] }],
  ['state-owners-below-runtime', { 'approvals/approval-state': ['api/limits'], 'api/limits': [] }],
  ['run-record-below-runtime', { 'runs/run-query': ['runtime/agent-runtime'], 'runtime/agent-runtime': [] }],
  ['ledger-not-above-realtime', { 'ledger/ledger.service': ['realtime/ledger-notifier'], 'realtime/ledger-notifier': [] }],
  ['db-knows-no-feature', { 'db/orm': ['runs/agent-run.entity'], 'runs/agent-run.entity': [] }],
  ['graphql-knows-no-feature', { 'graphql/loaders': ['gateway/tool-call.entity'], 'gateway/tool-call.entity': [] }],
  ['only-entries-import-app', { 'mcp/mcp-route': ['app/services'], 'app/services': [] }],
  ['config-knows-no-vendor', { 'config/settings': ['vendors/index'], 'vendors/index': [] }],
])('%s refuses a wrong import', (rule, tree) => {
  expect(violatedRules(tree)).toContain(rule);
});

test('the layering as built passes every rule', () => {
  const tree: Tree = {
    'cli/main': ['app/compose'],
    'app/compose': ['runtime/agent-runtime', 'realtime/bus', 'db/orm'],
    'runtime/agent-runtime': ['gateway/gateway.service', 'runs/run-state'],
    'gateway/gateway.service': ['gateway/tool-call-state', 'ledger/ledger.service'],
    'gateway/tool-call-state': ['ledger/ledger.service'],
    'runs/run-state': ['ledger/ledger.service'],
    'realtime/bus': ['ledger/ledger.service'],
    'ledger/ledger.service': ['db/orm'],
    'db/orm': [],
  };
  expect(violatedRules(tree)).toEqual([]);
});

test("graphile-worker's private tables are named only in their adapter", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-sql-'));
  const lint = () => spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'lint-private-sql.mjs'), dir], { encoding: 'utf8' });
  try {
    fs.mkdirSync(path.join(dir, 'src', 'jobs'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'src', 'recovery'), { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'src', 'jobs', 'graphile-private.ts'),
      'export const sql = `update graphile_worker._private_jobs set locked_by = null`;\n',
    );
    expect(lint().status).toBe(0);
    fs.writeFileSync(
      path.join(dir, 'src', 'recovery', 'node-liveness.ts'),
      'export const sql = `select locked_by from graphile_worker._private_job_queues`;\n',
    );
    const refused = lint();
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('src/recovery/node-liveness.ts:1');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
