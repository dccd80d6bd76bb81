/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  setupFiles: ['reflect-metadata'],
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
  // jose, openid-client (with oauth4webapi) and oidc-provider ship ESM only: swc compiles them
  // to CommonJS like the tests, since jest's require(esm) needs --experimental-vm-modules.
  transformIgnorePatterns: ['/node_modules/(?!(jose|openid-client|oauth4webapi|oidc-provider)/)'],
  transform: {
    '^.+\\.(ts|js)$': ['@swc/jest', {
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        target: 'es2022',
      },
      module: { type: 'commonjs' },
    }],
  },
  maxWorkers: 2,
  testTimeout: 30000,
};
