import { Arg, Authorized, Ctx, Extensions, Field, ID, Mutation, ObjectType, Resolver } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { requireCaller } from '../graphql/auth-checker';
import { ApprovalRequestType, toApprovalRequestType } from './approval.types';
import { ApprovalDecisionInput } from './approval.resolver';
import { MAX_BULK_APPROVALS, resolveApprovals } from './approval-bulk';
import type { LocalStepStarter } from '../runs/step-batches';
import type { ToolgateMetrics } from '../telemetry/metrics';

declare module '../graphql/context' {
  interface RequestServices {
    localSteps: LocalStepStarter;
    metrics: ToolgateMetrics;
  }
}

@ObjectType('ApprovalResolutionError', { description: 'Why one item of a bulk resolution was not resolved; nothing of it changed' })
class ApprovalResolutionErrorType {
  @Field({ description: 'The stable error code (README, Errors), as resolveApproval would answer it' })
  code!: string;

  @Field()
  message!: string;
}

@ObjectType('ApprovalResolution', { description: 'One item of a bulk resolution: the request as resolved, or the error that left it as it was' })
class ApprovalResolutionType {
  @Field(() => ID, { description: 'The approval request, as sent' })
  approvalId!: string;

  @Field(() => ApprovalRequestType, { nullable: true, description: 'The resolved request (null when error is set)' })
  approvalRequest!: ApprovalRequestType | null;

  @Field(() => ApprovalResolutionErrorType, { nullable: true })
  error!: ApprovalResolutionErrorType | null;
}

@Resolver()
export class ApprovalBulkResolver {
  @Authorized()
  // Each item is a resolution of its own: costed as one mutation per id (src/api/limits.ts).
  @Extensions({ batchArgument: 'ids' })
  @Mutation(() => [ApprovalResolutionType], {
    description: `Approve or reject up to ${MAX_BULK_APPROVALS} pending requests with one reason, each resolved as resolveApproval resolves one (its own checks, binding, ledger events and transaction), in the order given; answers per item. More ids: TOO_MANY_APPROVALS, nothing changed`,
  })
  async resolveApprovals(
    @Arg('ids', () => [ID]) ids: string[],
    @Arg('decision', () => ApprovalDecisionInput) decision: ApprovalDecisionInput,
    @Arg('reason', () => String, { nullable: true }) reason: string | null,
    @Ctx() ctx: RequestContext,
  ): Promise<ApprovalResolutionType[]> {
    const results = await resolveApprovals(ctx.em, requireCaller(ctx), ids, decision, reason ?? null, ctx.services.localSteps, ctx.logger);
    return results.map(({ approvalId, approval, error }) => {
      if (approval && approval.status !== 'pending') ctx.services.metrics.approvalResolved(approval);
      return { approvalId, approvalRequest: approval ? toApprovalRequestType(approval) : null, error };
    });
  }
}
