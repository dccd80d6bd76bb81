import { Check, Entity, Enum, Index, ManyToOne, PrimaryKey, Property, Unique, type Opt } from '@mikro-orm/core';
import { newId, TIMESTAMPTZ } from '../db/columns';
import { Org } from '../orgs/org.entity';
import { AgentRun } from '../runs/agent-run.entity';
import { PolicyDecision } from '../policy/policy-decision.entity';
import { RISK_LEVELS, type RiskLevel } from '../catalog/risk';
import type { SealedJson } from '../credentials/sealed-json';

export const TOOL_CALL_STATUSES = ['blocked', 'waiting_approval', 'approved', 'running', 'succeeded', 'failed'] as const;
export type ToolCallStatus = (typeof TOOL_CALL_STATUSES)[number];

/** The ledger row of one tool invocation. Input and output are stored redacted. */
@Entity({ tableName: 'tool_calls' })
@Index({ properties: ['orgId', 'createdAt', 'id'] })
@Index({ properties: ['orgId', 'runId', 'createdAt'] })
@Index({ properties: ['orgId', 'status', 'createdAt'] })
@Index({ properties: ['orgId', 'toolName', 'createdAt'] })
@Unique({ properties: ['runId', 'toolUseId'] })
// Reconciliation looks for running calls by the node that runs them.
@Index({
  name: 'tool_calls_running_node_idx',
  expression: `create index "tool_calls_running_node_idx" on "tool_calls" ("node_id") where status = 'running'`,
})
// A request without a key of its own finds the call it repeats by its content.
@Index({
  name: 'tool_calls_run_fingerprint_idx',
  expression: `create index "tool_calls_run_fingerprint_idx" on "tool_calls" ("run_id", "fingerprint") where "fingerprint" is not null`,
})
@Check({
  name: 'tool_calls_counters_check',
  expression: 'retry_count >= 0 and (duration_ms is null or duration_ms >= 0) and cost_cents >= 0',
})
export class ToolCall {
  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @ManyToOne(() => Org, { mapToPk: true, fieldName: 'org_id' })
  orgId!: string;

  @ManyToOne(() => AgentRun, { mapToPk: true, fieldName: 'run_id' })
  runId!: string;

  @Property({ type: 'text' })
  toolName!: string;

  @Property({ type: 'text' })
  action!: string;

  @Property({ type: 'text' })
  correlationId!: string;

  /** The model's tool_use id, so a replayed turn never creates a second call. */
  @Property({ type: 'text', nullable: true })
  toolUseId: string | null = null;

  /** The call's content (run, tool, action, canonical params): what its key names (call-fingerprint.ts). */
  @Property({ type: 'text', nullable: true })
  fingerprint: string | null = null;

  @Enum({ items: [...TOOL_CALL_STATUSES], type: 'text' })
  status!: ToolCallStatus;

  @Property({ type: 'json', nullable: true })
  inputRedacted: unknown = null;

  /** The input a reviewer changed it to before approving (redacted): what ran. Null: ran as requested. */
  @Property({ type: 'json', nullable: true })
  editedInputRedacted: unknown = null;

  @Property({ type: 'json', nullable: true })
  outputRedacted: unknown = null;

  @ManyToOne(() => PolicyDecision, { mapToPk: true, fieldName: 'policy_decision_id', nullable: true })
  policyDecisionId: string | null = null;

  @Enum({ items: [...RISK_LEVELS], type: 'text', nullable: true })
  riskLevel: RiskLevel | null = null;

  /** Set by an `observe` decision: executed, but flagged for human review. */
  @Property({ type: 'boolean', default: false })
  reviewRequired: Opt<boolean> = false;

  /** When a person acknowledged the review (acknowledgeReview): the call leaves the review queue. */
  @Property({ ...TIMESTAMPTZ, nullable: true })
  reviewAcknowledgedAt: Date | null = null;

  /** The key that acknowledged the review. */
  @Property({ type: 'uuid', nullable: true })
  reviewAcknowledgedBy: string | null = null;

  /** What the reviewer noted when acknowledging. */
  @Property({ type: 'text', nullable: true })
  reviewNote: string | null = null;

  @Property({ type: 'text', nullable: true })
  errorCode: string | null = null;

  @Property({ type: 'text', nullable: true })
  errorText: string | null = null;

  @Property({ type: 'integer', nullable: true })
  vendorStatusCode: number | null = null;

  /** The node executing the call while it is `running` (reconciliation takes it over when that node dies). */
  @Property({ type: 'uuid', nullable: true })
  nodeId: string | null = null;

  /**
   * The unredacted input, sealed with the master key while the call runs (cleared when it
   * settles), so that reconciliation can repeat an idempotent call or ask the vendor about it.
   */
  @Property({ type: 'json', nullable: true })
  sealedInput: SealedJson | null = null;

  @Property({ type: 'integer', default: 0 })
  retryCount: Opt<number> = 0;

  @Property({ type: 'integer', nullable: true })
  durationMs: number | null = null;

  @Property({ type: 'integer', default: 0 })
  costCents: Opt<number> = 0;

  @Property({ ...TIMESTAMPTZ })
  createdAt: Opt<Date> = new Date();

  @Property({ ...TIMESTAMPTZ })
  updatedAt: Opt<Date> = new Date();
}
