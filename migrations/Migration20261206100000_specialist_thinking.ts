import { Migration } from '@mikro-orm/migrations';

/**
 * Extended thinking (issue 28, item 3): a specialist's thinking budget, null (no thinking)
 * for every specialist that exists. The API takes no budget under 1024 tokens.
 */
export class Migration20261206100000_specialist_thinking extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "specialists" add column "thinking_budget_tokens" int null;');
    this.addSql(
      'alter table "specialists" add constraint "specialists_thinking_budget_check" check (thinking_budget_tokens is null or thinking_budget_tokens >= 1024);',
    );
  }

  override async down(): Promise<void> {
    this.addSql('alter table "specialists" drop constraint "specialists_thinking_budget_check";');
    this.addSql('alter table "specialists" drop column "thinking_budget_tokens";');
  }
}
