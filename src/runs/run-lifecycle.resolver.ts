import { Arg, Authorized, Ctx, Field, ID, InputType, Mutation, Resolver, registerEnumType } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { requireCaller } from '../graphql/auth-checker';
import { AgentRunType, toRunType } from './run.types';
import { cancelRun, completeExternalRun, postMessage, startRun } from './run-lifecycle.service';
import { handOverRun } from './run-handover';
import type { LocalStepStarter } from './step-batches';
import type { RunEvents } from './run-events';
import type { KeyAccess } from '../auth/key-access';

declare module '../graphql/context' {
  interface RequestServices {
    localSteps: LocalStepStarter;
    runEvents: RunEvents;
    keys: KeyAccess;
  }
}

/** Who drives a run's loop. INTERNAL: Toolgate's agent runtime; EXTERNAL: the caller, through executeToolCall. */
export enum RunDriverInput {
  INTERNAL = 'internal',
  EXTERNAL = 'external',
}
registerEnumType(RunDriverInput, { name: 'RunDriver' });

@InputType()
export class StartAgentRunInput {
  @Field(() => ID)
  specialistId!: string;

  @Field(() => RunDriverInput, { defaultValue: RunDriverInput.INTERNAL })
  driver!: RunDriverInput;

  @Field(() => String, { nullable: true, description: "The customer's message; required for INTERNAL runs" })
  message?: string | null;

  @Field(() => String, { nullable: true, description: 'Traces the run across systems; generated when absent' })
  correlationId?: string | null;
}

@Resolver()
export class RunLifecycleResolver {
  @Authorized()
  @Mutation(() => AgentRunType, { description: 'Open a run; its tool manifest and policy version are frozen now' })
  async startAgentRun(@Arg('input', () => StartAgentRunInput) input: StartAgentRunInput, @Ctx() ctx: RequestContext): Promise<AgentRunType> {
    return toRunType(await startRun(ctx.em, requireCaller(ctx), { ...input, driver: input.driver }, ctx.services.localSteps));
  }

  @Authorized()
  @Mutation(() => AgentRunType, { description: 'Continue a finished run with a new message' })
  async postMessage(@Arg('runId', () => ID) runId: string, @Arg('text') text: string, @Ctx() ctx: RequestContext): Promise<AgentRunType> {
    return toRunType(await postMessage(ctx.em, requireCaller(ctx), runId, text, ctx.services.localSteps));
  }

  @Authorized()
  @Mutation(() => AgentRunType, { description: 'Stop a queued, running or waiting run; its pending approvals are cancelled' })
  async cancelRun(@Arg('runId', () => ID) runId: string, @Ctx() ctx: RequestContext): Promise<AgentRunType> {
    const run = await cancelRun(ctx.em, requireCaller(ctx), runId);
    ctx.services.runEvents.emit('status', { orgId: run.orgId, runId: run.id, status: run.status });
    return toRunType(run);
  }

  @Authorized()
  @Mutation(() => AgentRunType, {
    description:
      'Hand a run over to another key of the org (admin): that key then owns it — drives it and reads it — and the previous owner no longer does. Recorded as run.handed_over',
  })
  async handOverRun(
    @Arg('runId', () => ID) runId: string,
    @Arg('apiKeyId', () => ID) apiKeyId: string,
    @Ctx() ctx: RequestContext,
  ): Promise<AgentRunType> {
    return toRunType(await handOverRun(ctx.em, requireCaller(ctx), runId, apiKeyId, new Date(ctx.services.keys.clock.now())));
  }

  @Authorized()
  @Mutation(() => AgentRunType, { description: 'Close a run driven externally' })
  async completeAgentRun(@Arg('runId', () => ID) runId: string, @Ctx() ctx: RequestContext): Promise<AgentRunType> {
    return toRunType(await completeExternalRun(ctx.em, requireCaller(ctx), runId));
  }
}
