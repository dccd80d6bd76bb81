import { Entity, Index, ManyToOne, PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import { newId, TIMESTAMPTZ } from '../db/columns';
import { Org } from '../orgs/org.entity';
import { ApiKey } from '../auth/api-key.entity';
import { Person } from './person.entity';

/** A console sign-in: only hashes of its cookie and CSRF token are stored. */
@Entity({ tableName: 'person_sessions' })
@Index({ name: 'person_sessions_principal', properties: ['principalId'] })
export class PersonSession {
  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @Property({ type: 'text', unique: true })
  tokenHash!: string;

  @Property({ type: 'text' })
  csrfHash!: string;

  @ManyToOne(() => Org, { mapToPk: true, fieldName: 'org_id', deleteRule: 'cascade' })
  orgId!: string;

  /** The person's principal for the role they signed in with (an api_keys row without a secret). */
  @ManyToOne(() => ApiKey, { mapToPk: true, fieldName: 'principal_id', deleteRule: 'cascade' })
  principalId!: string;

  @ManyToOne(() => Person, { mapToPk: true, fieldName: 'person_id', deleteRule: 'cascade' })
  personId!: string;

  @Property({ type: 'text' })
  issuerName!: string;

  /** Kept for the issuer's logout (`id_token_hint`). */
  @Property({ type: 'text', nullable: true })
  idToken: string | null = null;

  /** The person's values of the binding's role claim (their groups) at sign-in: an escalation step's group is checked against them. */
  @Property({ type: 'jsonb', default: '[]' })
  groups: Opt<string[]> = [];

  @Property({ ...TIMESTAMPTZ, defaultRaw: 'now()' })
  createdAt: Opt<Date> = new Date();

  @Property({ ...TIMESTAMPTZ })
  expiresAt!: Date;

  @Property({ ...TIMESTAMPTZ, nullable: true })
  endedAt: Date | null = null;
}
