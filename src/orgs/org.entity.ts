import { Entity, PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import { newId, TIMESTAMPTZ } from '../db/columns';

/** A tenant. Every other tenant row carries its org_id. */
@Entity({ tableName: 'orgs' })
export class Org {
  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @Property({ type: 'text' })
  name!: string;

  /** Stable handle for well-known orgs such as the seeded demo org; null for others. */
  @Property({ type: 'text', nullable: true, unique: true })
  slug: string | null = null;

  /** Policy shadow mode: decisions are recorded but calls are allowed. */
  @Property({ type: 'boolean', default: false })
  policyShadowMode: Opt<boolean> = false;

  /** Every policy change must be a publishPolicy naming a replay of that exact draft (src/policy/policy-publish.service.ts). */
  @Property({ type: 'boolean', default: false })
  policyReplayRequired: Opt<boolean> = false;

  /** Bumped on every policy change; frozen into runs and approval bindings. */
  @Property({ type: 'integer', default: 1 })
  policyVersion: Opt<number> = 1;

  /**
   * Bumped on every change the gateway caches (flags, permissions, bindings, policy), so
   * each node's in-memory copy is checked against it on the run read it does anyway.
   */
  @Property({ type: 'integer', default: 1 })
  configVersion: Opt<number> = 1;

  @Property({ ...TIMESTAMPTZ })
  createdAt: Opt<Date> = new Date();

  /** Set while the org is suspended: every key of it is refused and no tool call runs. */
  @Property({ ...TIMESTAMPTZ, nullable: true })
  suspendedAt: Date | null = null;
}
