import { createHash } from 'node:crypto';
import type { SqlRunner } from '../db/raw-transaction';
import type { ValidKey } from '../auth/api-key.service';
import type { Clock } from '../support/clock';
import { AppError } from '../errors/app-error';
import { bindingForIdentity } from './identity-bindings';
import type { Issuers } from './issuers';
import { loadJose } from './issuers';
import { ensurePrincipal, personClaims } from './principals';
import { chooseRole, groupsOf, mappedRoles, tokenScopes } from './role-mapping';

type JWTPayload = import('jose', { with: { 'resolution-mode': 'import' }}).JWTPayload;

/** What a token must be for: an agent at /mcp, or a person at /graphql. */
export type TokenUse = { as: 'agent' } | { as: 'person'; role?: string | null };

/** Why a bearer token was refused, in RFC 6750's words (the WWW-Authenticate `error`). */
export type TokenError = 'invalid_token' | 'insufficient_scope';

/**
 * A refusal of a bearer token: UNAUTHENTICATED (401) or FORBIDDEN (403), with the RFC 6750
 * error, and for insufficient_scope the scope that would do. No error (null) when no scope
 * would help: MCP clients re-authorize on insufficient_scope (step-up), in vain.
 */
export class TokenRefused extends AppError {
  constructor(
    code: 'UNAUTHENTICATED' | 'FORBIDDEN',
    message: string,
    readonly tokenError: TokenError | null,
    readonly scope: string | null = null,
  ) {
    super(code, message);
  }
}

/** A JWS compact serialisation, the shape of an OAuth JWT access token (keys start `tg_`). */
export const looksLikeJwt = (token: string): boolean => /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);

const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'EdDSA'];
/** How long a verified token's principal is remembered (the token's own expiry still rules). */
const REMEMBER_MS = 60_000;
const REMEMBERED_MAX = 5_000;

/**
 * OAuth 2.1 bearer access tokens (JWT) of the configured issuers: signature against the
 * issuer's JWKS, `iss`, `aud` bound to this resource (RFC 8707), `exp` and `nbf` on the
 * injected clock; then the org whose binding the token's tenant matches, and the role:
 * `agent` when the token carries the binding's agent scope (for a person the mapping gives a role), a person's role from the group
 * mapping otherwise. The token itself is never sent anywhere (no passthrough).
 */
export class AccessTokens {
  private readonly remembered = new Map<string, { valid: ValidKey; until: number }>();

  constructor(
    private readonly issuers: Issuers,
    private readonly db: SqlRunner,
    private readonly clock: Clock,
  ) {}

  async caller(token: string, resource: string, use: TokenUse): Promise<ValidKey> {
    const now = this.clock.now();
    const memoKey = createHash('sha256')
      .update(`${resource}\n${use.as}\n${use.as === 'person' ? (use.role ?? '') : ''}\n${token}`)
      .digest('hex');
    const memo = this.remembered.get(memoKey);
    if (memo && memo.until > now && (memo.valid.expiresAt ?? Number.POSITIVE_INFINITY) > now) return memo.valid;

    const payload = await this.verify(token, resource, now);
    const issuer = this.issuers.byIdentifier(payload.iss)!;
    const binding = await bindingForIdentity(this.db, issuer.name, payload);
    // No scope gets this person into an org: no insufficient_scope, so clients do not step up.
    if (!binding) throw new TokenRefused('FORBIDDEN', 'No organization is bound to this identity (issuer and tenant)', null);
    const who = personClaims(issuer.issuer, payload);
    let valid: ValidKey;
    if (use.as === 'agent') {
      if (!binding.agentScope || !tokenScopes(payload).includes(binding.agentScope)) {
        // The org's own agent scope is the one to ask for; an org with none has no agents.
        throw new TokenRefused(
          'FORBIDDEN',
          `The token lacks the scope ${binding.agentScope ?? '(none is configured for agents)'}`,
          binding.agentScope ? 'insufficient_scope' : null,
          binding.agentScope,
        );
      }
      // An agent acts for a person of the org: one the mapping gives no role gets nothing, scope or not.
      if (mappedRoles(binding, payload).length === 0) {
        throw new TokenRefused('FORBIDDEN', 'This person has no role in the organization, so no agent acts for them', null);
      }
      const client = typeof payload.client_id === 'string' ? payload.client_id : typeof payload.azp === 'string' ? payload.azp : 'unknown-client';
      const principal = await ensurePrincipal(this.db, binding.orgId, who, 'agent', { oauthClient: client, recordName: binding.recordNames });
      valid = {
        caller: { orgId: binding.orgId, role: 'agent', keyId: principal.keyId, person: { ...principal.person, groups: groupsOf(binding, payload) } },
        expiresAt: (payload.exp ?? 0) * 1000,
      };
    } else {
      const role = chooseRole(mappedRoles(binding, payload), use.role);
      if (!role)
        throw new TokenRefused(
          'FORBIDDEN',
          use.role ? `This person does not have the role ${use.role}` : 'This person has no role in the organization',
          // Their groups decide, not a scope: nothing for a client to step up to.
          null,
        );
      const principal = await ensurePrincipal(this.db, binding.orgId, who, role, { recordName: binding.recordNames });
      valid = {
        caller: { orgId: binding.orgId, role, keyId: principal.keyId, person: { ...principal.person, groups: groupsOf(binding, payload) } },
        expiresAt: (payload.exp ?? 0) * 1000,
      };
    }
    await this.checkOrg(binding.orgId);
    if (this.remembered.size >= REMEMBERED_MAX) this.remembered.clear();
    this.remembered.set(memoKey, { valid, until: now + REMEMBER_MS });
    return valid;
  }

  /** A revoked principal or a suspended org: its remembered tokens are checked afresh. */
  forget(withdrawal: { keyId: string } | { orgId: string } | { sessionId: string }): void {
    if ('sessionId' in withdrawal) return;
    for (const [key, memo] of this.remembered) {
      if ('keyId' in withdrawal ? memo.valid.caller.keyId === withdrawal.keyId : memo.valid.caller.orgId === withdrawal.orgId)
        this.remembered.delete(key);
    }
  }

  private async verify(token: string, resource: string, now: number): Promise<JWTPayload> {
    const jose = await loadJose();
    let iss: unknown;
    try {
      iss = jose.decodeJwt(token).iss;
    } catch {
      throw new TokenRefused('UNAUTHENTICATED', 'The access token is not a JWT', 'invalid_token');
    }
    const issuer = this.issuers.byIdentifier(iss);
    if (!issuer) throw new TokenRefused('UNAUTHENTICATED', 'The access token is from an issuer this deployment does not trust', 'invalid_token');
    try {
      const { payload } = await jose.jwtVerify(token, await this.issuers.keys(issuer), {
        issuer: issuer.issuer,
        audience: resource,
        algorithms: ALGORITHMS,
        currentDate: new Date(now),
        requiredClaims: ['exp', 'sub'],
      });
      return payload;
    } catch (error) {
      if (error instanceof AppError) throw error;
      const code = (error as { code?: string }).code;
      const why =
        code === 'ERR_JWT_EXPIRED'
          ? 'The access token has expired'
          : code === 'ERR_JWT_CLAIM_VALIDATION_FAILED' && (error as { claim?: string }).claim === 'aud'
            ? `The access token is for another resource (its audience is not ${resource})`
            : `The access token is not valid (${(error as Error).message})`;
      throw new TokenRefused('UNAUTHENTICATED', why, 'invalid_token');
    }
  }

  private async checkOrg(orgId: string): Promise<void> {
    const [row] = await this.db.execute<{ suspended: boolean }[]>('select suspended_at is not null as suspended from orgs where id = ?', [orgId]);
    if (row?.suspended) throw new AppError('ORG_SUSPENDED', 'The organization is suspended');
  }
}
