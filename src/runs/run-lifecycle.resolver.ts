import { Arg, Authorized, Ctx, Field, ID, InputType, Mutation, Resolver, registerEnumType } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { requireCaller } from '../graphql/auth-checker';
import { AgentRunType, toRunType } from './run.types';
import { completeExternalRun, startRun } from './run-lifecycle.service';

/** Who drives a run's loop. EXTERNAL: the caller, through executeToolCall. */
export enum RunDriverInput {
  EXTERNAL = 'external',
}
registerEnumType(RunDriverInput, { name: 'RunDriver' });

@InputType()
export class StartAgentRunInput {
  @Field(() => ID)
  specialistId!: string;

  @Field(() => RunDriverInput)
  driver!: RunDriverInput;

  @Field(() => String, { nullable: true, description: 'Traces the run across systems; generated when absent' })
  correlationId?: string | null;
}

@Resolver()
export class RunLifecycleResolver {
  @Authorized('admin', 'client', 'agent')
  @Mutation(() => AgentRunType, { description: 'Open a run; its tool manifest and policy version are frozen now' })
  async startAgentRun(
    @Arg('input', () => StartAgentRunInput) input: StartAgentRunInput,
    @Ctx() ctx: RequestContext,
  ): Promise<AgentRunType> {
    return toRunType(await startRun(ctx.em, requireCaller(ctx), { ...input, driver: input.driver }));
  }

  @Authorized('admin', 'agent')
  @Mutation(() => AgentRunType, { description: 'Close a run driven externally' })
  async completeAgentRun(@Arg('runId', () => ID) runId: string, @Ctx() ctx: RequestContext): Promise<AgentRunType> {
    return toRunType(await completeExternalRun(ctx.em, requireCaller(ctx), runId));
  }
}
