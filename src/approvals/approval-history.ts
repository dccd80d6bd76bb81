import { approvalChangeOf } from './approval-state';
import { Field, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import type { LedgerEvent } from '../ledger/ledger-event.entity';
import { graphqlEnum } from '../graphql/enums';

/** The ledger events an approval's history is drawn from (its call's `resource_id`). */
export const HISTORY_EVENT_TYPES = [
  'tool_call.approval_requested',
  'approval.params_viewed',
  'approval.vote_recorded',
  'approval.escalated',
  'tool_call.approved',
  'tool_call.rejected',
  'tool_call.expired',
  'tool_call.blocked',
] as const;

export const HISTORY_STEPS = ['requested', 'params_viewed', 'voted', 'escalated', 'approved', 'rejected', 'expired', 'cancelled'] as const;
export type HistoryStep = (typeof HISTORY_STEPS)[number];
export const ApprovalHistoryStepEnum = graphqlEnum(
  HISTORY_STEPS,
  'ApprovalHistoryStep',
  "requested, params_viewed (revealApprovalParams), voted (a vote short of the quorum), escalated (the ladder's next step), approved, rejected, expired, or cancelled (the run was cancelled)",
);

@ObjectType('ApprovalHistoryEntry', { description: "One step of an approval's history, from the ledger: who did what, and when" })
export class ApprovalHistoryEntryType {
  @Field({ description: 'The ledger sequence of the event' })
  sequence!: string;

  @Field(() => ApprovalHistoryStepEnum)
  step!: HistoryStep;

  @Field()
  at!: Date;

  @Field(() => String, { nullable: true, description: 'The key that did it (null: expiry, or the system)' })
  actorKeyId!: string | null;

  @Field(() => String, { nullable: true })
  actorRole!: string | null;

  @Field(() => String, { nullable: true, description: 'How the resolution arrived: graphql, mcp_elicitation, mcp_input_required or expiry' })
  channel!: string | null;

  @Field(() => String, { nullable: true, description: "The reviewer's reason (approve) or note (reject)" })
  reason!: string | null;

  @Field({ description: 'Approved with edited params' })
  edited!: boolean;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Edited: the params as requested, redacted' })
  originalParams!: Record<string, unknown> | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Edited: the params the call runs with instead, redacted' })
  editedParams!: Record<string, unknown> | null;

  @Field(() => [String], { description: 'params_viewed: JSON pointers to the values the view showed that the stored copy hides (never the values)' })
  hiddenPaths!: string[];
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const object = (value: unknown): Record<string, unknown> | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;

/** The history's step of a ledger event: the approval feed's change, and the views of its params. */
function stepOf(event: Pick<LedgerEvent, 'type' | 'metadata'>): HistoryStep | null {
  if (event.type === 'approval.params_viewed') return 'params_viewed';
  return approvalChangeOf(event) as HistoryStep | null;
}

/** The history entries of one call's ledger events, in sequence order (other events are left out). */
export function toHistory(events: LedgerEvent[]): ApprovalHistoryEntryType[] {
  return events.flatMap((event) => {
    const step = stepOf(event);
    if (!step) return [];
    const m = event.metadata;
    const edited = m.edited === true;
    return [
      {
        sequence: String(event.sequence),
        step,
        at: event.createdAt,
        actorKeyId: event.actorKeyId,
        actorRole: event.actorRole,
        channel: text(m.channel),
        // A rejection's ledger `reason` is its code word; the reviewer's words are its `note`.
        reason: step === 'rejected' ? text(m.note) : step === 'approved' || step === 'voted' ? text(m.reason) : null,
        edited,
        originalParams: edited ? object(m.originalParams) : null,
        editedParams: edited ? object(m.editedParams) : null,
        hiddenPaths: Array.isArray(m.hiddenPaths) ? m.hiddenPaths.filter((p): p is string => typeof p === 'string') : [],
      },
    ];
  });
}
