// What the configuration looks like in a log line: secrets masked; in development only what differs from the defaults.
import { loadConfig, type Config } from './config';
import { keyIdOf } from './ledger/signing-key';

/** What may be logged about the configuration: secrets masked. */
export function describeConfig(config: Config): Record<string, unknown> {
  return {
    ...config,
    databaseUrl: config.databaseUrl ? maskUrl(config.databaseUrl) : '(embedded)',
    model: { ...config.model, apiKey: config.model.apiKey ? '[set]' : '[unset]' },
    redisUrl: config.redisUrl ? maskUrl(config.redisUrl) : undefined,
    metrics: { ...config.metrics, token: config.metrics.token ? '[set]' : '[unset]' },
    tracing: { ...config.tracing, endpoint: config.tracing.endpoint ? maskUrl(config.tracing.endpoint) : undefined },
    masterKeys: config.masterKeys.length ? config.masterKeys.map((k) => `v${k.version}`) : '[unset]',
    ledgerSigningKey: config.ledgerSigningKey ? keyIdOf(config.ledgerSigningKey) : '[unset]',
  };
}

function maskUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '[unparseable]';
  }
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
