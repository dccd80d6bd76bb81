import { Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/core';
import { TIMESTAMPTZ } from '../db/columns';
import { Org } from '../orgs/org.entity';

/** A sign-in under way: what the callback needs (PKCE verifier, nonce) and the browser it must come back to. */
@Entity({ tableName: 'oidc_logins' })
export class OidcLogin {
  @PrimaryKey({ type: 'text' })
  state!: string;

  /** The hash of the login cookie set on the browser that started it (no login CSRF). */
  @Property({ type: 'text' })
  browserHash!: string;

  @ManyToOne(() => Org, { mapToPk: true, fieldName: 'org_id', deleteRule: 'cascade' })
  orgId!: string;

  @Property({ type: 'text' })
  issuerName!: string;

  @Property({ type: 'text' })
  codeVerifier!: string;

  @Property({ type: 'text' })
  nonce!: string;

  /** The role asked for, when the person may have several. */
  @Property({ type: 'text', nullable: true })
  role: string | null = null;

  @Property({ type: 'text' })
  returnTo!: string;

  @Property({ ...TIMESTAMPTZ })
  expiresAt!: Date;
}
