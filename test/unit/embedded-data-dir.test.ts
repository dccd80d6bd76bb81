import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { embeddedDataDirProblem } from '../../src/db/embedded-postgres';

/**
 * Under root the embedded PostgreSQL runs as the user `postgres`: a data folder below a
 * folder others cannot enter (mode 0700, as `mktemp -d` makes) is refused up front with one
 * line naming the folder and what to change. Real folders, real modes.
 */
const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-datadir-'));
afterAll(() => fs.rmSync(parent, { recursive: true, force: true }));

test('a data folder under a 0700 parent is a problem for root, naming the parent and the fix', async () => {
  fs.chmodSync(parent, 0o700);
  const problem = await embeddedDataDirProblem(path.join(parent, 'data'), 0);
  expect(problem).toContain(`cannot enter ${parent} (mode 0700)`);
  expect(problem).toContain(`chmod o+x ${parent}`);
});

test('a parent others may enter, or a user other than root, is no problem', async () => {
  fs.chmodSync(parent, 0o711);
  expect(await embeddedDataDirProblem(path.join(parent, 'data', 'deeper'), 0)).toBeNull();
  fs.chmodSync(parent, 0o700);
  expect(await embeddedDataDirProblem(path.join(parent, 'data'), 1000)).toBeNull();
});
