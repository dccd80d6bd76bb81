import fs from 'node:fs';
import path from 'node:path';

/**
 * Every status change of a run, a tool call or an approval goes through its machine's one
 * owner module. This reads the source as a reviewer would and fails on any other writer.
 */
const SRC = path.join(__dirname, '../../src');
const OWNERS = new Set(['runs/run-state.ts', 'gateway/tool-call-state.ts', 'approvals/approval-state.ts']);

/** Writes of a status column: raw SQL, the ORM's nativeUpdate, or an entity field assignment. */
const STATUS_WRITES: { rule: string; pattern: RegExp }[] = [
  { rule: 'SQL update of a status column', pattern: /update\s+"?(agent_runs|tool_calls|approval_requests)"?\s+(\w+\s+)?set\s[^;`]*?\bstatus\s*=/gis },
  { rule: 'nativeUpdate with a status', pattern: /nativeUpdate\(\s*'?(ToolCall|AgentRun|ApprovalRequest|RunMessage)'?\s*,[^;]*?\bstatus\s*:/gs },
  // A statement assigning `<object>.status` (SQL comparisons such as `where c.status = …` are not statements).
  { rule: 'assignment to an entity status', pattern: /^\s*(?!response\.http|entry\b)[\w$.]+\.status\s*=(?!=)/gm },
];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

function violations(relative: string, text: string): string[] {
  return STATUS_WRITES.flatMap(({ rule, pattern }) =>
    [...text.matchAll(pattern)].map((match) => {
      const line = text.slice(0, match.index).split('\n').length;
      return `${relative}:${line} ${rule}: ${match[0].replace(/\s+/g, ' ').slice(0, 80)}`;
    }),
  );
}

describe('state machine owners', () => {
  test('no module outside run-state, tool-call-state and approval-state writes a status column', () => {
    const found = sourceFiles(SRC).flatMap((file) => {
      const relative = path.relative(SRC, file).split(path.sep).join('/');
      return OWNERS.has(relative) ? [] : violations(relative, fs.readFileSync(file, 'utf8'));
    });
    expect(found).toEqual([]);
  });

  test('the owners do write them (the rules recognise every form of status write)', () => {
    for (const owner of OWNERS) {
      expect(violations(owner, fs.readFileSync(path.join(SRC, owner), 'utf8')).length).toBeGreaterThan(0);
    }
    const samples = [
      "await tx.execute(`update tool_calls set error_code = ?, status = 'failed' where id = ?`, [id]);",
      'await em.execute("UPDATE agent_runs r SET status = \'completed\' WHERE id = ?");',
      "await tx.nativeUpdate(ToolCall, { id }, { outputRedacted: null, status: 'succeeded' });",
      "approval.status = 'approved';",
    ];
    for (const sample of samples) expect(violations('sample.ts', sample)).toHaveLength(1);
    expect(violations('sample.ts', "if (call.status === 'running') return;\n  response.http.status = 503;\n  where c.status = 'running'")).toEqual(
      [],
    );
  });
});
