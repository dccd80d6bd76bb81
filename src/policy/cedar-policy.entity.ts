import { Entity, ManyToOne, PrimaryKey, Property, Unique, type Opt } from '@mikro-orm/core';
import { newId, TIMESTAMPTZ } from '../db/columns';
import { Org } from '../orgs/org.entity';

/** One Cedar policy of an org (docs/policy.md, "Cedar"); its name is its Cedar policy id. */
@Entity({ tableName: 'cedar_policies' })
@Unique({ properties: ['orgId', 'name'] })
export class CedarPolicy {
  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @ManyToOne(() => Org, { mapToPk: true, fieldName: 'org_id' })
  orgId!: string;

  @Property({ type: 'text' })
  name!: string;

  /** Among the org's Cedar permits, the lowest position that matches gives the outcome. */
  @Property({ type: 'integer' })
  position!: number;

  /** The policy in Cedar's syntax, validated against the org's generated schema on save. */
  @Property({ type: 'text' })
  text!: string;

  @Property({ type: 'boolean', default: true })
  enabled: Opt<boolean> = true;

  @Property({ ...TIMESTAMPTZ })
  createdAt: Opt<Date> = new Date();

  @Property({ ...TIMESTAMPTZ })
  updatedAt: Opt<Date> = new Date();
}
