// ESM-only packages: their types need `resolution-mode: import` from this CommonJS build (TS1541).
type OpenIdClient = typeof import('openid-client', { with: { 'resolution-mode': 'import' }});
type Configuration = import('openid-client', { with: { 'resolution-mode': 'import' }}).Configuration;
type JWTVerifyGetKey = import('jose', { with: { 'resolution-mode': 'import' }}).JWTVerifyGetKey;
import type { OidcIssuerConfig } from '../config';
import { AppError } from '../errors/app-error';

/** openid-client and jose ship ECMAScript modules only: loaded by a real import() from this CommonJS build. */
export const loadOpenIdClient = (): Promise<OpenIdClient> => import('openid-client');
export const loadJose = () => import('jose');

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The deployment's OpenID Connect issuers (OIDC_ISSUERS), each discovered once on first use
 * (a failed discovery is tried again on the next use). Plain http is accepted only outside
 * production or for a loopback issuer (`toolgate dev-idp`).
 */
export class Issuers {
  private readonly discovered = new Map<string, Promise<Configuration>>();
  private readonly keySets = new Map<string, Promise<JWTVerifyGetKey>>();

  constructor(
    readonly list: readonly OidcIssuerConfig[],
    private readonly production: boolean,
  ) {}

  byName(name: string): OidcIssuerConfig | undefined {
    return this.list.find((issuer) => issuer.name === name);
  }

  /** The configured issuer whose identifier a token names (`iss`). */
  byIdentifier(iss: unknown): OidcIssuerConfig | undefined {
    return typeof iss === 'string' ? this.list.find((issuer) => issuer.issuer === iss) : undefined;
  }

  /** The issuer's discovered configuration, for this deployment's client. */
  client(issuer: OidcIssuerConfig): Promise<Configuration> {
    let pending = this.discovered.get(issuer.name);
    if (!pending) {
      pending = this.discover(issuer);
      pending.catch(() => this.discovered.delete(issuer.name));
      this.discovered.set(issuer.name, pending);
    }
    return pending;
  }

  /** The issuer's signing keys (its jwks_uri), fetched and cached by jose. */
  keys(issuer: OidcIssuerConfig): Promise<JWTVerifyGetKey> {
    let pending = this.keySets.get(issuer.name);
    if (!pending) {
      pending = (async () => {
        const config = await this.client(issuer);
        const jwksUri = config.serverMetadata().jwks_uri;
        if (!jwksUri) throw new AppError('SERVICE_UNAVAILABLE', `The issuer ${issuer.name} publishes no jwks_uri`);
        const { createRemoteJWKSet } = await loadJose();
        return createRemoteJWKSet(new URL(jwksUri));
      })();
      pending.catch(() => this.keySets.delete(issuer.name));
      this.keySets.set(issuer.name, pending);
    }
    return pending;
  }

  private async discover(issuer: OidcIssuerConfig): Promise<Configuration> {
    const oidc = await loadOpenIdClient();
    const url = new URL(issuer.issuer);
    const insecure = url.protocol === 'http:';
    if (insecure && this.production && !LOOPBACK.has(url.hostname)) {
      throw new AppError('SERVICE_UNAVAILABLE', `The issuer ${issuer.name} is not https: refused in production`);
    }
    const auth = issuer.clientSecret ? oidc.ClientSecretBasic(issuer.clientSecret) : oidc.None();
    try {
      return await oidc.discovery(url, issuer.clientId, issuer.clientSecret, auth, insecure ? { execute: [oidc.allowInsecureRequests] } : undefined);
    } catch (error) {
      throw new AppError('SERVICE_UNAVAILABLE', `The issuer ${issuer.name} cannot be reached: ${(error as Error).message}`);
    }
  }
}
