// The configuration (README, "Configuration"): one table of settings (settings.ts) read once
// into the typed Config. The rest of src/ imports from here.
export { describeConfig, describeSettings } from './describe';
export { ConfigError, parseMasterKey } from './env';
export { FAILPOINT_NAMES } from './list-parsers';
export { loadConfig, tracingConfig } from './load';
export type { ApiConfig, Config, FairUseCaps, IdentityConfig, MetricsConfig, OidcIssuerConfig, TracingConfig, UpstreamLimits } from './types';
