import { ACCESS_MATRIX, RUN_SCOPE, mayUse } from './access';
import { ROLES } from './roles';

export const ACCESS_TABLE_START = '<!-- access-matrix:start (generated from src/auth/access.ts: npm run docs:access) -->';
export const ACCESS_TABLE_END = '<!-- access-matrix:end -->';

/** The README's role table, one row per operation of the access matrix. */
export function renderAccessTable(): string {
  const header = `| operation | what | ${ROLES.join(' | ')} |\n| --- | --- |${' :-: |'.repeat(ROLES.length)}`;
  const rows = Object.entries(ACCESS_MATRIX).map(([coordinate, access]) => {
    const marks = ROLES.map((role) => ((access.roles as readonly string[]).includes(role) ? '✓' : ' '));
    return `| \`${coordinate}\` | ${access.what} | ${marks.join(' | ')} |`;
  });
  const scopes = ROLES.map((role) => SCOPE_WORDS[RUN_SCOPE[role]]);
  const drives = ROLES.map((role) => {
    if (!DRIVING.some((operation) => mayUse(operation, role))) return '—';
    return mayUse('Mutation.handOverRun', role) ? 'its own; cancels, completes and hands over any' : 'its own';
  });
  const runs = [
    `| which runs | ${ROLES.join(' | ')} |`,
    `| --- |${' :-: |'.repeat(ROLES.length)}`,
    `| read (lists, reads, tool calls, approvals, subscriptions) | ${scopes.join(' | ')} |`,
    `| drive (${DRIVING.map((o) => `\`${o.split('.')[1]}\``).join(', ')}) | ${drives.join(' | ')} |`,
  ].join('\n');
  return [header, ...rows, '', runs].join('\n');
}

/** The operations that drive a run: the run's owner only (RUN_NOT_YOURS). */
const DRIVING = [
  'Mutation.postMessage',
  'Mutation.cancelRun',
  'Mutation.completeAgentRun',
  'Mutation.executeToolCall',
  'Mutation.executeApprovedToolCall',
  'MCP./mcp',
] as const;

const SCOPE_WORDS = { org: 'all', owned: 'its own', owned_or_client_approval: 'its own + client approvals' } as const;

/** `text` with the section between the markers replaced by the rendered table. */
export function withAccessTable(text: string): string {
  const start = text.indexOf(ACCESS_TABLE_START);
  const end = text.indexOf(ACCESS_TABLE_END);
  if (start < 0 || end < start) throw new Error('the access-matrix markers are missing');
  return `${text.slice(0, start + ACCESS_TABLE_START.length)}\n${renderAccessTable()}\n${text.slice(end)}`;
}
