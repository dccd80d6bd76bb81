// .env.example and the README's configuration table, generated from the settings table
// (`npm run docs:env`, scripts/env-example.mjs; test/unit/config-variables.test.ts fails on drift).
import { SETTING_GROUPS, SETTING_LIST } from './settings';
import type { Setting } from './setting';

export const CONFIG_TABLE_START = '<!-- config:start (generated from src/config/settings*.ts: npm run docs:env) -->';
export const CONFIG_TABLE_END = '<!-- config:end -->';

/** A default .env.example can carry as is: a plain number, boolean or word (not a sentence). */
export function literalDefault(setting: Pick<Setting<unknown>, 'default'>): string | null {
  return /^[\w.:/-]+$/.test(setting.default) && !setting.default.includes('<') ? setting.default : null;
}

/** `.env.example`: every variable commented out at its default (secrets empty), by section. */
export function renderEnvExample(): string {
  const lines = [
    '# Toolgate configuration (generated from src/config/settings*.ts by `npm run docs:env`; do not edit).',
    '# Every variable is optional outside production; uncomment what you change. README "Configuration" explains each.',
  ];
  for (const group of SETTING_GROUPS) {
    lines.push('', `## ${group.title}`);
    for (const [name, setting] of Object.entries(group.settings as Record<string, Setting<unknown>>)) {
      const literal = setting.secret ? null : literalDefault(setting);
      const fallback = literal === null && setting.default ? ` (default: ${setting.default})` : '';
      lines.push(`# ${setting.description}${fallback}${setting.secret ? ' [secret]' : ''}`, `# ${name}=${literal ?? ''}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The README's table: one row per variable, in the table's order. */
export function renderConfigTable(): string {
  const rows = SETTING_LIST.map((s) => {
    const fallback = s.default === '' ? '—' : literalDefault(s) !== null ? `\`${s.default}\`` : s.default;
    return `| \`${s.name}\` | ${fallback} | ${s.readme ?? s.description} |`;
  });
  return ['| variable | default | meaning |', '| --- | --- | --- |', ...rows].join('\n');
}

/** `text` with the section between the markers replaced by the rendered table. */
export function withConfigTable(text: string): string {
  const start = text.indexOf(CONFIG_TABLE_START);
  const end = text.indexOf(CONFIG_TABLE_END);
  if (start < 0 || end < start) throw new Error('the config table markers are missing');
  return `${text.slice(0, start + CONFIG_TABLE_START.length)}\n${renderConfigTable()}\n${text.slice(end)}`;
}
