import type { MikroORM } from '@mikro-orm/postgresql';
import { parse as parseCookies } from 'cookie';
import type { IdentityConfig } from '../config';
import type { Clock } from '../support/clock';
import type { KeyAccess } from '../auth/key-access';
import type { ValidKey } from '../auth/api-key.service';
import type { Caller } from '../auth/caller';
import { rawStatements } from '../db/raw-transaction';
import { AccessTokens } from './access-tokens';
import { Issuers } from './issuers';
import { endSession, SESSION_COOKIE, sessionById, sessionByToken, type ValidSession } from './sessions';

/** The OAuth protected resources Toolgate serves (RFC 9728): `<PUBLIC_URL>/<path>`. */
export type ResourcePath = 'mcp' | 'graphql';

/**
 * Who people are: the issuers, console sessions, OAuth access tokens, and the addresses that
 * name this deployment (PUBLIC_URL, else the address it listens on). One per app.
 */
export class Identity {
  readonly issuers: Issuers;
  readonly tokens: AccessTokens;
  private listeningUrl: string | undefined;
  private stopForgetting: (() => void) | null = null;

  constructor(
    readonly config: IdentityConfig,
    production: boolean,
    private readonly orm: MikroORM,
    private readonly keys: KeyAccess,
  ) {
    this.issuers = new Issuers(config.issuers, production);
    this.tokens = new AccessTokens(this.issuers, rawStatements(orm), keys.clock);
  }

  get clock(): Clock {
    return this.keys.clock;
  }

  /** Revocations and suspensions reach the remembered access tokens too. */
  start(): void {
    this.stopForgetting = this.keys.onWithdrawn((withdrawal) => this.tokens.forget(withdrawal));
  }

  stop(): void {
    this.stopForgetting?.();
    this.stopForgetting = null;
  }

  /** Without PUBLIC_URL: `http://localhost:<port>` of the listening server. */
  listeningOn(port: number): void {
    this.listeningUrl = `http://localhost:${port}`;
  }

  get publicUrl(): string {
    return this.config.publicUrl ?? this.listeningUrl ?? 'http://localhost';
  }

  /** Whether cookies must be Secure: the public address is https. */
  get secureCookies(): boolean {
    return this.publicUrl.startsWith('https:');
  }

  resourceUrl(path: ResourcePath): string {
    return `${this.publicUrl}/${path}`;
  }

  /** RFC 9728: the metadata of `<PUBLIC_URL>/<path>` is at `<PUBLIC_URL>/.well-known/oauth-protected-resource/<path>`. */
  metadataUrl(path: ResourcePath): string {
    return `${this.publicUrl}/.well-known/oauth-protected-resource/${path}`;
  }

  /** The session cookie of a request's Cookie header, if any. */
  sessionCookie(cookieHeader: string | undefined): string | null {
    if (!cookieHeader) return null;
    const value = parseCookies(cookieHeader)[SESSION_COOKIE];
    return value && value.length <= 128 ? value : null;
  }

  async session(cookie: string): Promise<ValidSession> {
    const valid = await sessionByToken(rawStatements(this.orm), cookie, this.clock.now());
    this.keys.usage.touch(valid.caller.keyId!);
    return valid;
  }

  /** A caller checked again (each websocket operation): a session as it is now, or its key. */
  async recheck(caller: Caller, options: { use: boolean } = { use: true }): Promise<ValidKey> {
    if (!caller.sessionId) return this.keys.check(caller.keyId!, options);
    const valid = await sessionById(rawStatements(this.orm), caller.sessionId, this.clock.now());
    if (options.use) this.keys.usage.touch(valid.caller.keyId!);
    return valid;
  }

  /** Signs a session out, here and on every node's open websockets. */
  async signOut(sessionId: string): Promise<void> {
    if (await endSession(rawStatements(this.orm), sessionId)) await this.keys.withdrawn({ sessionId });
  }
}
