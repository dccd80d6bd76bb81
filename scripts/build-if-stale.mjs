// `npm start`'s build step: runs tsc only when a source changed since the last successful
// build, so a start on unchanged sources does not pay for a compile (tsc's own incremental
// no-op still takes seconds to load and check every file's hash).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { markBinExecutable } from './bin-executable.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Written only after tsc succeeded: a failed build is retried by the next start.
const stamp = path.join(root, 'dist', '.build-stamp');
const INPUTS = ['src', 'migrations', 'gql', 'console', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json'];

/** The newest modification time under `file`; folders count too, so a deleted or added file shows. */
function newest(file) {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return fs.readdirSync(file).reduce((latest, name) => Math.max(latest, newest(path.join(file, name))), stat.mtimeMs);
}

const builtAt = fs.statSync(stamp, { throwIfNoEntry: false })?.mtimeMs ?? 0;
const changed = INPUTS.find((input) => newest(path.join(root, input)) > builtAt);
if (changed !== undefined) {
  process.stderr.write(`Building dist/ (${builtAt === 0 ? 'no previous build' : `${changed} changed`})…\n`);
  const began = Date.now();
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    process.stderr.write('The build failed (see above); nothing was started.\n');
    process.exit(1);
  }
  markBinExecutable();
  // The console bundle (esbuild, well under a second).
  const consoleBuild = spawnSync(process.execPath, [path.join(root, 'scripts', 'build-console.mjs')], { cwd: root, stdio: 'inherit' });
  if (consoleBuild.status !== 0) {
    process.stderr.write('The console build failed (see above); nothing was started.\n');
    process.exit(1);
  }
  fs.writeFileSync(stamp, `${new Date().toISOString()}\n`);
  process.stderr.write(`Built in ${((Date.now() - began) / 1000).toFixed(1)} s.\n`);
}
