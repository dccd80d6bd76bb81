import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { SqlRunner } from '../db/raw-transaction';
import type { ValidKey } from '../auth/api-key.service';
import type { Role } from '../auth/roles';
import { AppError } from '../errors/app-error';
import type { Principal } from './principals';

/** The console's session cookie: HTTP-only, SameSite=Lax (the issuer's redirect back is a cross-site navigation). */
export const SESSION_COOKIE = 'toolgate_session';
/** The header (and graphql-ws connection parameter) that carries the session's CSRF token. */
export const CSRF_HEADER = 'x-csrf-token';

const hash = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');
const token = (): string => randomBytes(32).toString('base64url');

/**
 * The CSRF token of a session cookie: derived from it, so `/auth/session` can tell the
 * console its token at any time, while a page of another site, which cannot read the
 * cookie, cannot make one. Its hash is stored with the session all the same.
 */
export function csrfTokenOf(cookie: string): string {
  return createHash('sha256').update(`toolgate-csrf\n${cookie}`, 'utf8').digest('base64url');
}

export interface NewSession {
  id: string;
  /** The cookie's value: shown once, only its hash is stored. */
  token: string;
  csrfToken: string;
  expiresAt: Date;
}

/** Opens a session for a principal; the ID token is kept for the issuer's logout. */
export async function openSession(
  em: SqlRunner,
  input: {
    orgId: string;
    principal: Principal;
    issuerName: string;
    idToken: string | null;
    groups: readonly string[];
    now: number;
    ttlSeconds: number;
  },
): Promise<NewSession> {
  // Each sign-in clears the org's sessions that ran out over a day ago: the table keeps only recent ones.
  await em.execute("delete from person_sessions where org_id = ? and expires_at < now() - interval '1 day'", [input.orgId]);
  const cookie = token();
  const session = { id: randomUUID(), token: cookie, csrfToken: csrfTokenOf(cookie), expiresAt: new Date(input.now + input.ttlSeconds * 1000) };
  await em.execute(
    `insert into person_sessions (id, token_hash, csrf_hash, org_id, principal_id, person_id, issuer_name, id_token, groups, expires_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      session.id,
      hash(session.token),
      hash(session.csrfToken),
      input.orgId,
      input.principal.keyId,
      input.principal.person.id,
      input.issuerName,
      input.idToken,
      JSON.stringify(input.groups),
      session.expiresAt,
    ],
  );
  return session;
}

interface SessionRow {
  id: string;
  org_id: string;
  principal_id: string;
  role: Role;
  csrf_hash: string;
  expires_at: Date;
  ended: boolean;
  revoked: boolean;
  suspended: boolean;
  person_id: string;
  issuer: string;
  subject: string;
  display_name: string | null;
  email: string | null;
  record_names: boolean;
  issuer_name: string;
  id_token: string | null;
  groups: string[];
}

const SESSION_LOOKUP = `select s.id, s.org_id, s.principal_id, k.role, s.csrf_hash, s.expires_at, s.ended_at is not null as ended,
    k.revoked_at is not null as revoked, o.suspended_at is not null as suspended,
    p.id as person_id, p.issuer, p.subject, p.display_name, p.email, coalesce(b.record_names, true) as record_names,
    s.issuer_name, s.id_token, s.groups
  from person_sessions s
  join api_keys k on k.id = s.principal_id
  join orgs o on o.id = s.org_id
  join people p on p.id = s.person_id
  left join identity_bindings b on b.org_id = s.org_id`;

/** A session that is valid now, with what the console shows of it. */
export interface ValidSession extends ValidKey {
  sessionId: string;
  email: string | null;
  issuerName: string;
  idToken: string | null;
  /** Checks a presented CSRF token against the session's, in constant time. */
  csrfMatches(presented: unknown): boolean;
}

function validSession(row: SessionRow | undefined, now: number): ValidSession {
  if (!row || row.ended || row.revoked) throw new AppError('UNAUTHENTICATED', 'The session is not valid: sign in again');
  const expiresAt = new Date(row.expires_at).getTime();
  if (expiresAt <= now) throw new AppError('UNAUTHENTICATED', 'The session has expired: sign in again');
  if (row.suspended) throw new AppError('ORG_SUSPENDED', 'The organization is suspended');
  return {
    caller: {
      orgId: row.org_id,
      role: row.role,
      keyId: row.principal_id,
      sessionId: row.id,
      person: {
        id: row.person_id,
        issuer: row.issuer,
        subject: row.subject,
        name: row.display_name,
        recordName: row.record_names,
        groups: row.groups,
      },
    },
    expiresAt,
    sessionId: row.id,
    email: row.email,
    issuerName: row.issuer_name,
    idToken: row.id_token,
    csrfMatches: (presented) =>
      typeof presented === 'string' && presented.length <= 128 && timingSafeEqual(Buffer.from(hash(presented)), Buffer.from(row.csrf_hash)),
  };
}

/** The session of a cookie: UNAUTHENTICATED when unknown, ended, expired or its principal revoked; ORG_SUSPENDED. */
export async function sessionByToken(em: SqlRunner, cookie: string, now: number): Promise<ValidSession> {
  const [row] = await em.execute<SessionRow[]>(`${SESSION_LOOKUP} where s.token_hash = ?`, [hash(cookie)]);
  return validSession(row, now);
}

/** The same checks for a session already identified (each websocket operation). */
export async function sessionById(em: SqlRunner, sessionId: string, now: number): Promise<ValidSession> {
  const [row] = await em.execute<SessionRow[]>(`${SESSION_LOOKUP} where s.id = ?`, [sessionId]);
  return validSession(row, now);
}

/** Ends a session (sign-out); true when it was open. */
export async function endSession(em: SqlRunner, sessionId: string): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>('update person_sessions set ended_at = now() where id = ? and ended_at is null returning id', [
    sessionId,
  ]);
  return rows.length > 0;
}
