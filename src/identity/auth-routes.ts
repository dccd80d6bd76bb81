import { createHash, randomBytes } from 'node:crypto';
import express, { type Response } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import { parse as parseCookies } from 'cookie';
import { AppError } from '../errors/app-error';
import { ERROR_CATALOG } from '../errors/error-codes';
import { isUuid } from '../db/ids';
import { rawStatements } from '../db/raw-transaction';
import { isDatabaseUnavailable } from '../db/unavailable';
import type { Logger } from '../support/logger';
import { bindingOfOrg } from './identity-bindings';
import type { Identity } from './identity';
import { loadOpenIdClient } from './issuers';
import { ensurePrincipal, personClaims } from './principals';
import { chooseRole, groupsOf, mappedRoles, PERSON_ROLES } from './role-mapping';
import { csrfTokenOf, openSession, SESSION_COOKIE } from './sessions';
import { checkCookieRequest, cookieRequestOf } from './cookie-requests';

/** The browser that started a sign-in: only it may finish it (no login CSRF). */
const LOGIN_COOKIE = 'toolgate_login';
const LOGIN_TTL_MS = 10 * 60 * 1000;
const CALLBACK_PATH = '/auth/callback';
/** Where a sign-in may send the browser back to: the console, nowhere else (no open redirect). */
const RETURN_TO = /^\/console(\/[A-Za-z0-9._~\-/]*)?$/;

const hash = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

export interface AuthRouteOptions {
  orm: MikroORM;
  identity: Identity;
  logger: Logger;
  /** Sign-ins started per client address are charged to the anonymous budget: false when it is spent. */
  admitAnonymous(address: string): Promise<boolean>;
}

/**
 * `/auth`: the console's single sign-on (authorization code with PKCE, openid-client).
 *   GET  /auth/login?org=<slug or id>[&role=][&returnTo=/console/…] → the org's issuer
 *   GET  /auth/callback → the session cookie, back to the console
 *   GET  /auth/session  → who is signed in, and the session's CSRF token (JSON)
 *   POST /auth/logout   → the session ends; the issuer's logout URL, when it has one (JSON)
 */
export function authRoutes(options: AuthRouteOptions): express.Router {
  const { orm, identity, logger } = options;
  const router = express.Router();
  const db = () => rawStatements(orm);

  router.use((_req, res, next) => {
    res.setHeader('cache-control', 'no-store');
    next();
  });

  router.get('/login', async (req, res) => {
    try {
      if (!(await options.admitAnonymous(req.socket.remoteAddress ?? 'unknown'))) {
        throw new AppError('RATE_LIMITED', 'Too many sign-in attempts from this address: wait a minute');
      }
      const orgParam = typeof req.query.org === 'string' ? req.query.org : '';
      const asked = typeof req.query.role === 'string' && req.query.role !== '' ? req.query.role : null;
      if (asked !== null && !(PERSON_ROLES as readonly string[]).includes(asked))
        throw new AppError('BAD_USER_INPUT', `role is one of ${PERSON_ROLES.join(', ')}`);
      const returnTo = typeof req.query.returnTo === 'string' && RETURN_TO.test(req.query.returnTo) ? req.query.returnTo : '/console/';
      const [org] = orgParam
        ? await db().execute<{ id: string }[]>(
            `select id from orgs where slug = ?${isUuid(orgParam) ? ' or id = ?' : ''}`,
            isUuid(orgParam) ? [orgParam, orgParam] : [orgParam],
          )
        : [];
      const binding = org ? await bindingOfOrg(db(), org.id) : null;
      if (!org || !binding)
        throw new AppError('NOT_FOUND', 'No organization with single sign-on by that name: sign in with an API key, or ask an admin');
      const issuer = identity.issuers.byName(binding.issuerName);
      if (!issuer)
        throw new AppError('SERVICE_UNAVAILABLE', `The organization's issuer (${binding.issuerName}) is not configured on this deployment`);
      const oidc = await loadOpenIdClient();
      const client = await identity.issuers.client(issuer);
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const verifier = oidc.randomPKCECodeVerifier();
      const browser = randomBytes(32).toString('base64url');
      await db().execute('delete from oidc_logins where expires_at < now()');
      await db().execute(
        'insert into oidc_logins (state, browser_hash, org_id, issuer_name, code_verifier, nonce, role, return_to, expires_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [state, hash(browser), org.id, issuer.name, verifier, nonce, asked, returnTo, new Date(identity.clock.now() + LOGIN_TTL_MS)],
      );
      const url = oidc.buildAuthorizationUrl(client, {
        redirect_uri: `${identity.publicUrl}${CALLBACK_PATH}`,
        scope: issuer.scopes.join(' '),
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      res.cookie(LOGIN_COOKIE, browser, { httpOnly: true, sameSite: 'lax', secure: identity.secureCookies, path: '/auth', maxAge: LOGIN_TTL_MS });
      res.redirect(302, url.href);
    } catch (error) {
      failPage(res, error, logger);
    }
  });

  router.get('/callback', async (req, res) => {
    try {
      const state = typeof req.query.state === 'string' ? req.query.state : '';
      const browser = parseCookies(req.headers.cookie ?? '')[LOGIN_COOKIE];
      // Single use: whatever happens next, this state cannot be answered twice.
      const [login] = state ? await db().execute<LoginRow[]>('delete from oidc_logins where state = ? returning *', [state]) : [];
      res.clearCookie(LOGIN_COOKIE, { path: '/auth' });
      if (!login) throw new AppError('SIGN_IN_FAILED', 'This sign-in is unknown or was already used: start again');
      if (!browser || hash(browser) !== login.browser_hash)
        throw new AppError('SIGN_IN_FAILED', 'This sign-in was started in another browser: start again');
      if (new Date(login.expires_at).getTime() <= identity.clock.now())
        throw new AppError('SIGN_IN_FAILED', 'The sign-in took too long: start again');
      if (typeof req.query.error === 'string') {
        throw new AppError('SIGN_IN_FAILED', `The issuer refused the sign-in (${req.query.error.slice(0, 100)})`);
      }
      const binding = await bindingOfOrg(db(), login.org_id);
      const issuer = identity.issuers.byName(login.issuer_name);
      if (!binding || binding.issuerName !== login.issuer_name || !issuer) {
        throw new AppError('SIGN_IN_FAILED', "The organization's single sign-on changed during the sign-in: start again");
      }
      const oidc = await loadOpenIdClient();
      const client = await identity.issuers.client(issuer);
      let claims: Record<string, unknown>;
      let idToken: string | null;
      try {
        const tokens = await oidc.authorizationCodeGrant(client, new URL(req.originalUrl, identity.publicUrl), {
          pkceCodeVerifier: login.code_verifier,
          expectedState: state,
          expectedNonce: login.nonce,
          idTokenExpected: true,
        });
        claims = (tokens.claims() ?? {}) as Record<string, unknown>;
        idToken = tokens.id_token ?? null;
      } catch (error) {
        throw new AppError('SIGN_IN_FAILED', `The issuer's answer was refused: ${(error as Error).message}`);
      }
      const role = chooseRole(mappedRoles(binding, claims), login.role);
      if (!role) {
        throw new AppError(
          'FORBIDDEN',
          login.role
            ? `You do not have the ${login.role} role in this organization`
            : 'You have no role in this organization: ask an admin to map one of your groups',
        );
      }
      const who = personClaims(issuer.issuer, claims);
      const session = await orm.em.fork().transactional(async (tx) => {
        const principal = await ensurePrincipal(tx, login.org_id, who, role, { recordName: binding.recordNames });
        return openSession(tx, {
          orgId: login.org_id,
          principal,
          issuerName: issuer.name,
          idToken,
          groups: groupsOf(binding, claims),
          now: identity.clock.now(),
          ttlSeconds: identity.config.sessionTtlSeconds,
        });
      });
      logger.info({ orgId: login.org_id, issuer: issuer.name, subject: who.subject, role, sessionId: session.id }, 'person signed in');
      res.cookie(SESSION_COOKIE, session.token, {
        httpOnly: true,
        sameSite: 'lax',
        secure: identity.secureCookies,
        path: '/',
        maxAge: identity.config.sessionTtlSeconds * 1000,
      });
      res.redirect(303, login.return_to);
    } catch (error) {
      failPage(res, error, logger);
    }
  });

  router.get('/session', async (req, res) => {
    try {
      const cookie = identity.sessionCookie(req.headers.cookie);
      if (!cookie) throw new AppError('UNAUTHENTICATED', 'Not signed in');
      const session = await identity.session(cookie);
      const { caller } = session;
      const [org] = await db().execute<{ id: string; name: string; slug: string | null }[]>('select id, name, slug from orgs where id = ?', [
        caller.orgId,
      ]);
      res.json({
        person: { name: caller.person!.name, email: session.email, issuer: caller.person!.issuer, subject: caller.person!.subject },
        org,
        role: caller.role,
        issuer: session.issuerName,
        csrfToken: csrfTokenOf(cookie),
        expiresAt: new Date(session.expiresAt!).toISOString(),
      });
    } catch (error) {
      failJson(res, error, logger);
    }
  });

  router.post('/logout', async (req, res) => {
    try {
      const cookie = identity.sessionCookie(req.headers.cookie);
      if (!cookie) throw new AppError('UNAUTHENTICATED', 'Not signed in');
      const session = await identity.session(cookie);
      checkCookieRequest(session, cookieRequestOf(req), identity.publicUrl);
      await identity.signOut(session.sessionId);
      res.clearCookie(SESSION_COOKIE, { path: '/' });
      res.json({ signedOut: true, logoutUrl: await issuerLogoutUrl(identity, session.issuerName, session.idToken) });
    } catch (error) {
      failJson(res, error, logger);
    }
  });
  return router;
}

interface LoginRow {
  state: string;
  browser_hash: string;
  org_id: string;
  issuer_name: string;
  code_verifier: string;
  nonce: string;
  role: string | null;
  return_to: string;
  expires_at: Date;
}

/** The issuer's RP-initiated logout, back to the console; the console itself when the issuer has none. */
async function issuerLogoutUrl(identity: Identity, issuerName: string, idToken: string | null): Promise<string> {
  const back = `${identity.publicUrl}/console/`;
  const issuer = identity.issuers.byName(issuerName);
  if (!issuer) return back;
  try {
    const client = await identity.issuers.client(issuer);
    if (!client.serverMetadata().end_session_endpoint) return back;
    const oidc = await loadOpenIdClient();
    const params: Record<string, string> = { post_logout_redirect_uri: back, client_id: issuer.clientId };
    if (idToken) params.id_token_hint = idToken;
    return oidc.buildEndSessionUrl(client, params).href;
  } catch {
    return back;
  }
}

function codeOf(error: unknown): { code: string; status: number; message: string } {
  if (error instanceof AppError) return { code: error.code, status: ERROR_CATALOG[error.code].httpStatus, message: error.message };
  if (isDatabaseUnavailable(error)) return { code: 'SERVICE_UNAVAILABLE', status: 503, message: 'The service is unavailable: try again shortly' };
  return { code: 'INTERNAL_SERVER_ERROR', status: 500, message: 'Internal server error' };
}

function failJson(res: Response, error: unknown, logger: Logger): void {
  const { code, status, message } = codeOf(error);
  if (status >= 500 && code !== 'SERVICE_UNAVAILABLE') logger.error({ err: error }, 'auth route failed');
  res.status(status).json({ error: { code, message } });
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A browser-facing failure: a plain page with the code and the way back. */
function failPage(res: Response, error: unknown, logger: Logger): void {
  const { code, status, message } = codeOf(error);
  if (status >= 500 && code !== 'SERVICE_UNAVAILABLE') logger.error({ err: error }, 'sign-in failed');
  else logger.info({ code, reason: message }, 'sign-in refused');
  res.setHeader('content-security-policy', "default-src 'none'; frame-ancestors 'none'");
  res
    .status(status)
    .type('html')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in failed</title></head><body><h1>Sign-in failed</h1><p id="message">${escapeHtml(message)}</p><p>Code: <code id="code">${code}</code></p><p><a href="/console/">Back to the console</a></p></body></html>`,
    );
}
