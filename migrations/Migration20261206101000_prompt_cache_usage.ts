import { Migration } from '@mikro-orm/migrations';

/**
 * Prompt caching (issue 28, item 5): each run adds up the cache writes and reads its turns
 * report (usage.cache_creation_input_tokens, usage.cache_read_input_tokens); runs before
 * this migration sent no breakpoints, so 0 is their true count.
 */
export class Migration20261206101000_prompt_cache_usage extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'alter table "agent_runs" add column "cache_creation_input_tokens" int not null default 0, add column "cache_read_input_tokens" int not null default 0;',
    );
    this.addSql('alter table "agent_runs" drop constraint "agent_runs_counters_check";');
    this.addSql(
      'alter table "agent_runs" add constraint "agent_runs_counters_check" check ("pending_approval_count" >= 0 and "input_tokens" >= 0 and "output_tokens" >= 0 and "llm_cost_micros" >= 0 and "tool_cost_cents" >= 0 and "cache_creation_input_tokens" >= 0 and "cache_read_input_tokens" >= 0);',
    );
  }

  override async down(): Promise<void> {
    this.addSql('alter table "agent_runs" drop constraint "agent_runs_counters_check";');
    this.addSql(
      'alter table "agent_runs" add constraint "agent_runs_counters_check" check ("pending_approval_count" >= 0 and "input_tokens" >= 0 and "output_tokens" >= 0 and "llm_cost_micros" >= 0 and "tool_cost_cents" >= 0);',
    );
    this.addSql('alter table "agent_runs" drop column "cache_creation_input_tokens", drop column "cache_read_input_tokens";');
  }
}
