import { startTestApp, type TestApp } from './app';
import { seedDemo, type SeedResult } from '../../src/seed/demo-seed';
import { GatewayClient } from '../gateway/gateway-helpers';

type AppOptions = NonNullable<Parameters<typeof startTestApp>[1]>;

/** The app of a suite, the demo org seeded into it, and a gateway client for that org. */
export interface DemoApp {
  readonly app: TestApp;
  readonly seed: SeedResult;
  readonly gw: GatewayClient;
}

/**
 * The suite's server on its own database with the demo org seeded (all catalog tools enabled
 * and bound, tool_calling_enabled on, sandbox credentials): started in a beforeAll, closed in
 * an afterAll. Read `app`, `seed` and `gw` inside hooks and tests, not at module level.
 * `prepare` runs in that beforeAll once the org is seeded (e.g. the suite's policy rules);
 * `beforeClose` runs first in that afterAll (e.g. closing the suite's sockets).
 */
export function useDemoApp(
  env: Record<string, string> = {},
  options: AppOptions & { prepare?: (app: TestApp, seed: SeedResult) => Promise<void>; beforeClose?: () => unknown } = {},
): DemoApp {
  const { prepare, beforeClose, ...appOptions } = options;
  let started: DemoApp | undefined;
  beforeAll(async () => {
    const app = await startTestApp(env, appOptions);
    try {
      const seed = await seedDemo(app.em(), app.masterKey);
      await prepare?.(app, seed);
      started = { app, seed, gw: new GatewayClient(app, seed) };
    } catch (error) {
      await app.close();
      throw error;
    }
  });
  afterAll(async () => {
    await beforeClose?.();
    await started?.app.close();
  });
  const current = (): DemoApp => {
    if (!started) throw new Error('useDemoApp: the app is started in beforeAll; read it inside hooks and tests');
    return started;
  };
  return {
    get app() {
      return current().app;
    },
    get seed() {
      return current().seed;
    },
    get gw() {
      return current().gw;
    },
  };
}
