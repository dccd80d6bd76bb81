import fs from 'node:fs';
import path from 'node:path';

/**
 * Every status change of a run, a tool call or an approval goes through its machine's one
 * owner module, and so do the writes beside the status: a new approval row, the sealed
 * params and input, the run row's counters and owner. This reads the source as a reviewer
 * would and fails on any other writer.
 */
const SRC = path.join(__dirname, '../../src');
const RUN_STATE = 'runs/run-state.ts';
const CALL_STATE = 'gateway/tool-call-state.ts';
const APPROVAL_STATE = 'approvals/approval-state.ts';
const OWNERS = new Set([RUN_STATE, CALL_STATE, APPROVAL_STATE]);

interface WriteRule {
  rule: string;
  pattern: RegExp;
  /** The modules that may write this way. */
  owners: ReadonlySet<string>;
}

/** Writes of a status column: raw SQL, the ORM's nativeUpdate, or an entity field assignment. */
const STATUS_WRITES: WriteRule[] = [
  {
    rule: 'SQL update of a status column',
    pattern: /update\s+"?(agent_runs|tool_calls|approval_requests)"?\s+(\w+\s+)?set\s[^;`]*?\bstatus\s*=/gis,
    owners: OWNERS,
  },
  {
    rule: 'nativeUpdate with a status',
    pattern: /nativeUpdate\(\s*'?(ToolCall|AgentRun|ApprovalRequest|RunMessage)'?\s*,[^;]*?\bstatus\s*:/gs,
    owners: OWNERS,
  },
  // A statement assigning `<object>.status` (SQL comparisons such as `where c.status = …` are not
  // statements; an HTTP response's status — Apollo's `response.http`, Koa's `ctx` in the dev issuer — is no entity's).
  { rule: 'assignment to an entity status', pattern: /^\s*(?!response\.http|entry\b|ctx\.)[\w$.]+\.status\s*=(?!=)/gm, owners: OWNERS },
];

/** The other writes the owners keep: a new approval, the sealed columns, any column of a run's or an approval's row. */
const OWNED_WRITES: WriteRule[] = [
  {
    rule: 'a new approval row',
    pattern:
      /insertSql\([^;)]*?'ApprovalRequest'|insert\s+into\s+"?approval_requests\b|new\s+ApprovalRequest\(|detached\(\s*ApprovalRequest\b|\.(create|insert|nativeInsert)\(\s*'?ApprovalRequest\b/gi,
    owners: new Set([APPROVAL_STATE]),
  },
  {
    rule: 'SQL write of sealed params',
    pattern: /update\s+"?approval_requests"?\s+(\w+\s+)?set\s[^;`]*?\bsealed_params\s*=/gis,
    owners: new Set([APPROVAL_STATE]),
  },
  {
    rule: 'SQL write of a sealed input',
    pattern: /update\s+"?tool_calls"?\s+(\w+\s+)?set\s[^;`]*?\bsealed_input\s*=/gis,
    owners: new Set([CALL_STATE]),
  },
  { rule: 'assignment to sealed params', pattern: /^\s*[\w$.]+\.sealedParams\s*=(?!=)/gm, owners: new Set([APPROVAL_STATE]) },
  { rule: 'assignment to a sealed input', pattern: /^\s*[\w$.]+\.sealedInput\s*=(?!=)/gm, owners: new Set([CALL_STATE]) },
  {
    rule: 'nativeUpdate of a sealed column',
    pattern: /nativeUpdate\([^;]*?\bsealed(Input|Params)\s*:/gs,
    owners: new Set([CALL_STATE, APPROVAL_STATE]),
  },
  { rule: 'SQL update of a run row', pattern: /update\s+"?agent_runs"?\s+(\w+\s+)?set\b/gi, owners: new Set([RUN_STATE]) },
  { rule: 'SQL update of a tool call row', pattern: /update\s+"?tool_calls"?\s+(\w+\s+)?set\b/gi, owners: new Set([CALL_STATE]) },
  { rule: 'SQL update of an approval row', pattern: /update\s+"?approval_requests"?\s+(\w+\s+)?set\b/gi, owners: new Set([APPROVAL_STATE]) },
];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

function violations(relative: string, text: string, rules: WriteRule[] = STATUS_WRITES): string[] {
  return rules.flatMap(({ rule, pattern }) =>
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

  test('no module outside its owner opens an approval, writes a sealed column, or updates a run or approval row', () => {
    const found = sourceFiles(SRC).flatMap((file) => {
      const relative = path.relative(SRC, file).split(path.sep).join('/');
      const text = fs.readFileSync(file, 'utf8');
      return violations(
        relative,
        text,
        OWNED_WRITES.filter((rule) => !rule.owners.has(relative)),
      );
    });
    expect(found).toEqual([]);
  });

  test('the owners do make those writes, and the rules recognise each form', () => {
    const writes = (owner: string) => violations(owner, fs.readFileSync(path.join(SRC, owner), 'utf8'), OWNED_WRITES);
    expect(writes(APPROVAL_STATE).join('\n')).toMatch(/a new approval row[\s\S]*SQL write of sealed params/);
    expect(writes(CALL_STATE).join('\n')).toMatch(/SQL write of a sealed input[\s\S]*assignment to a sealed input/);
    expect(writes(RUN_STATE).join('\n')).toContain('SQL update of a run row');
    const samples: [string, string][] = [
      ["rows.push(insertSql(input.metadata, 'ApprovalRequest', approval));", 'a new approval row'],
      ["await em.execute('INSERT INTO approval_requests (id) values (?)', [id]);", 'a new approval row'],
      ['const approval = Object.assign(new ApprovalRequest(), fields);', 'a new approval row'],
      ['tx.create(ApprovalRequest, { toolCallId });', 'a new approval row'],
      ['approval = detached(ApprovalRequest, { orgId, kind });', 'a new approval row'],
      ["await tx.execute('update approval_requests set sealed_params = null where id = ?', [id]);", 'SQL write of sealed params'],
      ['await tx.execute(`update tool_calls set node_id = ?, sealed_input = ? where id = ?`);', 'SQL write of a sealed input'],
      ['  approval.sealedParams = null;', 'assignment to sealed params'],
      ['  call.sealedInput = sealJson(key, version, aad, params);', 'assignment to a sealed input'],
      ['await tx.nativeUpdate(ToolCall, { id }, { sealedInput: null });', 'nativeUpdate of a sealed column'],
      ["await tx.execute('update agent_runs set tool_cost_cents = tool_cost_cents + ? where id = ?');", 'SQL update of a run row'],
    ];
    for (const [sample, rule] of samples)
      expect(violations('sample.ts', sample, OWNED_WRITES).map((v) => v.split(' ').slice(1).join(' '))).toContainEqual(expect.stringContaining(rule));
    // Reads are not writes.
    expect(
      violations(
        'sample.ts',
        'if (call.sealedInput === null) return;\n  await tx.findOne(ApprovalRequest, { toolCallId });\n  where sealed_params is not null',
        OWNED_WRITES,
      ),
    ).toEqual([]);
  });
});
