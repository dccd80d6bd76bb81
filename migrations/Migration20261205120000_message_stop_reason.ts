import { Migration } from '@mikro-orm/migrations';

/**
 * Why the model stopped each assistant turn (the Messages API's stop_reason): a paused turn
 * is continued, a refused one is never sent back, a reply cut off at max_tokens is marked.
 * Messages stored before this migration have none, and read as they did.
 */
export class Migration20261205120000_message_stop_reason extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "run_messages" add column "stop_reason" text null;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table "run_messages" drop column "stop_reason";');
  }
}
