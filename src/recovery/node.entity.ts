import { Entity, Index, PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import { TIMESTAMPTZ } from '../db/columns';

/**
 * One server process (a node) while it lives: it heartbeats, and a node whose heartbeat is
 * older than NODE_DEAD_AFTER_MS — or that stopped without finishing its work — is dead.
 * A live node then releases the dead node's job locks (its graphile-worker ids are listed
 * here before the workers start) and reconciles the tool calls it left `running`.
 */
@Entity({ tableName: 'toolgate_nodes' })
@Index({ properties: ['name'] })
@Index({ properties: ['reapedAt', 'heartbeatAt'] })
export class ToolgateNode {
  @PrimaryKey({ type: 'uuid' })
  id!: string;

  /** TOOLGATE_NODE_NAME, or host:port: a start under the same name recovers its previous incarnation at once. */
  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text' })
  hostname!: string;

  @Property({ type: 'integer' })
  pid!: number;

  /** The graphile-worker ids of this node's job workers. */
  @Property({ type: 'text[]' })
  workerIds!: string[];

  @Property({ ...TIMESTAMPTZ })
  startedAt: Opt<Date> = new Date();

  @Property({ ...TIMESTAMPTZ })
  heartbeatAt: Opt<Date> = new Date();

  /** Set by a shutdown; with work left over (`cleanStop` false) it is reaped at once. */
  @Property({ ...TIMESTAMPTZ, nullable: true })
  stoppedAt: Date | null = null;

  @Property({ type: 'boolean', nullable: true })
  cleanStop: boolean | null = null;

  /** When a live node took over this node's jobs and calls. */
  @Property({ ...TIMESTAMPTZ, nullable: true })
  reapedAt: Date | null = null;

  @Property({ type: 'uuid', nullable: true })
  reapedBy: string | null = null;
}
