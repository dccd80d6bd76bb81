import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { requireCaller } from '../graphql/auth-checker';
import { AgentRunConnection, AgentRunType, RunsArgs, toRunType } from './run.types';
import { RunMessageType, messageText, toRunMessageType } from './run-message.types';
import { findRun, listRuns } from './run-query.service';
import { ToolCallType, toToolCallType } from '../gateway/tool-call.types';
import { LedgerEventType, toLedgerEventType } from '../ledger/ledger.types';
import { SpecialistType, toSpecialistType } from '../orgs/org.types';
import type { RunMessage } from './run-message.entity';
import { isRefused } from './run-messages';

@Resolver(() => AgentRunType)
export class RunResolver {
  @Authorized()
  @Query(() => AgentRunType)
  async run(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext): Promise<AgentRunType> {
    return toRunType(await findRun(ctx.em, requireCaller(ctx), id));
  }

  @Authorized()
  @Query(() => AgentRunConnection, { description: 'Runs of the org, newest first' })
  async runs(@Args(() => RunsArgs) args: RunsArgs, @Ctx() ctx: RequestContext) {
    return listRuns(ctx.em, ctx.sql, requireCaller(ctx), args);
  }

  @FieldResolver(() => [ToolCallType], {
    description: 'In the order they were made; the first 1000 (all of them: toolCalls with filter runId, paginated)',
  })
  async toolCalls(@Root() run: AgentRunType, @Ctx() ctx: RequestContext): Promise<ToolCallType[]> {
    return (await ctx.loaders.toolCallsByRun.load(run.id)).map(toToolCallType);
  }

  @Authorized()
  @FieldResolver(() => [LedgerEventType], {
    description: 'In sequence order; the first 1000 (all of them: ledgerEvents with filter runId, paginated)',
  })
  async ledgerEvents(@Root() run: AgentRunType, @Ctx() ctx: RequestContext): Promise<LedgerEventType[]> {
    return (await ctx.loaders.ledgerEventsByRun.load(run.id)).map(toLedgerEventType);
  }

  @Authorized()
  @FieldResolver(() => [RunMessageType], { description: 'The conversation, in order; the first 1000 messages' })
  async messages(@Root() run: AgentRunType, @Ctx() ctx: RequestContext): Promise<RunMessageType[]> {
    const [messages, calls] = await Promise.all([ctx.loaders.messagesByRun.load(run.id), ctx.loaders.toolCallsByRun.load(run.id)]);
    const byToolUse = new Map(calls.filter((c) => c.toolUseId !== null).map((c) => [c.toolUseId as string, c]));
    return messages.map((m) => toRunMessageType(m, byToolUse));
  }

  @Authorized()
  @FieldResolver(() => String, {
    nullable: true,
    description:
      'The text of the last assistant message; null when the model gave no text (an empty answer) or refused (stopReason refusal: the run failed MODEL_REFUSED)',
  })
  async reply(@Root() run: AgentRunType, @Ctx() ctx: RequestContext): Promise<string | null> {
    const messages = await ctx.loaders.messagesByRun.load(run.id);
    // The turn's messages: a paused turn and its continuation are one answer.
    const turn: RunMessage[] = [];
    for (let i = messages.length - 1; i >= 0 && messages[i].role === 'assistant'; i--) turn.unshift(messages[i]);
    const last = turn.at(-1) ?? (await lastTurn(run, ctx));
    if (!last || isRefused(last)) return null;
    return (turn.length > 0 ? turn.map(messageText).join('') : messageText(last)) || null;
  }

  @FieldResolver(() => String, {
    nullable: true,
    description:
      "Why the model stopped its last turn (the Messages API's stop_reason: end_turn, max_tokens, stop_sequence, tool_use, pause_turn, refusal); null before its first turn",
  })
  async stopReason(@Root() run: AgentRunType, @Ctx() ctx: RequestContext): Promise<string | null> {
    return (await lastTurn(run, ctx))?.stopReason ?? null;
  }

  @FieldResolver(() => Boolean, { description: 'The reply was cut off at the token limit (stopReason max_tokens): it ends mid-answer' })
  async replyTruncated(@Root() run: AgentRunType, @Ctx() ctx: RequestContext): Promise<boolean> {
    return (await lastTurn(run, ctx))?.stopReason === 'max_tokens';
  }

  @FieldResolver(() => SpecialistType)
  async specialist(@Root() run: AgentRunType, @Ctx() ctx: RequestContext): Promise<SpecialistType> {
    const specialist = await ctx.loaders.specialistById.load(run.specialistId);
    if (!specialist) throw new Error(`run ${run.id} has no specialist ${run.specialistId}`);
    return toSpecialistType(specialist);
  }
}

async function lastTurn(run: AgentRunType, ctx: RequestContext): Promise<RunMessage | undefined> {
  const messages = await ctx.loaders.messagesByRun.load(run.id);
  return [...messages].reverse().find((m) => m.role === 'assistant');
}
