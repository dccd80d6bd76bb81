import fs from 'node:fs';
import path from 'node:path';

/**
 * A webhook retry is a graphile-worker job with a later `run_at`, which a worker only finds
 * when it polls (LISTEN/NOTIFY wakes it for jobs due now, not for future ones): the README
 * says how often it polls, so that a short WEBHOOK_RETRY_BASE_MS is not read as a promise.
 */
const root = path.join(__dirname, '..', '..');

test("the README's webhook retry settings name the job worker's poll interval", () => {
  const worker = fs.readFileSync(path.join(root, 'src', 'jobs', 'worker.ts'), 'utf8');
  const pollMs = Number(/pollInterval:\s*([\d_]+)/.exec(worker)?.[1].replace(/_/g, ''));
  expect(pollMs).toBeGreaterThan(0);
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const row = readme.split('\n').find((line) => line.startsWith('| `WEBHOOK_RETRY_BASE_MS`')) ?? '';
  expect(row).toContain(`next poll (every ${pollMs / 1000} s)`);
  expect(row).toContain('`WEBHOOK_RETRY_BASE_MS=400` retries after');
});
