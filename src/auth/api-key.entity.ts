import { Entity, Enum, Index, ManyToOne, PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import { newId, TIMESTAMPTZ } from '../db/columns';
import { Org } from '../orgs/org.entity';
import { ROLES, type Role } from './roles';

/** An API key. Only a SHA-256 of the secret is stored; the secret is shown once. */
@Entity({ tableName: 'api_keys' })
@Index({ properties: ['orgId', 'role'] })
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
}
