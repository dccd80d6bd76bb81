import { Arg, Ctx, Field, ID, ObjectType, Resolver, Root, Subscription } from 'type-graphql';
import { reviewRequiredBy } from '../policy/policy-outcomes';
import { toolCallStatusOf } from '../gateway/tool-call-state';
import { approvalChangeOf } from '../approvals/approval-state';
import { GraphQLJSONObject } from 'graphql-scalars';
import type { SubscribeResolverData } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { AUDIT_ROLES } from '../auth/access';
import { badInput } from '../errors/app-error';
import { ToolCallStatusEnum } from '../gateway/tool-call.types';
import { ToolCallType, toToolCallType } from '../gateway/tool-call.types';
import { ToolCall, type ToolCallStatus } from '../gateway/tool-call.entity';
import { ApprovalRequestType, toApprovalRequestType } from '../approvals/approval.types';
import { ApprovalRequest, type ApprovalKind } from '../approvals/approval-request.entity';
import { ApprovalKindEnum } from '../approvals/approval.types';
import type { LedgerEvent } from '../ledger/ledger-event.entity';
import { findRun } from '../runs/run-query.service';
import { readableRunCheck } from '../runs/run-visibility';
import { ledgerStream } from './ledger-stream';
import { tokenStream } from './token-stream';
import { authorize, resolveOnce } from './subscription-access';
import { deferred } from './cancellable';
import type { MikroORM } from '@mikro-orm/postgresql';

declare module '../graphql/context' {
  interface RequestServices {
    orm: MikroORM;
  }
}

const SEQUENCE = /^\d{1,19}$/;

@ObjectType('TokenDelta', {
  description:
    "Model text as it streams; offset orders and places it in the run's text. An item with retractFrom set first takes back text sent before: cut your copy to retractFrom characters, then add text (which starts there).",
})
export class TokenDeltaType {
  @Field(() => ID)
  runId!: string;

  @Field({ description: "Position of the first character in the run's assistant text (a decimal integer)" })
  offset!: string;

  @Field({ description: 'Text to add at offset (empty in an item that only retracts)' })
  text!: string;

  @Field(() => String, {
    nullable: true,
    description:
      "Null, except when the run discarded text this subscription was sent — a model turn whose stream failed and was asked again, or a turn the model refused: everything from this offset on (a decimal integer, equal to offset) is no longer the run's text. Clients that place text by offset (slice to offset, then append) need no other change.",
  })
  retractFrom!: string | null;
}

@ObjectType('RunEvent', { description: "A run's status transitions, messages and tool calls, from its ledger" })
export class RunEventType {
  @Field({ description: 'The ledger sequence: resume with afterSequence' })
  sequence!: string;

  @Field()
  type!: string;

  @Field(() => ID)
  runId!: string;

  @Field(() => String, { nullable: true })
  resourceId!: string | null;

  @Field(() => GraphQLJSONObject, { description: "The ledger event's (redacted) metadata; empty for roles that may not read the audit ledger" })
  metadata!: Record<string, unknown>;

  @Field()
  createdAt!: Date;
}

@ObjectType('ToolCallStatusChange')
export class ToolCallStatusChangeType {
  @Field()
  sequence!: string;

  @Field(() => ToolCallStatusEnum, { description: 'The status this transition entered' })
  status!: ToolCallStatus;

  @Field(() => ToolCallType, { description: 'The call as it is now (redacted fields only)' })
  toolCall!: ToolCallType;
}

@ObjectType('ApprovalRequestEvent')
export class ApprovalRequestEventType {
  @Field()
  sequence!: string;

  @Field({
    description:
      'requested, approved, rejected, expired or cancelled; review_required: a call for an expert to check — observed by policy or let through by shadow mode (when requested), an outcome the vendor could not confirm (VENDOR_OUTCOME_UNKNOWN), or an action left partly done (an invoice created but not emailed); review_acknowledged: a reviewer acknowledged such a call (acknowledgeReview)',
  })
  change!: string;

  @Field(() => ApprovalRequestType, { nullable: true, description: 'The approval request; null for a review item whose call needed no approval' })
  approvalRequest!: ApprovalRequestType | null;

  @Field(() => ToolCallType, { description: 'The call the change is about, as it is now (redacted fields only)' })
  toolCall!: ToolCallType;
}

/**
 * Subscriptions. Each replays what the ledger holds after `afterSequence`, then goes
 * live from this node's ledger tail (see ledger-stream.ts): nothing is missed across a
 * reconnect, every event is read once per node, and access is re-checked before each
 * event is sent.
 */
type Data = SubscribeResolverData<unknown, Record<string, unknown>, RequestContext>;

@Resolver()
export class SubscriptionResolver {
  @Subscription(() => TokenDeltaType, {
    description:
      "The run's model text: first what exists so far (after afterOffset), then live deltas. A turn the run discards after streaming it (its stream failed and the turn is asked again, or the model refused it) is retracted: the next item carries retractFrom, the offset from which the text sent so far is void, and the replacement text from there. A subscriber that applies retractions holds the same text as one that joins later: the run's stored assistant text.",
    subscribe: ({ context, args }: Data) =>
      deferred(() => {
        authorize(context, 'Subscription.runTokens');
        const after = parseSequence(args.afterOffset, 'afterOffset');
        return tokenStream(context, String(args.runId), after === null ? null : Number(after));
      }),
  })
  runTokens(
    @Root() delta: TokenDeltaType,
    @Arg('runId', () => ID) _runId: string,
    @Arg('afterOffset', () => String, { nullable: true }) _afterOffset: string | null,
  ): TokenDeltaType {
    return delta;
  }

  @Subscription(() => RunEventType, {
    description: 'Status transitions, messages and tool-call events of a run, in ledger order',
    subscribe: ({ context, args }: Data) =>
      deferred(() => {
        const caller = authorize(context, 'Subscription.runEvents');
        const seesMetadata = AUDIT_ROLES.includes(caller.role);
        return ledgerStream(context, parseSequence(args.afterSequence), async () => {
          const run = await findRun(context.services.orm.em.fork(), caller, String(args.runId));
          return (event) => (event.runId === run.id && /^(run|tool_call)\./.test(event.type) ? toRunEvent(event, seesMetadata) : null);
        });
      }),
  })
  runEvents(
    @Root() event: RunEventType,
    @Arg('runId', () => ID) _runId: string,
    @Arg('afterSequence', () => String, { nullable: true }) _after: string | null,
  ): RunEventType {
    return event;
  }

  @Subscription(() => ToolCallStatusChangeType, {
    description: 'Tool-call transitions of one run, or of the whole org when runId is omitted',
    subscribe: ({ context, args }: Data) =>
      deferred(() => {
        const caller = authorize(context, 'Subscription.toolCallStatusChanged');
        return ledgerStream(context, parseSequence(args.afterSequence), async () => {
          const runId =
            args.runId !== undefined && args.runId !== null ? (await findRun(context.services.orm.em.fork(), caller, String(args.runId))).id : null;
          // Org-wide, a key that reads only some runs (RUN_SCOPE) gets only theirs.
          const readable = runId ? null : readableRunCheck(context.services.orm.em.fork(), caller);
          return (event) => {
            const status = toolCallStatusOf(event);
            if (!status || (runId && event.runId !== runId)) return null;
            const change = { sequence: event.sequence, status, toolCallId: event.resourceId, orgId: event.orgId };
            if (!readable || !event.runId) return readable ? null : change;
            const ok = readable(event.runId);
            return ok instanceof Promise ? ok.then((yes) => (yes ? change : null)) : ok ? change : null;
          };
        });
      }),
  })
  async toolCallStatusChanged(
    @Root() change: { sequence: string; status: ToolCallStatus; toolCallId: string; orgId: string },
    @Arg('runId', () => ID, { nullable: true }) _runId: string | null,
    @Arg('afterSequence', () => String, { nullable: true }) _after: string | null,
    @Ctx() ctx: RequestContext,
  ): Promise<ToolCallStatusChangeType> {
    const call = await resolveOnce(ctx, `call:${change.orgId}:${change.sequence}`, () =>
      ctx.services.orm.em.fork().findOneOrFail(ToolCall, { id: change.toolCallId, orgId: change.orgId }),
    );
    return { sequence: change.sequence, status: change.status, toolCall: toToolCallType(call) };
  }

  @Subscription(() => ApprovalRequestEventType, {
    name: 'approvalRequests',
    description: 'The approval queue: new waiting_approval requests and their resolutions',
    subscribe: ({ context, args }: Data) =>
      deferred(() => {
        const caller = authorize(context, 'Subscription.approvalRequests');
        const kind = (args.kind as ApprovalKind | null | undefined) ?? null;
        // Review items are for experts (and admins), whichever approval kind their call had.
        const seesReviews = AUDIT_ROLES.includes(caller.role) && (kind === null || kind === 'expert');
        return ledgerStream(context, parseSequence(args.afterSequence), async () => {
          // A client gets the approvals of the runs it reads (RUN_SCOPE).
          const readable = readableRunCheck(context.services.orm.em.fork(), caller);
          return async (event) => {
            const change = approvalChangeOf(event) ?? (seesReviews ? reviewChangeOf(event) : null);
            if (!change) return null;
            if (readable && !(event.runId && (await readable(event.runId)))) return null;
            if (
              !REVIEW_CHANGES.has(change) &&
              kind &&
              (await approvalOf(context, event.orgId, event.resourceId!, String(event.sequence)))?.kind !== kind
            )
              return null;
            return { sequence: event.sequence, change, toolCallId: event.resourceId, orgId: event.orgId };
          };
        });
      }),
  })
  async approvalRequestEvents(
    @Root() change: { sequence: string; change: string; toolCallId: string; orgId: string },
    @Arg('kind', () => ApprovalKindEnum, { nullable: true }) _kind: ApprovalKind | null,
    @Arg('afterSequence', () => String, { nullable: true }) _after: string | null,
    @Ctx() ctx: RequestContext,
  ): Promise<ApprovalRequestEventType> {
    const [approval, call] = await Promise.all([
      approvalOf(ctx, change.orgId, change.toolCallId, change.sequence),
      resolveOnce(ctx, `call:${change.orgId}:${change.sequence}`, () =>
        ctx.services.orm.em.fork().findOneOrFail(ToolCall, { id: change.toolCallId, orgId: change.orgId }),
      ),
    ]);
    return {
      sequence: change.sequence,
      change: change.change,
      approvalRequest: approval ? toApprovalRequestType(approval) : null,
      toolCall: toToolCallType(call),
    };
  }
}

/** A settled call nobody could confirm, or a partial action nobody could finish (executor/uncertain-outcome.ts): a person must check it. */
function needsReview(event: LedgerEvent): boolean {
  if (event.type === 'tool_call.succeeded') return typeof event.metadata.partial === 'string' && event.metadata.resumed === false;
  if (event.type === 'tool_call.failed') return event.metadata.errorCode === 'VENDOR_OUTCOME_UNKNOWN';
  // Flagged when requested (tool-call-recorder.ts): observed by policy, or let through by shadow mode.
  if (event.type !== 'tool_call.requested') return false;
  return reviewRequiredBy(event.metadata.decision, event.metadata.shadowDecision);
}

const REVIEW_CHANGES = new Set(['review_required', 'review_acknowledged']);

/** What a ledger event changes in the review queue (audit roles only): an item arrives, or an item was acknowledged. */
function reviewChangeOf(event: LedgerEvent): 'review_required' | 'review_acknowledged' | null {
  if (event.type === 'tool_call.review_acknowledged') return 'review_acknowledged';
  return needsReview(event) ? 'review_required' : null;
}

/** The approval request as of a ledger event, fetched once per event in this app. */
function approvalOf(ctx: RequestContext, orgId: string, toolCallId: string, sequence: string): Promise<ApprovalRequest | null> {
  return resolveOnce(ctx, `approval:${orgId}:${sequence}`, () => ctx.services.orm.em.fork().findOne(ApprovalRequest, { toolCallId, orgId }));
}

/** One payload per event (and metadata visibility), shared by every subscription that sends it. */
const runEventPayloads = new WeakMap<LedgerEvent, { full?: RunEventType; bare?: RunEventType }>();

function toRunEvent(event: LedgerEvent, withMetadata: boolean): RunEventType {
  let payloads = runEventPayloads.get(event);
  if (!payloads) runEventPayloads.set(event, (payloads = {}));
  const slot = withMetadata ? 'full' : 'bare';
  return (payloads[slot] ??= {
    sequence: String(event.sequence),
    type: event.type,
    runId: event.runId!,
    resourceId: event.resourceId,
    metadata: withMetadata ? event.metadata : {},
    createdAt: event.createdAt,
  });
}

function parseSequence(value: unknown, field = 'afterSequence'): bigint | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !SEQUENCE.test(value)) throw badInput(`${field} must be a decimal sequence number`, { field });
  return BigInt(value);
}
