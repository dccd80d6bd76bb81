import { randomUUID } from 'node:crypto';
import type { SqlRunner } from '../db/raw-transaction';
import type { Role } from '../auth/roles';
import type { PersonRef } from '../auth/caller';
import { AppError } from '../errors/app-error';

/** A person as the issuer describes them at sign-in (or in an access token). */
export interface PersonClaims {
  issuer: string;
  subject: string;
  name: string | null;
  email: string | null;
}

/** A person's principal for one role (and OAuth client): the key id they act as. */
export interface Principal {
  keyId: string;
  person: PersonRef;
}

const text = (value: unknown, max: number): string | null => (typeof value === 'string' && value !== '' ? value.slice(0, max) : null);

/** The claims Toolgate keeps of a person: `sub`, and `name` (else `preferred_username`) and `email` when given. */
export function personClaims(issuer: string, claims: Record<string, unknown>): PersonClaims {
  const subject = text(claims.sub, 255);
  if (!subject) throw new AppError('UNAUTHENTICATED', 'The identity has no subject');
  return { issuer, subject, name: text(claims.name, 200) ?? text(claims.preferred_username, 200), email: text(claims.email, 320) };
}

const UPSERT_PERSON = `insert into people (id, org_id, issuer, subject, display_name, email)
  values (?, ?, ?, ?, ?, ?)
  on conflict (org_id, issuer, subject) do update
    set display_name = coalesce(excluded.display_name, people.display_name), email = coalesce(excluded.email, people.email), last_seen_at = now()
  returning id, display_name`;

// A principal has no secret: its secret_hash is a value no SHA-256 hex digest can equal.
const UPSERT_PRINCIPAL = `insert into api_keys (id, org_id, role, name, prefix, secret_hash, person_id, oauth_client, created_at)
  values (?, ?, ?, ?, ?, ?, ?, ?, now())
  on conflict (org_id, person_id, role, coalesce(oauth_client, '')) where person_id is not null
    do update set name = excluded.name
  returning id, revoked_at is not null as revoked`;

/**
 * The person (a `people` row, kept up to date) and their principal for `role` — and, for an
 * OAuth client at /mcp, for that client: created on first sign-in, named after the person.
 * An admin who revoked the principal took the role away: FORBIDDEN.
 */
export async function ensurePrincipal(
  em: SqlRunner,
  orgId: string,
  who: PersonClaims,
  role: Role,
  options: { oauthClient?: string | null; recordName: boolean },
): Promise<Principal> {
  const [person] = await em.execute<{ id: string; display_name: string | null }[]>(UPSERT_PERSON, [
    randomUUID(),
    orgId,
    who.issuer,
    who.subject,
    who.name,
    who.email,
  ]);
  const name = person.display_name ?? who.subject;
  const oauthClient = options.oauthClient ?? null;
  const principalName = oauthClient ? `${name} via ${oauthClient}`.slice(0, 200) : name;
  const id = randomUUID();
  const [row] = await em.execute<{ id: string; revoked: boolean }[]>(UPSERT_PRINCIPAL, [
    id,
    orgId,
    role,
    principalName,
    oauthClient ? 'oauth' : 'person',
    `principal:${id}`,
    person.id,
    oauthClient,
  ]);
  if (row.revoked) throw new AppError('FORBIDDEN', `An admin withdrew this person's ${role} access`);
  return {
    keyId: row.id,
    person: { id: person.id, issuer: who.issuer, subject: who.subject, name: person.display_name, recordName: options.recordName },
  };
}
