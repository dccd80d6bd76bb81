import { ArgsType, Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { GraphQLJSON } from 'graphql-scalars';
import { RiskLevelEnum } from '../catalog/catalog.types';
import type { RiskLevel } from '../catalog/risk';
import { TOOL_CALL_STATUSES, type ToolCall, type ToolCallStatus } from './tool-call.entity';
import { PageArgs, connectionType } from '../graphql/pagination';
import { graphqlEnum } from '../graphql/enums';

export const ToolCallStatusEnum = graphqlEnum(TOOL_CALL_STATUSES, 'ToolCallStatus');

// simpleResolvers: as AgentRun (src/runs/run.types.ts); field resolvers keep their auth checks.
@ObjectType('ToolCall', { description: 'One tool invocation as recorded by the gateway (input and output redacted)', simpleResolvers: true })
export class ToolCallType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  runId!: string;

  @Field()
  toolName!: string;

  @Field()
  action!: string;

  @Field()
  correlationId!: string;

  @Field(() => ToolCallStatusEnum)
  status!: ToolCallStatus;

  @Field(() => GraphQLJSON, { nullable: true, description: 'The input, with secrets redacted' })
  input!: unknown;

  @Field(() => GraphQLJSON, {
    nullable: true,
    description:
      'Set when a reviewer changed the params before approving: the input the call ran with, secrets redacted (`input` stays as requested)',
  })
  editedInput!: unknown;

  @Field(() => GraphQLJSON, { nullable: true, description: 'The normalized output, with personal data redacted' })
  output!: unknown;

  @Field(() => RiskLevelEnum, { nullable: true })
  riskLevel!: RiskLevel | null;

  @Field({ description: 'Executed under an observe decision: flagged for review' })
  reviewRequired!: boolean;

  @Field(() => Date, { nullable: true, description: 'When a person acknowledged the review (acknowledgeReview); null: not yet' })
  reviewAcknowledgedAt!: Date | null;

  @Field(() => String, { nullable: true, description: 'The key that acknowledged the review' })
  reviewAcknowledgedBy!: string | null;

  @Field(() => String, { nullable: true, description: "The reviewer's note on acknowledging" })
  reviewNote!: string | null;

  @Field(() => String, { nullable: true })
  errorCode!: string | null;

  @Field(() => String, { nullable: true, description: 'Sanitized; never vendor text' })
  errorText!: string | null;

  @Field(() => Int, { nullable: true })
  vendorStatusCode!: number | null;

  @Field(() => Int)
  retryCount!: number;

  @Field(() => Int, { nullable: true })
  durationMs!: number | null;

  @Field(() => Int)
  costCents!: number;

  @Field()
  createdAt!: Date;

  @Field()
  updatedAt!: Date;

  /** Not exposed: the key for the policyDecision field resolver. */
  policyDecisionId!: string | null;
}

export const ToolCallConnection = connectionType(ToolCallType, 'ToolCall');

@InputType()
export class ToolCallFilter {
  @Field(() => ID, { nullable: true })
  runId?: string | null;

  @Field(() => ToolCallStatusEnum, { nullable: true })
  status?: ToolCallStatus | null;

  @Field(() => String, { nullable: true })
  toolName?: string | null;

  @Field(() => Boolean, {
    nullable: true,
    description:
      'Calls a person should look at: observed by policy, let through by shadow mode, or with an outcome nobody could confirm (VENDOR_OUTCOME_UNKNOWN)',
  })
  reviewRequired?: boolean | null;

  @Field(() => Boolean, { nullable: true, description: 'With reviewRequired: true for the acknowledged ones, false for those still to look at' })
  reviewAcknowledged?: boolean | null;
}

@ArgsType()
export class ToolCallsArgs extends PageArgs {
  @Field(() => ToolCallFilter, { nullable: true })
  filter?: ToolCallFilter | null;
}

/** What a call's GraphQL type reads of its row (the loaders read these columns, not `select *`). */
export const TOOL_CALL_FIELDS = [
  'id',
  'runId',
  'toolName',
  'action',
  'correlationId',
  'status',
  'inputRedacted',
  'editedInputRedacted',
  'outputRedacted',
  'riskLevel',
  'reviewRequired',
  'reviewAcknowledgedAt',
  'reviewAcknowledgedBy',
  'reviewNote',
  'errorCode',
  'errorText',
  'vendorStatusCode',
  'retryCount',
  'durationMs',
  'costCents',
  'createdAt',
  'updatedAt',
  'policyDecisionId',
] as const satisfies readonly (keyof ToolCall)[];
export type ToolCallFields = Pick<ToolCall, (typeof TOOL_CALL_FIELDS)[number]>;

export const toToolCallType = (c: ToolCallFields): ToolCallType => ({
  id: c.id,
  runId: c.runId,
  toolName: c.toolName,
  action: c.action,
  correlationId: c.correlationId,
  status: c.status,
  input: c.inputRedacted,
  editedInput: c.editedInputRedacted ?? null,
  output: c.outputRedacted,
  riskLevel: c.riskLevel,
  reviewRequired: c.reviewRequired,
  reviewAcknowledgedAt: c.reviewAcknowledgedAt ?? null,
  reviewAcknowledgedBy: c.reviewAcknowledgedBy ?? null,
  reviewNote: c.reviewNote ?? null,
  errorCode: c.errorCode,
  errorText: c.errorText,
  vendorStatusCode: c.vendorStatusCode,
  retryCount: c.retryCount,
  durationMs: c.durationMs,
  costCents: c.costCents,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
  policyDecisionId: c.policyDecisionId,
});
