import fs from 'node:fs';
import path from 'node:path';

/**
 * The project root (the folder holding package.json), found the same way from the
 * TypeScript sources (tests) and from the compiled dist/src tree.
 */
export function projectRoot(start: string = __dirname): string {
  let dir = start;
  for (;;) {
    // The source tree has migrations/; an installed build (the Docker image) only dist/migrations.
    const migrations = fs.existsSync(path.join(dir, 'migrations')) || fs.existsSync(path.join(dir, 'dist', 'migrations'));
    if (fs.existsSync(path.join(dir, 'package.json')) && migrations) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find the project root above ${start}`);
    dir = parent;
  }
}
