// The `toolgate` command's building blocks (src/cli/main.ts dispatches to them).
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config';
import type { Logger } from '../support/logger';
import { openRuntime, type Toolgate } from '../app/main';
import type { SeedResult } from '../seed/demo-seed';
import { ROLES } from '../auth/roles';
import { MIGRATIONS_DIR, pendingMigrations } from '../db/orm';

/** Bad input on the command line: exit 2, nothing changed. */
export class UsageError extends Error {}

export async function withRuntime(
  config: Config,
  logger: Logger,
  run: (runtime: Awaited<ReturnType<typeof openRuntime>>) => Promise<void>,
  options: { migrate: boolean } = { migrate: true },
): Promise<number> {
  const runtime = await openRuntime(config, logger, options);
  try {
    if (!options.migrate) {
      const pending = await pendingMigrations(runtime.orm);
      if (pending.length > 0) {
        throw new UsageError(`the database has ${pending.length} pending migration(s); run \`toolgate migrate\` first`);
      }
    }
    await run(runtime);
    return 0;
  } finally {
    await runtime.close();
  }
}

export function describeVersions(counts: Record<number, number>, current: number): string {
  const lines = Object.entries(counts).map(([version, count]) => `  v${version}: ${count} credential(s)`);
  const old = Object.keys(counts).filter((v) => Number(v) !== current);
  const advice =
    old.length === 0
      ? `Every credential uses v${current}; older master keys can be removed from MASTER_ENCRYPTION_KEYS.\n`
      : `Still on older keys: ${old.map((v) => `v${v}`).join(', ')}; run \`toolgate credentials rotate\` before retiring them.\n`;
  return `${lines.join('\n')}${lines.length ? '\n' : ''}${advice}`;
}

/** What `seed` prints for people: the demo org, its fresh keys and a curl to try. */
export function describeSeed(seed: SeedResult, url = 'http://localhost:4000/graphql', serving = false): string {
  const lines = [
    '',
    `Toolgate ${serving ? `is serving ${url}` : 'demo org'}`,
    ...(serving ? [`Approval console: ${consoleUrl(url)}`] : []),
    `Demo org ${seed.orgId} with specialist ${seed.specialistId}.`,
    'API keys (shown once; keep them):',
    ...ROLES.map((role) => `  ${role.padEnd(8)} ${seed.keys[role]}`),
    ...(seed.revokedKeyIds.length > 0 ? [`Revoked the ${seed.revokedKeyIds.length} demo keys an earlier seed issued (they no longer work).`] : []),
    '',
    'Try:',
    `  curl -s ${url} -H 'content-type: application/json' \\`,
    `    -H 'authorization: Bearer ${seed.keys.admin}' \\`,
    `    -d '{"query":"{ viewer { org { id name } role } }"}'`,
    '',
  ];
  return `${lines.join('\n')}\n`;
}

/** The console is served beside /graphql (src/api/http/console-route.ts). */
const consoleUrl = (graphqlUrl: string): string => graphqlUrl.replace(/\/graphql$/, '/console');

/** The banner of every start: the URL and the demo ids; keys only on the start that issued them. */
export function describeStart(toolgate: Toolgate): string {
  const url = toolgate.server.url;
  if (toolgate.seeded) return describeSeed(toolgate.seeded, url, true);
  const demo = toolgate.demo ? `Demo org ${toolgate.demo.orgId} with specialist ${toolgate.demo.specialistId}.\n` : '';
  return (
    `\nToolgate is serving ${url}\nApproval console: ${consoleUrl(url)}\n${demo}` +
    'Keys are shown only when issued: `npx toolgate seed` prints fresh demo keys, `npx toolgate keys create --org ID --role ROLE` one more.\n\n'
  );
}

/** Rewrites migrations/index.ts to list every migration file in name (= time) order. */
export async function writeMigrationIndex(): Promise<void> {
  const files = (await fs.readdir(MIGRATIONS_DIR))
    .filter((f) => /^Migration\d+.*\.ts$/.test(f))
    .map((f) => f.replace(/\.ts$/, ''))
    .sort();
  const body = [
    '// The ordered list of migrations, loaded as code so that the compiled server and the',
    '// swc-transformed tests run the same files. `npm run migration:create` rewrites this file.',
    "import type { MigrationObject } from '@mikro-orm/core';",
    ...files.map((f) => `import { ${f} } from './${f}';`),
    '',
    'export const MIGRATIONS: MigrationObject[] = [',
    ...files.map((f) => `  { name: '${f}', class: ${f} },`),
    '];',
    '',
  ];
  await fs.writeFile(path.join(MIGRATIONS_DIR, 'index.ts'), body.join('\n'));
}
