import fs from 'node:fs/promises';

export default async function globalTeardown() {
  const started = globalThis.__TOOLGATE_TEST_PG__;
  if (!started) return;
  await started.pg.stop();
  await fs.rm(started.root, { recursive: true, force: true });
}
