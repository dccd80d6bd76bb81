import { Entity, ManyToOne, PrimaryKey, Property, Unique, type Opt } from '@mikro-orm/core';
import { newId, TIMESTAMPTZ } from '../db/columns';
import { Org } from '../orgs/org.entity';
import { ToolDefinition } from './tool-definition.entity';

/** Whether an org may use a catalog tool at all. */
@Entity({ tableName: 'tool_permissions' })
@Unique({ properties: ['orgId', 'toolId'] })
export class ToolPermission {
  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @ManyToOne(() => Org, { mapToPk: true, fieldName: 'org_id' })
  orgId!: string;

  @ManyToOne(() => ToolDefinition, { mapToPk: true, fieldName: 'tool_id' })
  toolId!: string;

  @Property({ type: 'boolean' })
  enabled!: boolean;

  @Property({ ...TIMESTAMPTZ })
  updatedAt: Opt<Date> = new Date();
}
