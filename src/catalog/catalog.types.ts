import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { RISK_LEVELS, type RiskLevel } from './risk';
import type { ToolDefinition } from './tool-definition.entity';
import { toolKey } from './tool-key';
import { graphqlEnum } from '../graphql/enums';

export const RiskLevelEnum = graphqlEnum(RISK_LEVELS, 'RiskLevel');

@ObjectType('ToolCatalogEntry', { description: "A catalog tool action and whether the caller's org enabled it" })
export class ToolCatalogEntryType {
  @Field(() => ID)
  id!: string;

  @Field({ description: '`tool.action`, as listed in run manifests' })
  name!: string;

  @Field()
  toolName!: string;

  @Field()
  action!: string;

  @Field()
  vendor!: string;

  @Field()
  description!: string;

  @Field(() => RiskLevelEnum)
  defaultRisk!: RiskLevel;

  @Field()
  idempotent!: boolean;

  @Field(() => GraphQLJSONObject)
  inputSchema!: Record<string, unknown>;

  @Field(() => Int)
  costCents!: number;

  @Field({ description: "Enabled for the caller's org (tool permission)" })
  enabled!: boolean;
}

@ObjectType('ToolPermission')
export class ToolPermissionType {
  @Field()
  toolName!: string;

  @Field()
  action!: string;

  @Field()
  enabled!: boolean;

  @Field()
  updatedAt!: Date;
}

/**
 * The fields a binding and the input that sets it share. type-graphql 2 emits only the types
 * that resolvers reach, so this base is no type of the schema (2.0 has no `isAbstract`).
 */
@ObjectType()
@InputType()
abstract class ToolBindingFields {
  @Field(() => ID)
  specialistId!: string;

  @Field()
  toolName!: string;

  @Field()
  action!: string;
}

@ObjectType('ToolSpecialistBinding')
export class ToolSpecialistBindingType extends ToolBindingFields {
  @Field()
  bound!: boolean;
}

@InputType()
export class BindToolInput extends ToolBindingFields {
  @Field({ defaultValue: true, description: 'false removes the binding' })
  bound: boolean = true;
}

export const toCatalogEntryType = (tool: ToolDefinition, enabled: boolean): ToolCatalogEntryType => ({
  id: tool.id,
  name: toolKey(tool.toolName, tool.action),
  toolName: tool.toolName,
  action: tool.action,
  vendor: tool.vendor,
  description: tool.description,
  defaultRisk: tool.defaultRisk,
  idempotent: tool.idempotent,
  inputSchema: tool.inputSchema,
  costCents: tool.costCents,
  enabled,
});
