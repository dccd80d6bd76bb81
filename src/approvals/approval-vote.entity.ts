import { Entity, Enum, ManyToOne, PrimaryKey, Property, Unique, type Opt } from '@mikro-orm/core';
import { newId, TIMESTAMPTZ } from '../db/columns';
import { Org } from '../orgs/org.entity';
import { ApprovalRequest } from './approval-request.entity';

export const VOTE_DECISIONS = ['approve', 'reject'] as const;
export type VoteDecision = (typeof VOTE_DECISIONS)[number];

/**
 * One approver's vote on a quorum approval (approval-votes.ts). A person counts once however
 * many principals they act through (`voter` is `person:<people.id>`), a key once
 * (`key:<id>`), per bound params: an edit binds new ones and restarts the count, and the
 * earlier votes stay as history.
 */
@Entity({ tableName: 'approval_votes' })
@Unique({ name: 'approval_votes_once', properties: ['approvalId', 'bindingHash', 'voter'] })
export class ApprovalVote {
  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @ManyToOne(() => Org, { mapToPk: true, fieldName: 'org_id' })
  orgId!: string;

  @ManyToOne(() => ApprovalRequest, { mapToPk: true, fieldName: 'approval_id', deleteRule: 'cascade' })
  approvalId!: string;

  /** The principal that voted (a person's, or an API key). */
  @Property({ type: 'uuid', nullable: true })
  keyId: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  personId: string | null = null;

  @Property({ type: 'text' })
  voter!: string;

  @Enum({ items: [...VOTE_DECISIONS], type: 'text' })
  decision!: VoteDecision;

  /** The params the vote was for (the approval's binding when it was cast). */
  @Property({ type: 'text' })
  bindingHash!: string;

  @Property({ ...TIMESTAMPTZ })
  createdAt: Opt<Date> = new Date();
}
