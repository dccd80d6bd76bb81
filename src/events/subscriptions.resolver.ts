import { Arg, Ctx, Field, ID, ObjectType, Resolver, Root, Subscription } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import type { SubscribeResolverData } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { requireCaller } from '../graphql/auth-checker';
import { ACCESS } from '../auth/access';
import type { Role } from '../auth/roles';
import { ApiKey } from '../auth/api-key.entity';
import { AppError, badInput } from '../errors/app-error';
import { ToolCallStatusEnum } from '../graphql/enums';
import { ToolCallType, toToolCallType } from '../gateway/tool-call.types';
import { ToolCall, type ToolCallStatus } from '../gateway/tool-call.entity';
import { ApprovalRequestType, toApprovalRequestType } from '../approvals/approval.types';
import { ApprovalRequest, type ApprovalKind } from '../approvals/approval-request.entity';
import { ApprovalKindEnum } from '../graphql/enums';
import type { LedgerEvent } from '../ledger/ledger-event.entity';
import { findRun } from '../runs/run-query.service';
import { loadMessages, assistantTextLength } from '../runs/run-messages';
import { SubscriptionStream } from './subscription-stream';
import type { Realtime } from './realtime';

const BUFFER_LIMIT = 1000;
const SEQUENCE = /^\d{1,19}$/;

@ObjectType('TokenDelta', { description: 'Model text as it streams; offset orders and places it in the run\'s text' })
export class TokenDeltaType {
  @Field(() => ID)
  runId!: string;

  @Field({ description: 'Position of the first character in the run\'s assistant text (a decimal integer)' })
  offset!: string;

  @Field()
  text!: string;
}

@ObjectType('RunEvent', { description: 'A run\'s status transitions, messages and tool calls, from its ledger' })
export class RunEventType {
  @Field({ description: 'The ledger sequence: resume with afterSequence' })
  sequence!: string;

  @Field()
  type!: string;

  @Field(() => ID)
  runId!: string;

  @Field(() => String, { nullable: true })
  resourceId!: string | null;

  @Field(() => GraphQLJSONObject)
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

  @Field({ description: 'requested, approved, rejected, expired or cancelled' })
  change!: string;

  @Field(() => ApprovalRequestType)
  approvalRequest!: ApprovalRequestType;
}

/** Ledger event type → the tool-call status it records (requested: only when allowed to run). */
function statusOf(event: LedgerEvent): ToolCallStatus | null {
  switch (event.type) {
    case 'tool_call.requested':
      return event.metadata.decision === 'allow' || event.metadata.decision === 'observe' ? 'running' : null;
    case 'tool_call.blocked':
    case 'tool_call.rejected':
    case 'tool_call.expired':
      return 'blocked';
    case 'tool_call.approval_requested':
      return 'waiting_approval';
    case 'tool_call.approved':
      return 'approved';
    case 'tool_call.succeeded':
      return 'succeeded';
    case 'tool_call.failed':
      return 'failed';
    default:
      return null;
  }
}

const APPROVAL_CHANGES: Record<string, string> = {
  'tool_call.approval_requested': 'requested',
  'tool_call.approved': 'approved',
  'tool_call.rejected': 'rejected',
  'tool_call.expired': 'expired',
};

/**
 * Subscriptions. Each replays what the ledger holds after `afterSequence`, then goes
 * live from this node's ledger tail: nothing is missed across a reconnect, and every
 * event is read once per node and resolved once per event for all its subscribers.
 */
@Resolver()
export class SubscriptionResolver {
  @Subscription(() => TokenDeltaType, {
    description: 'The run\'s model text: first what exists so far (after afterOffset), then live deltas',
    subscribe: (data: SubscribeResolverData<unknown, Record<string, unknown>, RequestContext>) => tokenStream(data),
  })
  async runTokens(
    @Root() delta: TokenDeltaType,
    @Arg('runId', () => ID) _runId: string,
    @Arg('afterOffset', () => String, { nullable: true }) _afterOffset: string | null,
    @Ctx() ctx: RequestContext,
  ): Promise<TokenDeltaType> {
    await recheck(ctx, ACCESS.runs);
    return delta;
  }

  @Subscription(() => RunEventType, {
    description: 'Status transitions, messages and tool-call events of a run, in ledger order',
    subscribe: (data: SubscribeResolverData<unknown, Record<string, unknown>, RequestContext>) =>
      ledgerStream(data, ACCESS.runs, async (ctx, args) => {
        const run = await findRun(ctx.em, requireCaller(ctx).orgId, String(args.runId));
        return (event) => (event.runId === run.id && /^(run|tool_call)\./.test(event.type) ? toRunEvent(event) : null);
      }),
  })
  async runEvents(
    @Root() event: RunEventType,
    @Arg('runId', () => ID) _runId: string,
    @Arg('afterSequence', () => String, { nullable: true }) _after: string | null,
    @Ctx() ctx: RequestContext,
  ): Promise<RunEventType> {
    await recheck(ctx, ACCESS.runs, `${event.runId}:${event.sequence}`);
    return event;
  }

  @Subscription(() => ToolCallStatusChangeType, {
    description: 'Tool-call transitions of one run, or of the whole org when runId is omitted',
    subscribe: (data: SubscribeResolverData<unknown, Record<string, unknown>, RequestContext>) =>
      ledgerStream(data, ACCESS.runs, async (ctx, args) => {
        const runId = args.runId ? (await findRun(ctx.em, requireCaller(ctx).orgId, String(args.runId))).id : null;
        return (event) => {
          const status = statusOf(event);
          if (!status || (runId && event.runId !== runId)) return null;
          return { sequence: event.sequence, status, toolCallId: event.resourceId, orgId: event.orgId };
        };
      }),
  })
  async toolCallStatusChanged(
    @Root() change: { sequence: string; status: ToolCallStatus; toolCallId: string; orgId: string },
    @Arg('runId', () => ID, { nullable: true }) _runId: string | null,
    @Arg('afterSequence', () => String, { nullable: true }) _after: string | null,
    @Ctx() ctx: RequestContext,
  ): Promise<ToolCallStatusChangeType> {
    await recheck(ctx, ACCESS.runs, `${change.orgId}:${change.sequence}`);
    const call = await resolveOnce(`call:${change.orgId}:${change.sequence}`, () =>
      ctx.em.fork().findOneOrFail(ToolCall, { id: change.toolCallId, orgId: change.orgId }),
    );
    return { sequence: change.sequence, status: change.status, toolCall: toToolCallType(call) };
  }

  @Subscription(() => ApprovalRequestEventType, {
    name: 'approvalRequests',
    description: 'The approval queue: new waiting_approval requests and their resolutions',
    subscribe: (data: SubscribeResolverData<unknown, Record<string, unknown>, RequestContext>) =>
      ledgerStream(data, ACCESS.approvals, async (_ctx, args) => (event) => {
        const change =
          APPROVAL_CHANGES[event.type] ?? (event.type === 'tool_call.blocked' && event.metadata.reason === 'run_cancelled' ? 'cancelled' : null);
        if (!change) return null;
        return { sequence: event.sequence, change, toolCallId: event.resourceId, orgId: event.orgId, kind: args.kind ?? null };
      }),
  })
  async approvalRequestEvents(
    @Root() change: { sequence: string; change: string; toolCallId: string; orgId: string; kind: ApprovalKind | null },
    @Arg('kind', () => ApprovalKindEnum, { nullable: true }) _kind: ApprovalKind | null,
    @Arg('afterSequence', () => String, { nullable: true }) _after: string | null,
    @Ctx() ctx: RequestContext,
  ): Promise<ApprovalRequestEventType> {
    await recheck(ctx, ACCESS.approvals, `${change.orgId}:${change.sequence}`);
    const approval = await resolveOnce(`approval:${change.orgId}:${change.sequence}`, () =>
      ctx.em.fork().findOneOrFail(ApprovalRequest, { toolCallId: change.toolCallId, orgId: change.orgId }),
    );
    return { sequence: change.sequence, change: change.change, approvalRequest: toApprovalRequestType(approval) };
  }
}

type Filter = (event: LedgerEvent) => unknown;

/** Replay after `afterSequence`, then live: registered before the replay, deduplicated by sequence. */
function ledgerStream(
  data: SubscribeResolverData<unknown, Record<string, unknown>, RequestContext>,
  roles: readonly Role[],
  prepare: (ctx: RequestContext, args: Record<string, unknown>) => Promise<Filter>,
): AsyncIterable<unknown> {
  return (async function* () {
    const ctx = data.context;
    const caller = authorize(ctx, roles);
    const realtime = realtimeOf(ctx);
    const after = parseSequence(data.args.afterSequence);
    const filter = await prepare(ctx, data.args);
    // The approval queue's kind filter needs the row; everything else filters on the event.
    const kind = data.args.kind as ApprovalKind | undefined;
    let last = after ?? 0n;
    const stream = new SubscriptionStream<LedgerEvent>(BUFFER_LIMIT, () => registration.stop(), () => ({ resumeAfterSequence: String(last) }));
    const registration = await realtime.ledger.listen(caller.orgId, (events) => events.forEach((e) => stream.push(e)));
    try {
      const replay = after === null ? [] : await readAll(realtime, caller.orgId, after, registration.delivered);
      for (const event of replay) {
        last = BigInt(event.sequence);
        const payload = filter(event);
        if (payload && (await kindMatches(ctx, payload, kind))) yield payload;
      }
      // Live events start after what the tail had delivered when we registered.
      if (registration.delivered > last) last = registration.delivered;
      for await (const event of stream) {
        const sequence = BigInt(event.sequence);
        if (sequence <= last) continue;
        last = sequence;
        const payload = filter(event);
        if (payload && (await kindMatches(ctx, payload, kind))) yield payload;
      }
    } finally {
      registration.stop();
      await stream.return();
    }
  })();
}

async function kindMatches(ctx: RequestContext, payload: unknown, kind: ApprovalKind | undefined): Promise<boolean> {
  if (!kind) return true;
  const change = payload as { toolCallId: string; orgId: string; sequence: string };
  const approval = await resolveOnce(`approval:${change.orgId}:${change.sequence}`, () =>
    ctx.em.fork().findOneOrFail(ApprovalRequest, { toolCallId: change.toolCallId, orgId: change.orgId }),
  );
  return approval.kind === kind;
}

async function readAll(realtime: Realtime, orgId: string, after: bigint, upTo: bigint): Promise<LedgerEvent[]> {
  const events: LedgerEvent[] = [];
  let from = after;
  while (from < upTo) {
    const batch = await realtime.ledger.read(orgId, from, upTo);
    if (batch.length === 0) break;
    events.push(...batch);
    from = BigInt(batch[batch.length - 1].sequence);
  }
  return events;
}

function tokenStream(data: SubscribeResolverData<unknown, Record<string, unknown>, RequestContext>): AsyncIterable<TokenDeltaType> {
  return (async function* () {
    const ctx = data.context;
    const caller = authorize(ctx, ACCESS.runs);
    const realtime = realtimeOf(ctx);
    const run = await findRun(ctx.em, caller.orgId, String(data.args.runId));
    const afterOffset = data.args.afterOffset === undefined || data.args.afterOffset === null ? null : Number(parseSequence(data.args.afterOffset));
    const stream = new SubscriptionStream<TokenDeltaType>(BUFFER_LIMIT, () => stop(), () => ({ resumeAfterOffset: String(sent) }));
    const stop = realtime.tokens.listen(run.id, run.orgId, (event) => stream.push({ runId: event.runId, offset: String(event.offset), text: event.text }));
    // The message so far: persisted turns, then what this node holds of the one streaming.
    const messages = await loadMessages(ctx.em.fork(), run.id);
    let text = assistantText(messages);
    const live = realtime.tokens.snapshot(run.id);
    if (live && live.start <= text.length && live.start + live.text.length > text.length) {
      text += live.text.slice(text.length - live.start);
    }
    let sent = afterOffset ?? 0;
    try {
      if (text.length > sent) {
        yield { runId: run.id, offset: String(sent), text: text.slice(sent) };
        sent = text.length;
      }
      for await (const delta of stream) {
        const offset = Number(delta.offset);
        const end = offset + delta.text.length;
        if (end <= sent) continue;
        yield { runId: run.id, offset: String(Math.max(offset, sent)), text: delta.text.slice(Math.max(0, sent - offset)) };
        sent = end;
      }
    } finally {
      stop();
      await stream.return();
    }
  })();
}

function assistantText(messages: Awaited<ReturnType<typeof loadMessages>>): string {
  const parts: string[] = [];
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    for (const block of m.content as { type?: string; text?: unknown }[]) {
      if (block.type === 'text' && typeof block.text === 'string') parts.push(block.text);
    }
  }
  const text = parts.join('');
  if (text.length !== assistantTextLength(messages)) throw new Error('assistant text offsets disagree');
  return text;
}

function toRunEvent(event: LedgerEvent): RunEventType {
  return {
    sequence: String(event.sequence),
    type: event.type,
    runId: event.runId!,
    resourceId: event.resourceId,
    metadata: event.metadata,
    createdAt: event.createdAt,
  };
}

function authorize(ctx: RequestContext, roles: readonly Role[]) {
  const caller = requireCaller(ctx);
  if (!roles.includes(caller.role)) throw new AppError('FORBIDDEN', `This subscription is not allowed for the ${caller.role} role`);
  return caller;
}

function realtimeOf(ctx: RequestContext): Realtime {
  if (!ctx.services.realtime) throw new Error('realtime is not started');
  return ctx.services.realtime;
}

function parseSequence(value: unknown): bigint | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !SEQUENCE.test(value)) throw badInput('afterSequence must be a decimal sequence number', { field: 'afterSequence' });
  return BigInt(value);
}

/**
 * Access is re-checked per event: a key revoked since the subscription started ends it at
 * the next event. The lookup is shared by all of a key's subscriptions receiving the same
 * event (token deltas, which arrive many a second, share one lookup per second).
 */
async function recheck(ctx: RequestContext, roles: readonly Role[], eventKey?: string): Promise<void> {
  const caller = authorize(ctx, roles);
  if (!caller.keyId) return;
  const keyId = caller.keyId;
  const slot = eventKey ?? `t${Math.floor(Date.now() / 1000)}`;
  const valid = await resolveOnce(`key:${keyId}:${slot}`, async () => {
    const key = await ctx.em.fork().findOne(ApiKey, { id: keyId }, { fields: ['id', 'revokedAt'] });
    return Boolean(key && key.revokedAt === null);
  });
  if (!valid) throw new AppError('UNAUTHENTICATED', 'The API key is no longer valid');
}

/** One resolution per event, shared by every subscriber that receives it on this node. */
const resolutions = new Map<string, Promise<any>>();
function resolveOnce<T>(key: string, resolve: () => Promise<T>): Promise<T> {
  let promise = resolutions.get(key) as Promise<T> | undefined;
  if (!promise) {
    promise = resolve();
    resolutions.set(key, promise);
    if (resolutions.size > 5000) resolutions.delete(resolutions.keys().next().value as string);
    promise.catch(() => resolutions.delete(key));
  }
  return promise;
}
