import { Migration } from '@mikro-orm/migrations';

/**
 * A call's identity is its content: each tool call stores its fingerprint (run, tool, action,
 * canonical params; src/gateway/call-fingerprint.ts). A key names the call whose fingerprint it
 * was stored with; a request without a key of its own finds the call it repeats by it. Calls
 * recorded before this migration have none, and their keys replay as they did.
 */
export class Migration20261204190000_call_fingerprint extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "tool_calls" add column "fingerprint" text null;');
    this.addSql('create index "tool_calls_run_fingerprint_idx" on "tool_calls" ("run_id", "fingerprint") where "fingerprint" is not null;');
  }

  override async down(): Promise<void> {
    this.addSql('drop index "tool_calls_run_fingerprint_idx";');
    this.addSql('alter table "tool_calls" drop column "fingerprint";');
  }
}
