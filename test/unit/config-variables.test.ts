import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { CONFIG_VARIABLES, literalDefault, renderEnvExample } from '../../src/config-variables';

/**
 * The configuration's definitions (src/config-variables.ts) and loadConfig agree: it reads
 * exactly the variables defined, a default written as a value is the one it applies, and
 * .env.example (generated from them) is current, as is the README's Configuration table.
 */
const root = path.join(__dirname, '..', '..');
const names = CONFIG_VARIABLES.map((v) => v.name);

/** The variables loadConfig reads from `env`. */
function readBy(env: Record<string, string>): Set<string> {
  const read = new Set<string>();
  const recording = new Proxy(env, {
    get(target, key) {
      if (typeof key === 'string') read.add(key);
      return target[key as string];
    },
  });
  loadConfig(recording);
  return read;
}

test('loadConfig reads exactly the defined variables', () => {
  // Empty: every conditional read happens (MASTER_ENCRYPTION_KEY only without the keyring).
  expect([...readBy({})].sort()).toEqual([...names].sort());
  expect(new Set(names).size).toBe(names.length);
});

test.each(CONFIG_VARIABLES.filter((v) => literalDefault(v) !== null && !v.secret).map((v) => [v.name, v.default]))(
  '%s set to its documented default %s changes nothing',
  (name, value) => {
    expect(loadConfig({ [name]: value })).toEqual(loadConfig({}));
  },
);

test('.env.example is generated from the definitions (npm run docs:env)', () => {
  expect(fs.readFileSync(path.join(root, '.env.example'), 'utf8')).toBe(renderEnvExample());
});

test("the README's Configuration section names every variable", () => {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const section = readme.split('\n## Configuration\n')[1]?.split('\n## ')[0] ?? '';
  const missing = names.filter(
    (name) => !section.includes(name) && !(/^(GRAPHQL_|RATE_LIMIT_)/.test(name) && section.includes('`GRAPHQL_*`, `RATE_LIMIT_*`')),
  );
  expect(missing).toEqual([]);
});
