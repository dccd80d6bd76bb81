import { Check, Entity, Enum, Index, ManyToOne, PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import { newId, TIMESTAMPTZ } from '../db/columns';
import { Org } from '../orgs/org.entity';
import { Specialist } from '../orgs/specialist.entity';
import type { ManifestPin } from '../upstream/upstream-pin';

export const RUN_STATUSES = ['queued', 'running', 'waiting_approval', 'completed', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const RUN_DRIVERS = ['internal', 'external'] as const;
export type RunDriver = (typeof RUN_DRIVERS)[number];
/** Statuses in which a run accepts tool calls. */
export const ACTIVE_RUN_STATUSES: readonly RunStatus[] = ['running', 'waiting_approval'];

export interface RunMetadata {
  /**
   * Frozen at creation: enabled permissions ∩ specialist bindings, as `tool.action`; for the
   * imported upstream tools among them, the text pinned when an admin enabled them.
   */
  runtimeManifest: { allowedTools: string[]; policyVersion: number; upstreamTools?: Record<string, ManifestPin> };
  /** Frozen at creation: the specialist's thinking budget (absent or null: no thinking; src/llm/thinking.ts). */
  thinkingBudgetTokens?: number | null;
  [key: string]: unknown;
}

/** One conversation of an agent with a specialist, and everything it cost. */
@Entity({ tableName: 'agent_runs' })
@Index({ properties: ['orgId', 'createdAt', 'id'] })
@Index({ properties: ['orgId', 'status', 'createdAt'] })
@Index({ properties: ['orgId', 'specialistId', 'createdAt'] })
@Index({ properties: ['orgId', 'ownerKeyId', 'createdAt'] })
@Check({
  name: 'agent_runs_counters_check',
  expression:
    'pending_approval_count >= 0 and input_tokens >= 0 and output_tokens >= 0 and llm_cost_micros >= 0 and tool_cost_cents >= 0 and cache_creation_input_tokens >= 0 and cache_read_input_tokens >= 0',
})
export class AgentRun {
  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @ManyToOne(() => Org, { mapToPk: true, fieldName: 'org_id' })
  orgId!: string;

  @ManyToOne(() => Specialist, { mapToPk: true, fieldName: 'specialist_id' })
  specialistId!: string;

  @Enum({ items: [...RUN_STATUSES], type: 'text' })
  status: Opt<RunStatus> = 'queued';

  @Property({ type: 'json' })
  metadata!: RunMetadata;

  @Property({ type: 'integer', default: 0 })
  pendingApprovalCount: Opt<number> = 0;

  @Property({ type: 'integer', default: 0 })
  inputTokens: Opt<number> = 0;

  @Property({ type: 'integer', default: 0 })
  outputTokens: Opt<number> = 0;

  /** Prompt-cache writes: input tokens the API stored in its cache (priced MODEL_CACHE_WRITE_PRICE_PERCENT of input). */
  @Property({ type: 'integer', default: 0 })
  cacheCreationInputTokens: Opt<number> = 0;

  /** Prompt-cache reads: input tokens read from the cache (MODEL_CACHE_READ_PRICE_PERCENT of input). */
  @Property({ type: 'integer', default: 0 })
  cacheReadInputTokens: Opt<number> = 0;

  /** LLM cost in millionths of a US dollar, so token prices stay exact integers. */
  @Property({ type: 'integer', default: 0 })
  llmCostMicros: Opt<number> = 0;

  @Property({ type: 'integer', default: 0 })
  toolCostCents: Opt<number> = 0;

  @Property({ type: 'text' })
  correlationId!: string;

  /** Who drives the loop: the built-in runtime, or an external one through executeToolCall. */
  @Enum({ items: [...RUN_DRIVERS], type: 'text', default: 'internal' })
  driver: Opt<RunDriver> = 'internal';

  /**
   * The API key that owns the run: the one that opened it, or the one an admin handed it
   * to (`handOverRun`). Only it drives an external run, and agent keys read only the runs
   * they own (src/runs/run-visibility.ts). Null: opened before owners were recorded and
   * never found in the ledger, driven by nobody until an admin hands it over.
   */
  @Property({ type: 'uuid', nullable: true })
  ownerKeyId: string | null = null;

  @Property({ type: 'text', nullable: true })
  errorCode: string | null = null;

  @Property({ type: 'text', nullable: true })
  errorMessage: string | null = null;

  @Property({ ...TIMESTAMPTZ })
  createdAt: Opt<Date> = new Date();

  @Property({ ...TIMESTAMPTZ })
  updatedAt: Opt<Date> = new Date();

  @Property({ ...TIMESTAMPTZ, nullable: true })
  completedAt: Date | null = null;
}
