import { Entity, Index, ManyToOne, PrimaryKey, Property, Unique, type Opt } from '@mikro-orm/core';
import { newId, TIMESTAMPTZ } from '../db/columns';
import { Org } from '../orgs/org.entity';
import { Specialist } from '../orgs/specialist.entity';
import { ToolDefinition } from './tool-definition.entity';

/** A tool a specialist may use; a run's manifest is permissions ∩ bindings. */
@Entity({ tableName: 'tool_specialist_bindings' })
@Unique({ properties: ['specialistId', 'toolId'] })
@Index({ properties: ['orgId', 'specialistId'] })
export class ToolSpecialistBinding {
  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @ManyToOne(() => Org, { mapToPk: true, fieldName: 'org_id' })
  orgId!: string;

  @ManyToOne(() => Specialist, { mapToPk: true, fieldName: 'specialist_id' })
  specialistId!: string;

  @ManyToOne(() => ToolDefinition, { mapToPk: true, fieldName: 'tool_id' })
  toolId!: string;

  @Property({ ...TIMESTAMPTZ })
  createdAt: Opt<Date> = new Date();
}
