import { ArgsType, Field, Float, ID, InputType, Int, ObjectType } from 'type-graphql';
import { RUN_STATUSES, type AgentRun, type RunStatus } from './agent-run.entity';
import { runThinkingBudget } from '../llm/thinking';
import { PageArgs, TimeRange, connectionType } from '../graphql/pagination';
import { graphqlEnum } from '../graphql/enums';

export const RunStatusEnum = graphqlEnum(RUN_STATUSES, 'RunStatus');

// simpleResolvers: plain fields read the property with graphql-js's own resolver, without
// type-graphql's per-field wrapper (a list of runs resolves thousands). Field resolvers
// (@FieldResolver, src/runs/run.resolver.ts) keep their auth checks; a plain field here can
// carry no @Authorized (test/api/access-matrix.test.ts fails on one).
@ObjectType('AgentRun', { description: 'One conversation of an agent with a specialist', simpleResolvers: true })
export class AgentRunType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  specialistId!: string;

  @Field(() => RunStatusEnum)
  status!: RunStatus;

  @Field({ description: "internal: Toolgate's agent runtime drives the loop; external: the caller does" })
  driver!: string;

  @Field(() => ID, {
    nullable: true,
    description: 'The API key that owns the run (opened it, or was handed it): only it drives the run; null: nobody until an admin hands it over',
  })
  ownerKeyId!: string | null;

  @Field(() => [String], { description: 'The frozen manifest: `tool.action` names this run may call' })
  allowedTools!: string[];

  @Field(() => Int, { description: 'The policy version the run was created under' })
  policyVersion!: number;

  @Field(() => Int)
  pendingApprovalCount!: number;

  @Field(() => Int)
  inputTokens!: number;

  @Field(() => Int, { description: 'Output tokens as the API bills them: thinking tokens included' })
  outputTokens!: number;

  @Field(() => Int, { description: 'Input tokens written to the prompt cache (priced MODEL_CACHE_WRITE_PRICE_PERCENT of input)' })
  cacheCreationInputTokens!: number;

  @Field(() => Int, { description: 'Input tokens read from the prompt cache (priced MODEL_CACHE_READ_PRICE_PERCENT of input)' })
  cacheReadInputTokens!: number;

  @Field(() => Int, { nullable: true, description: "Extended thinking's budget the run started with (its specialist's then); null: none" })
  thinkingBudgetTokens!: number | null;

  @Field(() => Float, { description: 'LLM cost in US dollars: input, output (thinking included) and prompt-cache tokens' })
  llmCostUsd!: number;

  @Field(() => Int)
  toolCostCents!: number;

  @Field()
  correlationId!: string;

  @Field(() => String, { nullable: true })
  errorCode!: string | null;

  @Field(() => String, { nullable: true })
  errorMessage!: string | null;

  @Field()
  createdAt!: Date;

  @Field()
  updatedAt!: Date;

  @Field(() => Date, { nullable: true })
  completedAt!: Date | null;
}

export const AgentRunConnection = connectionType(AgentRunType, 'AgentRun');

@InputType()
export class RunFilter {
  @Field(() => RunStatusEnum, { nullable: true })
  status?: RunStatus | null;

  @Field(() => ID, { nullable: true })
  specialistId?: string | null;

  @Field(() => TimeRange, { nullable: true })
  created?: TimeRange | null;
}

@ArgsType()
export class RunsArgs extends PageArgs {
  @Field(() => RunFilter, { nullable: true })
  filter?: RunFilter | null;
}

/** What a run's GraphQL type reads of its row (the runs page reads these columns, not `select *`). */
export type RunFields = Omit<AgentRun, 'orgId'>;

export const toRunType = (run: RunFields): AgentRunType => ({
  id: run.id,
  specialistId: run.specialistId,
  status: run.status,
  driver: run.driver,
  ownerKeyId: run.ownerKeyId ?? null,
  allowedTools: run.metadata.runtimeManifest?.allowedTools ?? [],
  policyVersion: run.metadata.runtimeManifest?.policyVersion ?? 0,
  pendingApprovalCount: run.pendingApprovalCount,
  inputTokens: run.inputTokens,
  outputTokens: run.outputTokens,
  cacheCreationInputTokens: run.cacheCreationInputTokens,
  cacheReadInputTokens: run.cacheReadInputTokens,
  thinkingBudgetTokens: runThinkingBudget(run.metadata),
  llmCostUsd: run.llmCostMicros / 1_000_000,
  toolCostCents: run.toolCostCents,
  correlationId: run.correlationId,
  errorCode: run.errorCode,
  errorMessage: run.errorMessage,
  createdAt: run.createdAt,
  updatedAt: run.updatedAt,
  completedAt: run.completedAt,
});
