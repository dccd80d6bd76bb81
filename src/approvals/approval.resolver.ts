import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root, registerEnumType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import type { RequestContext } from '../graphql/context';
import { requireCaller } from '../graphql/auth-checker';
import {
  ApprovalRequestConnection,
  ApprovalVoteType,
  ApprovalRequestType,
  ApprovalRequestsArgs,
  RevealedApprovalParamsType,
  toApprovalRequestType,
} from './approval.types';
import { revealApprovalParams } from './approval-reveal';
import { resolveApproval } from './approval.service';
import { listApprovalRequests } from './approval-query.service';
import { ToolCallType, toToolCallType } from '../gateway/tool-call.types';
import { ApprovalHistoryEntryType, toHistory } from './approval-history';
import { nameOfKey } from '../graphql/key-names';
import type { ToolRegistry } from '../gateway/tool-registry';
import type { OrgConfigCache } from '../gateway/org-config-cache';
import type { MasterKeyring } from '../credentials/keyring';
import type { LocalStepStarter } from '../runs/step-batches';
import type { ToolgateMetrics } from '../telemetry/metrics';
import type { Failpoints } from '../recovery/failpoints';

declare module '../graphql/context' {
  interface RequestServices {
    tools: ToolRegistry;
    orgConfig: OrgConfigCache;
    keyring: MasterKeyring;
    localSteps: LocalStepStarter;
    metrics: ToolgateMetrics;
    failpoints: Failpoints;
  }
}

export enum ApprovalDecisionInput {
  APPROVE = 'approve',
  REJECT = 'reject',
}
registerEnumType(ApprovalDecisionInput, { name: 'ApprovalDecision' });

@Resolver(() => ApprovalRequestType)
export class ApprovalResolver {
  @Authorized()
  @Query(() => ApprovalRequestConnection, { description: 'Approval requests of the org, newest first' })
  async approvalRequests(@Args(() => ApprovalRequestsArgs) args: ApprovalRequestsArgs, @Ctx() ctx: RequestContext) {
    return listApprovalRequests(ctx.em, requireCaller(ctx), args);
  }

  @Authorized()
  @Mutation(() => ApprovalRequestType, {
    description:
      'Approve (optionally with edited params) or reject a pending request (experts: expert requests; clients: client requests). Single use.',
  })
  async resolveApproval(
    @Arg('id', () => ID) id: string,
    @Arg('decision', () => ApprovalDecisionInput) decision: ApprovalDecisionInput,
    @Arg('reason', () => String, { nullable: true }) reason: string | null,
    @Arg('editedParams', () => GraphQLJSONObject, {
      nullable: true,
      description:
        "APPROVE only: the params the call runs with instead of the requested ones. Checked against the tool's input schema (INVALID_TOOL_INPUT) and policy again: refused with APPROVAL_EDIT_ESCALATES when they would need another approver, a higher risk, or are blocked",
    })
    editedParams: Record<string, unknown> | null | undefined,
    @Ctx() ctx: RequestContext,
  ): Promise<ApprovalRequestType> {
    const { tools, orgConfig, keyring } = ctx.services;
    const edit = editedParams === null || editedParams === undefined ? null : { params: editedParams, deps: { tools, orgConfig, keyring } };
    const approval = await resolveApproval(ctx.em, requireCaller(ctx), id, decision, reason ?? null, edit, ctx.services.localSteps);
    // A quorum's vote that did not complete it resolved nothing yet.
    if (approval.status !== 'pending') ctx.services.metrics.approvalResolved(approval);
    // Chaos harness: a node killed right after the approval committed (its run step queued, and maybe started here).
    ctx.services.failpoints.hit('after_approval');
    return toApprovalRequestType(approval);
  }

  @FieldResolver(() => String, {
    nullable: true,
    description: 'Who resolved it, as people know the key: its name, else its role and prefix (null: expiry, or not resolved yet)',
  })
  async resolvedByName(@Root() approval: ApprovalRequestType, @Ctx() ctx: RequestContext): Promise<string | null> {
    return nameOfKey(ctx.loaders, approval.resolvedBy);
  }

  @Authorized()
  @Mutation(() => RevealedApprovalParamsType, {
    description:
      "Show a pending approval's real (sealed) params to a reviewer who may resolve it (experts: expert approvals; clients: client approvals). Each view is recorded in the ledger as approval.params_viewed",
  })
  async revealApprovalParams(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext): Promise<RevealedApprovalParamsType> {
    return revealApprovalParams(ctx.em, ctx.services.keyring, requireCaller(ctx), id);
  }

  @FieldResolver(() => [ApprovalHistoryEntryType], {
    description:
      "The approval's history from the ledger, in order: requested → params viewed → approved / rejected (edited or not, with the reason) / expired / cancelled, each with who and when",
  })
  async history(@Root() approval: ApprovalRequestType, @Ctx() ctx: RequestContext): Promise<ApprovalHistoryEntryType[]> {
    return toHistory(await ctx.loaders.approvalEventsByToolCall.load(approval.toolCallId));
  }

  @FieldResolver(() => [ApprovalVoteType], { description: 'Quorum approvals: the votes so far, oldest first, with who and when' })
  async votes(@Root() approval: ApprovalRequestType, @Ctx() ctx: RequestContext): Promise<ApprovalVoteType[]> {
    const votes = await ctx.loaders.approvalVotesByApproval.load(approval.id);
    return Promise.all(
      votes.map(async (v) => {
        const person = v.personId ? await ctx.loaders.personById.load(v.personId) : null;
        return {
          keyId: v.keyId,
          personId: v.personId,
          by: person?.displayName ?? person?.email ?? (await nameOfKey(ctx.loaders, v.keyId)),
          decision: v.decision,
          counts: v.bindingHash === approval.bindingHash,
          at: v.createdAt,
        };
      }),
    );
  }

  @FieldResolver(() => Int, { description: 'Quorum approvals: distinct approvals of the params it is bound to now' })
  async approvals(@Root() approval: ApprovalRequestType, @Ctx() ctx: RequestContext): Promise<number> {
    const votes = await ctx.loaders.approvalVotesByApproval.load(approval.id);
    return votes.filter((v) => v.decision === 'approve' && v.bindingHash === approval.bindingHash).length;
  }

  @FieldResolver(() => ToolCallType)
  async toolCall(@Root() approval: ApprovalRequestType, @Ctx() ctx: RequestContext): Promise<ToolCallType> {
    const call = await ctx.loaders.toolCallById.load(approval.toolCallId);
    if (!call) throw new Error(`approval ${approval.id} has no tool call ${approval.toolCallId}`);
    return toToolCallType(call);
  }
}
