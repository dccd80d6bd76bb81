import { Entity, Enum, ManyToOne, PrimaryKey, Property, Unique, type Opt } from '@mikro-orm/core';
import { newId, TIMESTAMPTZ } from '../db/columns';
import { Org } from '../orgs/org.entity';
import { AgentRun } from './agent-run.entity';

export const MESSAGE_ROLES = ['user', 'assistant'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

/** One Messages-API message of a run, in order, so a run can be replayed and resumed. */
@Entity({ tableName: 'run_messages' })
@Unique({ properties: ['runId', 'position'] })
export class RunMessage {
  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @ManyToOne(() => Org, { mapToPk: true, fieldName: 'org_id' })
  orgId!: string;

  @ManyToOne(() => AgentRun, { mapToPk: true, fieldName: 'run_id' })
  runId!: string;

  @Property({ type: 'integer' })
  position!: number;

  @Enum({ items: [...MESSAGE_ROLES], type: 'text' })
  role!: MessageRole;

  /** Anthropic content blocks, as sent to or received from the model. */
  @Property({ type: 'json' })
  content!: unknown[];

  /** An assistant turn's stop_reason (end_turn, tool_use, max_tokens, pause_turn, refusal, …); null for user messages. */
  @Property({ type: 'text', nullable: true })
  stopReason: string | null = null;

  @Property({ ...TIMESTAMPTZ })
  createdAt: Opt<Date> = new Date();
}
