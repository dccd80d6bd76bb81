import fs from 'node:fs';
import path from 'node:path';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { describeConfig, loadConfig } from '../../src/config';
import { literalDefault, renderEnvExample, withConfigTable } from '../../src/config/docs';
import { SETTING_LIST, VENDOR_ENDPOINT_VARIABLES } from '../../src/config/settings';
import { VENDOR_URL_VARIABLES } from '../../src/vendors';

/**
 * The settings table (src/config/settings*.ts) is the one list of settings: loadConfig reads
 * exactly its variables, a default written as a value is the one it applies, its secrets are
 * masked in the logged configuration, and .env.example and the README's Configuration table
 * (generated from it) are current.
 */
const root = path.join(__dirname, '..', '..');
const names = SETTING_LIST.map((s) => s.name);

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

test.each(SETTING_LIST.filter((s) => literalDefault(s) !== null && !s.secret).map((s) => [s.name, s.default]))(
  '%s set to its documented default %s changes nothing',
  (name, value) => {
    expect(loadConfig({ [name]: value })).toEqual(loadConfig({}));
  },
);

test('.env.example is generated from the definitions (npm run docs:env)', () => {
  expect(fs.readFileSync(path.join(root, '.env.example'), 'utf8')).toBe(renderEnvExample());
});

test("the README's Configuration table is generated from the definitions (npm run docs:env)", () => {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  expect(readme).toBe(withConfigTable(readme));
});

test("every vendor handler's endpoint variable is declared in the table, and no other", () => {
  expect([...VENDOR_URL_VARIABLES].sort()).toEqual([...VENDOR_ENDPOINT_VARIABLES].sort());
});

describe('secrets are masked by the table', () => {
  const hidden = 'hunter2-not-logged';
  const hexKey = randomBytes(32).toString('hex');
  const signingKey = generateKeyPairSync('ed25519').privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
  /** A value per secret (or masked) setting, and the part of it no log may show. */
  const samples: Record<string, [value: string, hidden: string]> = {
    DATABASE_URL: [`postgres://u:${hidden}@db.example/tg`, hidden],
    MASTER_ENCRYPTION_KEY: [hexKey, hexKey],
    MASTER_ENCRYPTION_KEYS: [`v2:${hexKey}`, hexKey],
    TOOLGATE_LEDGER_SIGNING_KEY: [signingKey, signingKey],
    REDIS_URL: [`redis://:${hidden}@redis:6379`, hidden],
    ANTHROPIC_API_KEY: [`sk-${hidden}`, hidden],
    OIDC_ISSUERS: [JSON.stringify([{ name: 'okta', issuer: 'https://acme.okta.com', clientId: 'toolgate', clientSecret: hidden }]), hidden],
    METRICS_TOKEN: [`${hidden}-0123456789`, hidden],
    OTEL_EXPORTER_OTLP_ENDPOINT: [`http://u:${hidden}@collector:4318`, hidden],
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: [`http://u:${hidden}@collector:4318/v1/traces`, hidden],
  };

  test('each secret or masked setting has a sample here', () => {
    expect(SETTING_LIST.filter((s) => s.secret || s.masked).map((s) => s.name)).toEqual(Object.keys(samples));
  });

  test.each(Object.entries(samples))('%s is not logged', (name, [value, secret]) => {
    const text = JSON.stringify(describeConfig(loadConfig({ [name]: value })));
    expect(text).not.toContain(secret);
  });

  test('each masked field is a field of Config', () => {
    const config = loadConfig({}) as unknown as Record<string, unknown>;
    for (const setting of SETTING_LIST) {
      const field = (setting.secret ?? setting.masked)?.field;
      if (field === undefined) continue;
      const [outer, inner] = field.split('.');
      expect(inner === undefined ? outer in config : inner in (config[outer] as object)).toBe(true);
    }
  });
});

test('src/config/ imports no feature folder, only the pure helpers named here', () => {
  const folder = path.join(root, 'src', 'config');
  const outside = new Set<string>();
  for (const file of fs.readdirSync(folder)) {
    for (const [, target] of fs.readFileSync(path.join(folder, file), 'utf8').matchAll(/from '(\.\.\/[^']+)'/g)) outside.add(target);
  }
  expect([...outside].sort()).toEqual(['../auth/roles', '../credentials/keyring', '../egress/address-policy', '../ledger/signing-key']);
});
