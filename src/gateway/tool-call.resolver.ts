import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { requireCaller } from '../graphql/auth-checker';
import { ToolCallConnection, ToolCallType, ToolCallsArgs, toToolCallType } from './tool-call.types';
import { findToolCall, listToolCalls } from './tool-call-query.service';
import { PolicyDecisionType, toPolicyDecisionType } from '../policy/policy-decision.types';
import { ApprovalRequestType, toApprovalRequestType } from '../approvals/approval.types';
import { LedgerEventType, toLedgerEventType } from '../ledger/ledger.types';
import { AgentRunType, toRunType } from '../runs/run.types';
import { acknowledgeReview } from './review-acknowledgement';
import type { KeyAccess } from '../auth/key-access';

declare module '../graphql/context' {
  interface RequestServices {
    keys: KeyAccess;
  }
}

@Resolver(() => ToolCallType)
export class ToolCallResolver {
  @Authorized()
  @Query(() => ToolCallType)
  async toolCall(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext): Promise<ToolCallType> {
    return toToolCallType(await findToolCall(ctx.em, requireCaller(ctx), id));
  }

  @Authorized()
  @Query(() => ToolCallConnection, { description: 'Tool calls of the org, newest first' })
  async toolCalls(@Args(() => ToolCallsArgs) args: ToolCallsArgs, @Ctx() ctx: RequestContext) {
    return listToolCalls(ctx.em, requireCaller(ctx), args);
  }

  @Authorized()
  @Mutation(() => ToolCallType, {
    description:
      'Acknowledge a call flagged for review (reviewRequired), with an optional note (at most 2000 characters): it leaves the review queue, and the ledger records tool_call.review_acknowledged with the key and the note. Once only (REVIEW_ALREADY_ACKNOWLEDGED); a call not flagged is REVIEW_NOT_REQUIRED',
  })
  async acknowledgeReview(
    @Arg('toolCallId', () => ID) toolCallId: string,
    @Arg('note', () => String, { nullable: true }) note: string | null,
    @Ctx() ctx: RequestContext,
  ): Promise<ToolCallType> {
    const call = await acknowledgeReview(ctx.em, requireCaller(ctx), toolCallId, note ?? null, new Date(ctx.services.keys.clock.now()));
    return toToolCallType(call);
  }

  @FieldResolver(() => AgentRunType)
  async run(@Root() call: ToolCallType, @Ctx() ctx: RequestContext): Promise<AgentRunType> {
    const run = await ctx.loaders.runById.load(call.runId);
    if (!run) throw new Error(`tool call ${call.id} has no run ${call.runId}`);
    return toRunType(run);
  }

  @Authorized()
  @FieldResolver(() => PolicyDecisionType, { nullable: true })
  async policyDecision(@Root() call: ToolCallType, @Ctx() ctx: RequestContext): Promise<PolicyDecisionType | null> {
    if (!call.policyDecisionId) return null;
    const decision = await ctx.loaders.policyDecisionById.load(call.policyDecisionId);
    return decision ? toPolicyDecisionType(decision) : null;
  }

  @Authorized()
  @FieldResolver(() => ApprovalRequestType, { nullable: true })
  async approvalRequest(@Root() call: ToolCallType, @Ctx() ctx: RequestContext): Promise<ApprovalRequestType | null> {
    const approval = await ctx.loaders.approvalRequestByToolCall.load(call.id);
    return approval ? toApprovalRequestType(approval) : null;
  }

  @Authorized()
  @FieldResolver(() => [LedgerEventType], { description: 'In sequence order; the first 1000' })
  async ledgerEvents(@Root() call: ToolCallType, @Ctx() ctx: RequestContext): Promise<LedgerEventType[]> {
    return (await ctx.loaders.ledgerEventsByResource.load(call.id)).map(toLedgerEventType);
  }
}
