import { ACCESS_MATRIX } from './access';
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
  return [header, ...rows].join('\n');
}

/** `text` with the section between the markers replaced by the rendered table. */
export function withAccessTable(text: string): string {
  const start = text.indexOf(ACCESS_TABLE_START);
  const end = text.indexOf(ACCESS_TABLE_END);
  if (start < 0 || end < start) throw new Error('the access-matrix markers are missing');
  return `${text.slice(0, start + ACCESS_TABLE_START.length)}\n${renderAccessTable()}\n${text.slice(end)}`;
}
