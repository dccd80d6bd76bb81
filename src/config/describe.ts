// What the configuration looks like in a log line: secrets masked; in development only what differs from the defaults.
import { loadConfig } from './load';
import type { Masking } from './setting';
import { SETTING_LIST } from './settings';
import type { Config } from './types';

/** Each masked field once (both master-key variables fill `masterKeys`), from the table's `secret` and `masked`. */
const MASKS: Masking[] = [...new Map(SETTING_LIST.flatMap((s) => [s.secret, s.masked]).flatMap((m) => (m ? [[m.field, m] as const] : []))).values()];

/** What may be logged about the configuration: secrets masked. */
export function describeConfig(config: Config): Record<string, unknown> {
  let described: Record<string, unknown> = { ...config };
  for (const { field, show } of MASKS) {
    const path = field.split('.');
    described = withValue(described, path, show(valueAt(config, path)));
  }
  return described;
}

function valueAt(value: unknown, path: string[]): unknown {
  return path.reduce((inner, key) => (inner as Record<string, unknown>)[key], value);
}

/** A copy of `target` with the value at `path` replaced (the objects on the way copied, the config untouched). */
function withValue(target: Record<string, unknown>, [key, ...rest]: string[], value: unknown): Record<string, unknown> {
  return { ...target, [key]: rest.length ? withValue(target[key] as Record<string, unknown>, rest, value) : value };
}

/**
 * The settings logged at start: in production all of them (an audit of what ran); elsewhere
 * the database and those that differ from the defaults, as `group.key` paths, so the line stays short.
 */
export function describeSettings(config: Config): Record<string, unknown> {
  const described = describeConfig(config);
  if (config.nodeEnv === 'production') return described;
  // The defaults for the same database choice (several defaults follow from it).
  const defaults = flatten(describeConfig(loadConfig({ DATABASE_URL: config.databaseUrl })));
  // Which database is always worth a glance; its default depends on itself, so it is named outright.
  const changed: Record<string, unknown> = { databaseUrl: described.databaseUrl };
  for (const [key, value] of Object.entries(flatten(described))) {
    if (JSON.stringify(value) !== JSON.stringify(defaults[key])) changed[key] = value;
  }
  return changed;
}

function flatten(value: Record<string, unknown>, prefix = ''): Record<string, unknown> {
  const flat: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const name = `${prefix}${key}`;
    if (inner && typeof inner === 'object' && !Array.isArray(inner) && Object.keys(inner).length > 0)
      Object.assign(flat, flatten(inner as Record<string, unknown>, `${name}.`));
    else flat[name] = inner;
  }
  return flat;
}
