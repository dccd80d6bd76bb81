import { ArgsType, Field, Float, ID, InputType, Int, ObjectType } from 'type-graphql';
import { VOTE_DECISIONS, type VoteDecision } from './approval-vote.entity';
import { GraphQLJSONObject } from 'graphql-scalars';
import { APPROVAL_KINDS, APPROVAL_STATUSES, type ApprovalKind, type ApprovalRequest, type ApprovalStatus } from './approval-request.entity';
import { PageArgs, connectionType } from '../graphql/pagination';
import { graphqlEnum } from '../graphql/enums';
import { offeredToGroup } from '../policy/approval-routing';

export const ApprovalKindEnum = graphqlEnum(APPROVAL_KINDS, 'ApprovalKind');
export const ApprovalStatusEnum = graphqlEnum(APPROVAL_STATUSES, 'ApprovalStatus');

export const APPROVAL_ORDERS = ['newest', 'oldest', 'time_left', 'risk'] as const;
export type ApprovalOrder = (typeof APPROVAL_ORDERS)[number];
export const ApprovalOrderEnum = graphqlEnum(
  APPROVAL_ORDERS,
  'ApprovalOrder',
  'newest / oldest: by creation; time_left: the nearest expiry first; risk: the highest risk first, then the nearest expiry',
);

export const VoteDecisionEnum = graphqlEnum(VOTE_DECISIONS, 'ApprovalVoteDecision');

@ObjectType('ApprovalVote', { description: "One approver's vote on a quorum approval" })
export class ApprovalVoteType {
  @Field(() => String, { nullable: true, description: 'The principal that voted (a person acts through one)' })
  keyId!: string | null;

  @Field(() => ID, { nullable: true, description: 'The person who voted (null: an API key)' })
  personId!: string | null;

  @Field(() => String, { nullable: true, description: 'Who voted, as people know them: the person, else the key' })
  by!: string | null;

  @Field(() => VoteDecisionEnum)
  decision!: VoteDecision;

  @Field({ description: 'It counts toward the quorum: it was for the params the approval is bound to now (an edit since restarts the count)' })
  counts!: boolean;

  @Field()
  at!: Date;
}

@ObjectType('ApprovalRequest', { description: 'A human decision a tool call waits for' })
export class ApprovalRequestType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  runId!: string;

  @Field(() => ID)
  toolCallId!: string;

  @Field(() => ApprovalKindEnum)
  kind!: ApprovalKind;

  @Field(() => ApprovalStatusEnum)
  status!: ApprovalStatus;

  @Field(() => String, { nullable: true })
  requestedBy!: string | null;

  @Field(() => String, { nullable: true })
  resolvedBy!: string | null;

  @Field(() => String, { nullable: true })
  reason!: string | null;

  @Field({ description: 'Approved with params a reviewer changed: the call ran (or runs) with editedParams' })
  edited!: boolean;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'The params the reviewer approved instead of the requested ones, redacted' })
  editedParams!: Record<string, unknown> | null;

  @Field(() => String, { nullable: true, description: 'The key that edited the params' })
  editedBy!: string | null;

  @Field({ description: 'When it expires, denied (the end of its escalation ladder, if any)' })
  expiresAt!: Date;

  @Field(() => Int, { description: "Distinct approvers it needs (its rule's quorum; 1 unless the rule says more)" })
  quorum!: number;

  @Field(() => Int, { description: 'The step of its escalation ladder (0: not escalated)' })
  step!: number;

  @Field(() => Int, { description: 'The steps of its escalation ladder (0: none)' })
  steps!: number;

  @Field({ description: 'When the current step ends: the next escalation, else the expiry' })
  stepEndsAt!: Date;

  @Field(() => String, { nullable: true, description: 'The approver group the current step pages (null: the whole role)' })
  group!: string | null;

  /** The params it is bound to now (which votes count); not in the schema. */
  bindingHash!: string;

  @Field(() => Date, { nullable: true })
  resolvedAt!: Date | null;

  @Field()
  createdAt!: Date;
}

@ObjectType('RevealedApprovalParams', {
  description: "A pending approval's real params, shown to a reviewer who may resolve it; the view is in the ledger (approval.params_viewed)",
})
export class RevealedApprovalParamsType {
  @Field(() => ID)
  approvalId!: string;

  @Field(() => ID)
  toolCallId!: string;

  @Field(() => GraphQLJSONObject, { description: 'The params exactly as the call runs them if approved (unredacted)' })
  params!: Record<string, unknown>;

  @Field(() => [String], { description: 'JSON pointers (RFC 6901) to the values the stored, redacted copy hides' })
  hiddenPaths!: string[];

  @Field({ description: 'The approval binding these params hash to (unchanged by the view)' })
  bindingHash!: string;
}

export const ApprovalRequestConnection = connectionType(ApprovalRequestType, 'ApprovalRequest');

@InputType()
export class ApprovalRequestFilter {
  @Field(() => ApprovalStatusEnum, { nullable: true })
  status?: ApprovalStatus | null;

  @Field(() => ApprovalKindEnum, { nullable: true })
  kind?: ApprovalKind | null;

  @Field(() => ID, { nullable: true })
  runId?: string | null;

  @Field(() => String, { nullable: true, description: "The call's tool (e.g. invoice), exactly" })
  toolName?: string | null;

  @Field(() => String, { nullable: true, description: "The call's action (e.g. send), exactly" })
  action?: string | null;

  @Field(() => Float, { nullable: true, description: "The call's `amount` parameter is at least this (calls without a numeric amount are left out)" })
  amountMin?: number | null;

  @Field(() => Float, { nullable: true, description: "The call's `amount` parameter is at most this" })
  amountMax?: number | null;

  @Field(() => String, { nullable: true, description: "The call's `customerId` parameter, exactly" })
  customerId?: string | null;
}

@ArgsType()
export class ApprovalRequestsArgs extends PageArgs {
  @Field(() => ApprovalRequestFilter, { nullable: true })
  filter?: ApprovalRequestFilter | null;

  @Field(() => ApprovalOrderEnum, { nullable: true, defaultValue: 'newest', description: 'The order of the list (default newest first)' })
  orderBy?: ApprovalOrder | null;
}

export const toApprovalRequestType = (a: ApprovalRequest): ApprovalRequestType => ({
  id: a.id,
  runId: a.runId,
  toolCallId: a.toolCallId,
  kind: a.kind,
  status: a.status,
  requestedBy: a.requestedBy,
  resolvedBy: a.resolvedBy,
  reason: a.reason,
  edited: a.editedParamsRedacted !== null,
  editedParams: a.editedParamsRedacted as Record<string, unknown> | null,
  editedBy: a.editedBy,
  expiresAt: a.expiresAt,
  quorum: a.quorum,
  step: a.step,
  steps: a.escalation.length,
  stepEndsAt: a.stepEndsAt ?? a.expiresAt,
  group: offeredToGroup(a),
  bindingHash: a.bindingHash,
  resolvedAt: a.resolvedAt,
  createdAt: a.createdAt,
});
