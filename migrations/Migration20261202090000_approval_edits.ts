import { Migration } from '@mikro-orm/migrations';

/**
 * Approve with edits: the approval keeps who edited, the edited params (redacted) and the
 * binding of the call as requested (a repeated MCP call finds it by that); the tool call
 * keeps the edited input (redacted) beside the input it was requested with.
 */
export class Migration20261202090000_approval_edits extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'alter table "approval_requests" add column "requested_binding_hash" text null, add column "edited_params_redacted" jsonb null, add column "edited_by" text null;',
    );
    this.addSql('alter table "tool_calls" add column "edited_input_redacted" jsonb null;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table "tool_calls" drop column "edited_input_redacted";');
    this.addSql(
      'alter table "approval_requests" drop column "requested_binding_hash", drop column "edited_params_redacted", drop column "edited_by";',
    );
  }
}
