// tsc writes dist/src/cli.js without the execute bit; `npx toolgate` (npm's bin for this
// project) runs the file itself, so it must be executable. Run after every build.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function markBinExecutable() {
  const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
  const { bin } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  for (const file of Object.values(bin)) fs.chmodSync(path.join(root, file), 0o755);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) markBinExecutable();
