import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ConfigError, describeConfig, describeSettings, loadConfig, parseMasterKey } from '../../src/config';

/** The ConfigError `fn` throws (fails the test when it throws anything else or nothing). */
function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig defaults', () => {
  test('an empty environment gives the development defaults', () => {
    const config = loadConfig({});
    expect(config.nodeEnv).toBe('development');
    expect(config.port).toBe(4000);
    expect(config.host).toBe('0.0.0.0');
    expect(config.dataDir).toBe(path.resolve('.toolgate'));
    expect(path.isAbsolute(config.dataDir)).toBe(true);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.masterKeys).toEqual([]);
    expect(config.seedOnStart).toBe(true);
    expect(config.logLevel).toBe('info');
  });

  test('seedOnStart defaults to false with an external DATABASE_URL', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://u:p@db.example:5432/toolgate' });
    expect(config.databaseUrl).toBe('postgres://u:p@db.example:5432/toolgate');
    expect(config.seedOnStart).toBe(false);
  });

  test('a production start (even on the embedded database) seeds no demo org, serves no sandboxes and no offline model unless told', () => {
    const prod = loadConfig({ NODE_ENV: 'production', MASTER_ENCRYPTION_KEY: 'ab'.repeat(32) });
    expect(prod.databaseUrl).toBeUndefined();
    expect([prod.seedOnStart, prod.vendorSandboxes, prod.model.offlineAllowed]).toEqual([false, false, false]);
    const dev = loadConfig({});
    expect([dev.seedOnStart, dev.vendorSandboxes, dev.model.offlineAllowed]).toEqual([true, true, true]);
    const told = loadConfig({
      NODE_ENV: 'production',
      MASTER_ENCRYPTION_KEY: 'ab'.repeat(32),
      TOOLGATE_OFFLINE_MODEL: 'true',
      TOOLGATE_SEED_ON_START: 'true',
    });
    expect([told.seedOnStart, told.model.offlineAllowed]).toEqual([true, true]);
  });

  test('TOOLGATE_SEED_ON_START overrides the default either way', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://db/x', TOOLGATE_SEED_ON_START: 'true' }).seedOnStart).toBe(true);
    expect(loadConfig({ TOOLGATE_SEED_ON_START: 'off' }).seedOnStart).toBe(false);
    configError(() => loadConfig({ TOOLGATE_SEED_ON_START: 'maybe' }));
  });

  test('blank values count as unset', () => {
    const config = loadConfig({ PORT: '  ', DATABASE_URL: '', MASTER_ENCRYPTION_KEY: ' ' });
    expect(config.port).toBe(4000);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.masterKeys).toEqual([]);
  });

  test('TOOLGATE_DATA_DIR is resolved to an absolute path', () => {
    expect(loadConfig({ TOOLGATE_DATA_DIR: 'var/data' }).dataDir).toBe(path.resolve('var/data'));
  });
});

describe('MASTER_ENCRYPTION_KEYS (a keyring)', () => {
  test('versions are parsed and the newest need not come first', () => {
    const v1 = randomBytes(32);
    const v2 = randomBytes(32);
    const config = loadConfig({ MASTER_ENCRYPTION_KEYS: `v1:${v1.toString('hex')}, v2:${v2.toString('base64')}` });
    expect(config.masterKeys).toEqual([
      { version: 1, key: v1 },
      { version: 2, key: v2 },
    ]);
  });

  test('it wins over MASTER_ENCRYPTION_KEY, and satisfies production', () => {
    const ring = `v3:${randomBytes(32).toString('hex')}`;
    const config = loadConfig({ NODE_ENV: 'production', MASTER_ENCRYPTION_KEYS: ring, MASTER_ENCRYPTION_KEY: randomBytes(32).toString('hex') });
    expect(config.masterKeys.map((k) => k.version)).toEqual([3]);
  });

  test.each([
    ['no version', randomBytes(32).toString('hex')],
    ['a repeated version', `v1:${randomBytes(32).toString('hex')},v1:${randomBytes(32).toString('hex')}`],
    ['version zero', `v0:${randomBytes(32).toString('hex')}`],
    ['a short key', `v1:${randomBytes(16).toString('hex')}`],
  ])('%s is refused', (_label, value) => {
    configError(() => loadConfig({ MASTER_ENCRYPTION_KEYS: value }));
  });

  test('describeConfig names the versions, never the keys', () => {
    const key = randomBytes(32).toString('hex');
    const text = JSON.stringify(describeConfig(loadConfig({ MASTER_ENCRYPTION_KEYS: `v2:${key}` })));
    expect(text).toContain('v2');
    expect(text).not.toContain(key);
  });
});

describe('MASTER_ENCRYPTION_KEY', () => {
  test('production without a key is refused, naming the variable', () => {
    const error = configError(() => loadConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x' }));
    expect(error.message).toContain('MASTER_ENCRYPTION_KEY');
  });

  test('production with a key loads', () => {
    const hex = randomBytes(32).toString('hex');
    const config = loadConfig({ NODE_ENV: 'production', MASTER_ENCRYPTION_KEY: hex });
    expect(config.nodeEnv).toBe('production');
    expect(config.masterKeys).toEqual([{ version: 1, key: Buffer.from(hex, 'hex') }]);
  });

  test('development and test run without a key', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).masterKeys).toEqual([]);
    expect(loadConfig({ NODE_ENV: 'test' }).masterKeys).toEqual([]);
  });

  test('64 hex characters (either case) are accepted', () => {
    const bytes = randomBytes(32);
    expect(loadConfig({ MASTER_ENCRYPTION_KEY: bytes.toString('hex') }).masterKeys[0].key).toEqual(bytes);
    expect(parseMasterKey(bytes.toString('hex').toUpperCase())).toEqual(bytes);
  });

  test('base64 and base64url of 32 bytes are accepted', () => {
    const bytes = randomBytes(32);
    expect(loadConfig({ MASTER_ENCRYPTION_KEY: bytes.toString('base64') }).masterKeys[0].key).toEqual(bytes);
    expect(parseMasterKey(bytes.toString('base64url'))).toEqual(bytes);
  });

  test.each([
    ['16 bytes of hex', randomBytes(16).toString('hex')],
    ['31 bytes of base64', randomBytes(31).toString('base64')],
    ['33 bytes of base64', randomBytes(33).toString('base64')],
    ['62 hex characters', randomBytes(31).toString('hex')],
    ['a passphrase', 'correct horse battery staple'],
  ])('%s is rejected', (_label, value) => {
    const error = configError(() => loadConfig({ MASTER_ENCRYPTION_KEY: value }));
    expect(error.message).toContain('MASTER_ENCRYPTION_KEY');
    expect(error.message).not.toContain(value);
  });
});

describe('validation of other variables', () => {
  test.each(['abc', '-1', '65536', '40.5'])('PORT=%s is rejected', (value) => {
    configError(() => loadConfig({ PORT: value }));
  });

  test('PORT accepts 0 (ephemeral) and 65535', () => {
    expect(loadConfig({ PORT: '0' }).port).toBe(0);
    expect(loadConfig({ PORT: '65535' }).port).toBe(65535);
  });

  test('unknown NODE_ENV and LOG_LEVEL values are rejected', () => {
    configError(() => loadConfig({ NODE_ENV: 'staging' }));
    configError(() => loadConfig({ LOG_LEVEL: 'verbose' }));
  });

  test('numeric limits are enforced', () => {
    configError(() => loadConfig({ DB_POOL_MAX: '0' }));
    configError(() => loadConfig({ SHUTDOWN_TIMEOUT_MS: '10' }));
    expect(loadConfig({ DB_POOL_MAX: '3', SHUTDOWN_TIMEOUT_MS: '2500' })).toMatchObject({
      dbPoolMax: 3,
      shutdownTimeoutMs: 2500,
    });
  });
});

describe('describeConfig', () => {
  test('masks the database password and the master key', () => {
    const key = randomBytes(32);
    const password = 's3cr3t-Pa55word';
    const config = loadConfig({
      DATABASE_URL: `postgres://toolgate:${password}@db.example:5432/toolgate`,
      MASTER_ENCRYPTION_KEY: key.toString('hex'),
    });
    const described = describeConfig(config);
    const text = JSON.stringify(described);
    expect(text).not.toContain(password);
    expect(text).not.toContain(key.toString('hex'));
    expect(text).not.toContain(key.toString('base64'));
    expect(described.masterKeys).toEqual(['v1']);
    expect(String(described.databaseUrl)).toContain('db.example');
    expect(String(described.databaseUrl)).toContain('toolgate');
    expect(described.port).toBe(config.port);
  });

  test('describes an absent key and the embedded database', () => {
    const described = describeConfig(loadConfig({}));
    expect(described.masterKeys).toBe('[unset]');
    expect(described.databaseUrl).toBe('(embedded)');
  });

  test('a URL without a password is kept readable', () => {
    const described = describeConfig(loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/toolgate' }));
    expect(described.databaseUrl).toBe('postgres://postgres@127.0.0.1:5432/toolgate');
  });
});

describe("describeSettings (the start's settings line)", () => {
  test('outside production: the database and what differs from the defaults, as group.key paths, secrets masked', () => {
    expect(describeSettings(loadConfig({}))).toEqual({ databaseUrl: '(embedded)' });
    const password = 'pw-not-logged';
    const settings = describeSettings(
      loadConfig({ DATABASE_URL: `postgres://u:${password}@db.example/tg`, VENDOR_TIMEOUT_MS: '2500', LOG_LEVEL: 'debug' }),
    );
    expect(settings).toEqual({ databaseUrl: 'postgres://u:***@db.example/tg', 'vendor.timeoutMs': 2500, logLevel: 'debug' });
  });

  test('in production: every setting', () => {
    const settings = describeSettings(loadConfig({ NODE_ENV: 'production', MASTER_ENCRYPTION_KEY: 'ab'.repeat(32) }));
    expect(settings).toMatchObject({ nodeEnv: 'production', port: 4000, masterKeys: ['v1'] });
    expect(Object.keys(settings).length).toBeGreaterThan(20);
  });
});
