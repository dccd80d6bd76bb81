import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { requireCaller } from '../graphql/auth-checker';
import { AgentRunConnection, AgentRunType, RunsArgs, toRunType } from './run.types';
import { RunMessageType, messageText, toRunMessageType } from './run-message.types';
import { findRun, listRuns } from './run-query.service';
import { ToolCallType, toToolCallType } from '../gateway/tool-call.types';
import { LedgerEventType, toLedgerEventType } from '../ledger/ledger.types';
import { SpecialistType, toSpecialistType } from '../orgs/org.types';

@Resolver(() => AgentRunType)
export class RunResolver {
  @Authorized()
  @Query(() => AgentRunType)
  async run(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext): Promise<AgentRunType> {
    return toRunType(await findRun(ctx.em, requireCaller(ctx).orgId, id));
  }

  @Authorized()
  @Query(() => AgentRunConnection, { description: 'Runs of the org, newest first' })
  async runs(@Args(() => RunsArgs) args: RunsArgs, @Ctx() ctx: RequestContext) {
    return listRuns(ctx.em, requireCaller(ctx).orgId, args);
  }

  @FieldResolver(() => [ToolCallType], { description: 'In the order they were made' })
  async toolCalls(@Root() run: AgentRunType, @Ctx() ctx: RequestContext): Promise<ToolCallType[]> {
    return (await ctx.loaders.toolCallsByRun.load(run.id)).map(toToolCallType);
  }

  @Authorized()
  @FieldResolver(() => [LedgerEventType], { description: 'In sequence order' })
  async ledgerEvents(@Root() run: AgentRunType, @Ctx() ctx: RequestContext): Promise<LedgerEventType[]> {
    return (await ctx.loaders.ledgerEventsByRun.load(run.id)).map(toLedgerEventType);
  }

  @FieldResolver(() => [RunMessageType], { description: 'The conversation, in order' })
  async messages(@Root() run: AgentRunType, @Ctx() ctx: RequestContext): Promise<RunMessageType[]> {
    const [messages, calls] = await Promise.all([ctx.loaders.messagesByRun.load(run.id), ctx.loaders.toolCallsByRun.load(run.id)]);
    const byToolUse = new Map(calls.filter((c) => c.toolUseId !== null).map((c) => [c.toolUseId as string, c]));
    return messages.map((m) => toRunMessageType(m, byToolUse));
  }

  @FieldResolver(() => String, { nullable: true, description: 'The text of the last assistant message' })
  async reply(@Root() run: AgentRunType, @Ctx() ctx: RequestContext): Promise<string | null> {
    const messages = await ctx.loaders.messagesByRun.load(run.id);
    const last = [...messages].reverse().find((m) => m.role === 'assistant');
    return last ? messageText(last) : null;
  }

  @FieldResolver(() => SpecialistType)
  async specialist(@Root() run: AgentRunType, @Ctx() ctx: RequestContext): Promise<SpecialistType> {
    const specialist = await ctx.loaders.specialistById.load(run.specialistId);
    if (!specialist) throw new Error(`run ${run.id} has no specialist ${run.specialistId}`);
    return toSpecialistType(specialist);
  }
}
