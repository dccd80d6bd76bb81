// The settings table, part four: who people and MCP clients are (README, "Identity").
import { ConfigError, httpUrl, nonEmpty } from './env';
import { custom, group, integer, masking, url } from './setting';
import type { OidcIssuerConfig } from './types';

const ISSUER_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

/** `OIDC_ISSUERS`: a JSON array of `{name, issuer, clientId, clientSecret?, scopes?}`. */
function issuerList(env: Record<string, string | undefined>, name: string): OidcIssuerConfig[] {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(`${name} must be a JSON array of {"name","issuer","clientId","clientSecret"} objects`);
  }
  if (!Array.isArray(parsed)) throw new ConfigError(`${name} must be a JSON array`);
  const seen = new Set<string>();
  return parsed.map((entry: unknown, i) => {
    const at = `${name}[${i}]`;
    if (typeof entry !== 'object' || entry === null) throw new ConfigError(`${at} must be an object`);
    const e = entry as Record<string, unknown>;
    if (typeof e.name !== 'string' || !ISSUER_NAME.test(e.name)) {
      throw new ConfigError(`${at}.name must be a short lower-case name (letters, digits, - and _), e.g. "okta"`);
    }
    if (seen.has(e.name)) throw new ConfigError(`${at}.name "${e.name}" is used twice`);
    seen.add(e.name);
    if (typeof e.clientId !== 'string' || e.clientId === '') throw new ConfigError(`${at}.clientId is required`);
    if (e.clientSecret !== undefined && typeof e.clientSecret !== 'string') throw new ConfigError(`${at}.clientSecret must be a string`);
    if (e.scopes !== undefined && (!Array.isArray(e.scopes) || !e.scopes.every((s) => typeof s === 'string' && /^\S+$/.test(s)))) {
      throw new ConfigError(`${at}.scopes must be an array of scope names`);
    }
    // Kept exactly as given: an ID token's `iss` must equal it, trailing slash and all.
    if (typeof e.issuer !== 'string' || !httpUrl({ [`${at}.issuer`]: e.issuer }, `${at}.issuer`)) {
      throw new ConfigError(`${at}.issuer must be the issuer's http(s) URL`);
    }
    return {
      name: e.name,
      issuer: e.issuer,
      clientId: e.clientId,
      clientSecret: (e.clientSecret as string | undefined) || undefined,
      scopes: (e.scopes as string[] | undefined) ?? ['openid', 'profile', 'email'],
    };
  });
}

export const IDENTITY = group('Identity (single sign-on, OAuth for MCP)', {
  PUBLIC_URL: url({
    defaultDoc: 'http://localhost:<PORT>',
    description: 'the address people and MCP clients reach Toolgate at (sign-in redirects, OAuth resource identifiers)',
    readme:
      'the address people and MCP clients reach Toolgate at: the sign-in redirect is `<PUBLIC_URL>/auth/callback`, the OAuth resources are `<PUBLIC_URL>/mcp` and `<PUBLIC_URL>/graphql` (see [Identity](#identity))',
  }),
  OIDC_ISSUERS: custom({
    defaultDoc: 'none (API keys only)',
    description: 'OpenID Connect issuers people sign in with: a JSON array of {"name","issuer","clientId","clientSecret","scopes"}',
    readme:
      'OpenID Connect issuers people sign in with, as a JSON array of `{"name", "issuer", "clientId", "clientSecret", "scopes"}`; an org is bound to one by name (see [Identity](#identity))',
    secret: masking<OidcIssuerConfig[]>('identity.issuers', (issuers) =>
      issuers.map((i) => ({ name: i.name, issuer: i.issuer, clientId: i.clientId, clientSecret: i.clientSecret ? '[set]' : '[unset]' })),
    ),
    read: (env, name) => issuerList(env, name),
  }),
  SESSION_TTL_SECONDS: integer({
    default: 28_800,
    min: 60,
    max: 7 * 24 * 3600,
    description: "how long a person's console session lasts after sign-in",
  }),
});
