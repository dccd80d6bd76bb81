import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { SETTING_LIST } from '../../src/config/settings';

/**
 * docker-compose.yml (no Docker engine here to run it) keeps what the README promises: two
 * API replicas behind a one-shot `migrate` release step, PostgreSQL of the major version the
 * suite runs on, Redis for events and rate limits, and only settings Toolgate knows.
 */
interface Service {
  image?: string;
  build?: string;
  command?: string[];
  depends_on?: Record<string, { condition: string }>;
  environment?: Record<string, string>;
  ports?: string[];
}

const compose = parse(fs.readFileSync(path.join(__dirname, '..', '..', 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};
const services = compose.services;
const replicas = Object.entries(services).filter(([, s]) => s.build && !s.command);

test('two API replicas, each published on its own port, each its own node name', () => {
  expect(replicas.map(([name]) => name)).toEqual(['api-1', 'api-2']);
  expect(replicas.map(([, s]) => s.ports)).toEqual([['4000:4000'], ['4001:4000']]);
  expect(new Set(replicas.map(([, s]) => s.environment?.TOOLGATE_NODE_NAME)).size).toBe(2);
});

test('migrate runs first, once: the replicas wait for it to complete and do not migrate themselves', () => {
  expect(services.migrate.command).toEqual(['node', 'dist/src/cli.js', 'migrate']);
  expect(services.migrate.depends_on?.postgres.condition).toBe('service_healthy');
  for (const [, replica] of replicas) {
    expect(replica.depends_on?.migrate.condition).toBe('service_completed_successfully');
    expect(replica.environment?.TOOLGATE_MIGRATE_ON_START).toBe('false');
  }
});

test('PostgreSQL is the major version the suite runs on; Redis carries events and rate limits', async () => {
  const { Client } = await import('pg');
  const pg = new Client({ connectionString: process.env.DATABASE_URL });
  await pg.connect();
  const [{ server_version_num }] = (await pg.query<{ server_version_num: string }>('show server_version_num')).rows;
  await pg.end();
  expect(services.postgres.image).toBe(`postgres:${Math.floor(Number(server_version_num) / 10_000)}`);
  expect(services.redis.image).toMatch(/^redis:\d+$/);
  for (const [, replica] of replicas) {
    expect(replica.environment?.REDIS_URL).toBe('redis://redis:6379');
    expect(replica.depends_on?.redis.condition).toBe('service_healthy');
    expect(replica.environment?.DATABASE_URL).toMatch(/@postgres:5432\//);
  }
});

test('the model key is passed through, and every variable set is one Toolgate reads', () => {
  const known = new Set(SETTING_LIST.map((v) => v.name));
  for (const name of ['migrate', ...replicas.map(([n]) => n)]) {
    const env = services[name].environment ?? {};
    // Compose's own interpolation: the shell's value, or empty.
    expect(env.ANTHROPIC_API_KEY).toBe(['$', '{ANTHROPIC_API_KEY:-}'].join(''));
    expect(Object.keys(env).filter((key) => !known.has(key))).toEqual([]);
  }
});
