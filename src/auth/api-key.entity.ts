import { Entity, Enum, Index, ManyToOne, PrimaryKey, Property, Unique, type Opt } from '@mikro-orm/core';
import { newId, TIMESTAMPTZ } from '../db/columns';
import { Org } from '../orgs/org.entity';
import { ROLES, type Role } from './roles';

/**
 * An API key. Only a SHA-256 of the secret is stored; the secret is shown once. A row with
 * `personId` is a person's principal (src/identity/principals.ts): it has no secret, and
 * it names the person wherever a key id is recorded.
 */
@Entity({ tableName: 'api_keys' })
@Index({ properties: ['orgId', 'role'] })
@Unique({
  name: 'api_keys_person_principal',
  expression:
    'create unique index "api_keys_person_principal" on "api_keys" ("org_id", "person_id", "role", coalesce("oauth_client", \'\')) where "person_id" is not null',
})
export class ApiKey {
  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @ManyToOne(() => Org, { mapToPk: true, fieldName: 'org_id' })
  orgId!: string;

  @Enum({ items: [...ROLES], type: 'text' })
  role!: Role;

  @Property({ type: 'text', nullable: true })
  name: string | null = null;

  /** The first characters of the secret, to tell keys apart in listings. */
  @Property({ type: 'text' })
  prefix!: string;

  @Property({ type: 'text', unique: true })
  secretHash!: string;

  @Property({ ...TIMESTAMPTZ })
  createdAt: Opt<Date> = new Date();

  @Property({ ...TIMESTAMPTZ, nullable: true })
  revokedAt: Date | null = null;

  /** After this instant the key is refused (null: it never expires). */
  @Property({ ...TIMESTAMPTZ, nullable: true })
  expiresAt: Date | null = null;

  /** When the key was last used, to the granularity of the usage flush (KeyUsage). */
  @Property({ ...TIMESTAMPTZ, nullable: true })
  lastUsedAt: Date | null = null;

  /** Issued by `toolgate seed` for the demo org: the next seed revokes it. */
  @Property({ type: 'boolean', default: false })
  seeded: Opt<boolean> = false;

  /** A person's principal: the person (people.id); null for a key. */
  @Property({ type: 'uuid', nullable: true, fieldName: 'person_id' })
  personId: string | null = null;

  /** An OAuth client's principal at /mcp: the client id the token was issued to. */
  @Property({ type: 'text', nullable: true })
  oauthClient: string | null = null;
}
