import { Args, Authorized, Ctx, FieldResolver, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { requireCaller } from '../graphql/auth-checker';
import { ACCESS } from '../auth/access';
import { ApprovalRequestConnection, ApprovalRequestType, ApprovalRequestsArgs } from './approval.types';
import { listApprovalRequests } from './approval-query.service';
import { ToolCallType, toToolCallType } from '../gateway/tool-call.types';

@Resolver(() => ApprovalRequestType)
export class ApprovalResolver {
  @Authorized(...ACCESS.approvals)
  @Query(() => ApprovalRequestConnection, { description: 'Approval requests of the org, newest first' })
  async approvalRequests(@Args(() => ApprovalRequestsArgs) args: ApprovalRequestsArgs, @Ctx() ctx: RequestContext) {
    return listApprovalRequests(ctx.em, requireCaller(ctx).orgId, args);
  }

  @FieldResolver(() => ToolCallType)
  async toolCall(@Root() approval: ApprovalRequestType, @Ctx() ctx: RequestContext): Promise<ToolCallType> {
    const call = await ctx.loaders.toolCallById.load(approval.toolCallId);
    if (!call) throw new Error(`approval ${approval.id} has no tool call ${approval.toolCallId}`);
    return toToolCallType(call);
  }
}
