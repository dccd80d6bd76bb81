import { Check, Entity, Enum, Index, ManyToOne, PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import { newId, TIMESTAMPTZ } from '../db/columns';
import { Org } from '../orgs/org.entity';
import { AgentRun } from '../runs/agent-run.entity';
import { ToolCall } from '../gateway/tool-call.entity';
import type { SealedJson } from '../credentials/sealed-json';
import type { EscalationStep } from '../policy/approval-routing';

export const APPROVAL_KINDS = ['expert', 'client'] as const;
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];
export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'expired', 'cancelled'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** A human decision a tool call waits for, bound to that exact call by `bindingHash`. */
@Entity({ tableName: 'approval_requests' })
@Index({ properties: ['orgId', 'createdAt', 'id'] })
@Index({ properties: ['orgId', 'status', 'kind', 'createdAt'] })
@Index({ properties: ['status', 'expiresAt'] })
@Index({ properties: ['status', 'stepEndsAt'] })
@Check({ name: 'approval_requests_resolution_check', expression: "(status = 'pending') = (resolved_at is null)" })
export class ApprovalRequest {
  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @ManyToOne(() => Org, { mapToPk: true, fieldName: 'org_id' })
  orgId!: string;

  @ManyToOne(() => AgentRun, { mapToPk: true, fieldName: 'run_id' })
  runId!: string;

  @ManyToOne(() => ToolCall, { mapToPk: true, fieldName: 'tool_call_id', unique: true })
  toolCallId!: string;

  @Enum({ items: [...APPROVAL_KINDS], type: 'text' })
  kind!: ApprovalKind;

  @Enum({ items: [...APPROVAL_STATUSES], type: 'text' })
  status: Opt<ApprovalStatus> = 'pending';

  @Property({ type: 'text' })
  bindingHash!: string;

  /**
   * The call's unredacted params, sealed with the master key until the approved call has
   * run (then cleared): the ledger keeps only the redacted copy.
   */
  @Property({ type: 'json', nullable: true })
  sealedParams: SealedJson | null = null;

  /** Set when a reviewer edited the params: the binding of the call as it was requested. */
  @Property({ type: 'text', nullable: true })
  requestedBindingHash: string | null = null;

  /** The params a reviewer approved instead of the requested ones, redacted (null: not edited). */
  @Property({ type: 'json', nullable: true })
  editedParamsRedacted: unknown = null;

  /** The key that edited the params (the resolver's). */
  @Property({ type: 'text', nullable: true })
  editedBy: string | null = null;

  @Property({ type: 'text', nullable: true })
  requestedBy: string | null = null;

  @Property({ type: 'text', nullable: true })
  resolvedBy: string | null = null;

  @Property({ type: 'text', nullable: true })
  reason: string | null = null;

  @Property({ ...TIMESTAMPTZ })
  expiresAt!: Date;

  /** Distinct approvers needed (the rule's, when it opened); below it a vote is an approval_votes row. */
  @Property({ type: 'integer', default: 1 })
  quorum: Opt<number> = 1;

  /** The rule's escalation ladder when it opened; step 0 is before its first step. */
  @Property({ type: 'json', default: '[]' })
  escalation: Opt<EscalationStep[]> = [];

  /** The current step of the ladder (0: not escalated). */
  @Property({ type: 'integer', default: 0 })
  step: Opt<number> = 0;

  /** When the current step ends and the next begins; null on the last step (expiresAt ends it). */
  @Property({ ...TIMESTAMPTZ, nullable: true })
  stepEndsAt: Date | null = null;

  @Property({ ...TIMESTAMPTZ, nullable: true })
  resolvedAt: Date | null = null;

  @Property({ ...TIMESTAMPTZ })
  createdAt: Opt<Date> = new Date();
}
