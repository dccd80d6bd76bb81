import { Migration } from '@mikro-orm/migrations';

/**
 * Review items are acknowledged (issue 30, item 4): a call flagged for review records who
 * acknowledged it, when, and their note, so the review queue lists only what nobody has
 * looked at yet. The ledger keeps the same in `tool_call.review_acknowledged`.
 */
export class Migration20261207110000_review_acknowledgement extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'alter table "tool_calls" add column "review_acknowledged_at" timestamptz null, add column "review_acknowledged_by" uuid null, add column "review_note" text null;',
    );
  }

  override async down(): Promise<void> {
    this.addSql('alter table "tool_calls" drop column "review_acknowledged_at", drop column "review_acknowledged_by", drop column "review_note";');
  }
}
