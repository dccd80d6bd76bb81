// The grep rule of `npm run lint`: graphile-worker's private tables (`graphile_worker._private_*`)
// are named in one adapter only, src/jobs/graphile-private.ts, whose upgrade test pins them
// (test/jobs/graphile-internals.test.ts). Usage: node scripts/lint-private-sql.mjs [root]
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(process.argv[2] ?? '.');
const ADAPTER = path.join('src', 'jobs', 'graphile-private.ts');

function* files(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* files(full);
    else if (/\.(ts|tsx|js|mjs|cjs|sql)$/.test(entry.name)) yield full;
  }
}

const hits = [];
for (const file of files(path.join(root, 'src'))) {
  const relative = path.relative(root, file);
  if (relative === ADAPTER) continue;
  fs.readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, index) => {
      if (line.includes('_private_')) hits.push(`${relative}:${index + 1}: ${line.trim()}`);
    });
}
if (hits.length > 0) {
  console.error(`graphile-worker's private tables are named outside ${ADAPTER} (use its documented functions, or the adapter):`);
  for (const hit of hits) console.error(`  ${hit}`);
  process.exit(1);
}
