import { Check, Entity, Index, ManyToOne, PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import { newId, TIMESTAMPTZ } from '../db/columns';
import { Org } from './org.entity';

/** An agent persona of an org: its system prompt and the tools bound to it. */
@Entity({ tableName: 'specialists' })
@Index({ properties: ['orgId', 'createdAt'] })
@Check({ name: 'specialists_thinking_budget_check', expression: 'thinking_budget_tokens is null or thinking_budget_tokens >= 1024' })
export class Specialist {
  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @ManyToOne(() => Org, { mapToPk: true, fieldName: 'org_id' })
  orgId!: string;

  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text', nullable: true })
  description: string | null = null;

  @Property({ type: 'text', nullable: true })
  systemPrompt: string | null = null;

  /** Extended thinking's budget_tokens for this specialist's runs (null: no thinking; src/llm/thinking.ts). */
  @Property({ type: 'integer', nullable: true })
  thinkingBudgetTokens: number | null = null;

  @Property({ ...TIMESTAMPTZ })
  createdAt: Opt<Date> = new Date();
}
