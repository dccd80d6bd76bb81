// Every environment variable Toolgate reads, declared once: its parser and default, its
// documentation and whether it is secret (setting.ts). loadConfig reads through it,
// describeConfig masks by it, and .env.example and the README's table are generated from it
// (`npm run docs:env`; test/unit/config-variables.test.ts fails when they are stale).
import type { Env } from './env';
import type { DefaultsContext, Setting } from './setting';
import { API, EGRESS, FAIR_USE, TELEMETRY, WEBHOOKS } from './settings-api';
import { MODEL, TOOLS, VENDOR_ENDPOINTS } from './settings-model';
import { KEYS, LOGS, NODES, RUNTIME } from './settings-runtime';
import { IDENTITY } from './settings-identity';

/** The table's sections, in .env.example's order. */
export const SETTING_GROUPS = [RUNTIME, KEYS, LOGS, NODES, MODEL, TOOLS, API, IDENTITY, EGRESS, FAIR_USE, WEBHOOKS, TELEMETRY];

export const SETTINGS = {
  ...RUNTIME.settings,
  ...KEYS.settings,
  ...LOGS.settings,
  ...NODES.settings,
  ...MODEL.settings,
  ...TOOLS.settings,
  ...API.settings,
  ...IDENTITY.settings,
  ...EGRESS.settings,
  ...FAIR_USE.settings,
  ...WEBHOOKS.settings,
  ...TELEMETRY.settings,
};

export type SettingName = keyof typeof SETTINGS;
type ValueOf<N extends SettingName> = ReturnType<(typeof SETTINGS)[N]['read']>;

/** A setting with its variable's name, as the documentation lists it. */
export interface NamedSetting extends Setting<unknown> {
  name: string;
}

/** Every setting, by section, in the table's order. */
export const SETTING_LIST: NamedSetting[] = SETTING_GROUPS.flatMap((g) =>
  Object.entries(g.settings as Record<string, Setting<unknown>>).map(([name, setting]) => ({ name, ...setting })),
);

/** The vendor endpoint overrides the configuration accepts (`config.vendorUrls`). */
export const VENDOR_ENDPOINT_VARIABLES: readonly string[] = Object.keys(VENDOR_ENDPOINTS);

/**
 * Reads settings from `env` by name, each when asked (a setting read only in some cases, like
 * MASTER_ENCRYPTION_KEY besides the keyring, is parsed only then). The defaults' context is
 * itself read through the table, once.
 */
export function settingsReader(env: Env): <N extends SettingName>(name: N) => ValueOf<N> {
  let context: DefaultsContext | undefined;
  const contextOf = (): DefaultsContext => {
    if (context === undefined) {
      const production = read('NODE_ENV') === 'production';
      context = { production, embeddedDemo: read('DATABASE_URL') === undefined && !production };
    }
    return context;
  };
  function read<N extends SettingName>(name: N): ValueOf<N> {
    return SETTINGS[name].read(env, name, contextOf) as ValueOf<N>;
  }
  return read;
}
