import { Entity, ManyToOne, PrimaryKey, Property, Unique, type Opt } from '@mikro-orm/core';
import { newId, TIMESTAMPTZ } from '../db/columns';
import { Org } from '../orgs/org.entity';

/** A person of an org as its issuer knows them: issuer + subject, with the name they last signed in with. */
@Entity({ tableName: 'people' })
@Unique({ name: 'people_org_issuer_subject', properties: ['orgId', 'issuer', 'subject'] })
export class Person {
  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @ManyToOne(() => Org, { mapToPk: true, fieldName: 'org_id', deleteRule: 'cascade' })
  orgId!: string;

  @Property({ type: 'text' })
  issuer!: string;

  @Property({ type: 'text' })
  subject!: string;

  @Property({ type: 'text', nullable: true })
  displayName: string | null = null;

  @Property({ type: 'text', nullable: true })
  email: string | null = null;

  @Property({ ...TIMESTAMPTZ, defaultRaw: 'now()' })
  createdAt: Opt<Date> = new Date();

  @Property({ ...TIMESTAMPTZ, defaultRaw: 'now()' })
  lastSeenAt: Opt<Date> = new Date();
}
