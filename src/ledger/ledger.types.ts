import { ArgsType, Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import type { LedgerEvent } from './ledger-event.entity';
import { PageArgs, TimeRange, connectionType } from '../graphql/pagination';

@ObjectType('LedgerEvent', { description: 'An append-only, hash-chained audit event' })
export class LedgerEventType {
  @Field(() => ID)
  id!: string;

  @Field({ description: "Position in the org's ledger: 1, 2, 3, … without gaps (a decimal integer)" })
  sequence!: string;

  @Field()
  type!: string;

  @Field(() => ID, { nullable: true })
  runId!: string | null;

  @Field(() => String, { nullable: true })
  resourceId!: string | null;

  @Field(() => String, { nullable: true })
  actorRole!: string | null;

  /** The key that acted (read by the actorName field). */
  actorKeyId!: string | null;

  @Field(() => GraphQLJSONObject)
  metadata!: Record<string, unknown>;

  @Field(() => String, { nullable: true })
  prevHash!: string | null;

  @Field()
  hash!: string;

  @Field()
  createdAt!: Date;
}

export const LedgerEventConnection = connectionType(LedgerEventType, 'LedgerEvent');

@InputType()
export class LedgerEventFilter {
  @Field(() => ID, { nullable: true })
  runId?: string | null;

  @Field(() => String, { nullable: true, description: 'Exact event type, e.g. tool_call.blocked' })
  type?: string | null;

  @Field(() => String, { nullable: true, description: 'The id of the resource the events are about' })
  resourceId?: string | null;

  @Field(() => TimeRange, { nullable: true, description: 'Events appended in this range' })
  created?: TimeRange | null;
}

@ArgsType()
export class LedgerEventsArgs extends PageArgs {
  @Field(() => LedgerEventFilter, { nullable: true })
  filter?: LedgerEventFilter | null;
}

export const toLedgerEventType = (e: LedgerEvent): LedgerEventType => ({
  id: String(e.id),
  sequence: String(e.sequence),
  type: e.type,
  runId: e.runId,
  resourceId: e.resourceId,
  actorRole: e.actorRole,
  actorKeyId: e.actorKeyId,
  metadata: e.metadata,
  prevHash: e.prevHash,
  hash: e.hash,
  createdAt: e.createdAt,
});

@ObjectType('LedgerVerification', { description: "The org's hash chain recomputed from its first event and compared with its head" })
export class LedgerVerificationType {
  @Field()
  ok!: boolean;

  @Field(() => Int)
  eventsChecked!: number;

  @Field(() => String, { nullable: true, description: 'The first event that is wrong, or the first one missing (truncated), by sequence' })
  firstBadSequence!: string | null;

  @Field(() => ID, { nullable: true, description: 'Null when that event is missing' })
  firstBadEventId!: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      "sequence_gap, broken_link, hash_mismatch, head_mismatch (an event past the org's head, or not the one it names) or truncated (the chain ends before its head)",
  })
  problem!: string | null;
}
