import type { Role } from './roles';

/** A person acting through their principal (src/identity/): who they are, as their issuer knows them. */
export interface PersonRef {
  /** people.id */
  id: string;
  /** The issuer's identifier (the ID token's `iss`). */
  issuer: string;
  subject: string;
  /** The name they signed in with, if the issuer gave one. */
  name: string | null;
  /** The org's binding says whether the ledger keeps the name (else issuer and subject only). */
  recordName: boolean;
  /** Their values of the binding's role claim (their groups), as the issuer gave them at sign-in or in the token. */
  groups?: readonly string[];
}

/** Who is calling: resolved from the API key (or a person's sign-in), the only source of org scope. */
export interface Caller {
  orgId: string;
  role: Role;
  /**
   * The API key, or the principal a person acts through (an api_keys row without a secret);
   * null only for Toolgate's own agent runtime acting for a run.
   */
  keyId: string | null;
  /** Set when a person is calling (a console session or an OAuth access token). */
  person?: PersonRef | null;
  /** The console session the request came with (checked again on every websocket operation). */
  sessionId?: string | null;
}

/** The caller the built-in agent runtime uses for a run's tool calls. */
export const runtimeCaller = (orgId: string): Caller => ({ orgId, role: 'agent', keyId: null });

/** What the ledger records of a person: issuer and subject, and the name unless the org's binding says not to. */
export function personOfRecord(person: PersonRef): { issuer: string; subject: string; name?: string } {
  return person.recordName && person.name
    ? { issuer: person.issuer, subject: person.subject, name: person.name }
    : { issuer: person.issuer, subject: person.subject };
}
