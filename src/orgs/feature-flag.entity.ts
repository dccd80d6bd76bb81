import { Entity, ManyToOne, PrimaryKey, Property, Unique, type Opt } from '@mikro-orm/core';
import { newId, TIMESTAMPTZ } from '../db/columns';
import { Org } from './org.entity';

export const TOOL_CALLING_FLAG = 'tool_calling_enabled';
/**
 * Lets the person at an MCP client (the agent key's own session) answer the run's client
 * approvals by elicitation. Off by default: the agent's client could approve its own call.
 */
export const MCP_CLIENT_APPROVALS_FLAG = 'mcp_client_approvals';

/** A per-org switch; a flag with no row is off. */
@Entity({ tableName: 'feature_flags' })
@Unique({ properties: ['orgId', 'key'] })
export class FeatureFlag {
  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @ManyToOne(() => Org, { mapToPk: true, fieldName: 'org_id' })
  orgId!: string;

  @Property({ type: 'text' })
  key!: string;

  @Property({ type: 'boolean', default: false })
  enabled: Opt<boolean> = false;

  @Property({ ...TIMESTAMPTZ })
  updatedAt: Opt<Date> = new Date();
}
