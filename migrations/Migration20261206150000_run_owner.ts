import { Migration } from '@mikro-orm/migrations';

/**
 * Least privilege inside an org: each run records the API key that owns it (opened it, or
 * was handed it by an admin). Runs opened before this migration get the key that opened
 * them from their `run.created` ledger event (its actor), so they keep their driver.
 */
export class Migration20261206150000_run_owner extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "agent_runs" add column "owner_key_id" uuid null;');
    this.addSql(
      `update "agent_runs" r set "owner_key_id" = l."actor_key_id"
         from "ledger_events" l
        where l."run_id" = r."id" and l."org_id" = r."org_id" and l."type" = 'run.created' and l."actor_key_id" is not null;`,
    );
    this.addSql('create index "agent_runs_org_id_owner_key_id_created_at_index" on "agent_runs" ("org_id", "owner_key_id", "created_at");');
  }

  override async down(): Promise<void> {
    this.addSql('drop index "agent_runs_org_id_owner_key_id_created_at_index";');
    this.addSql('alter table "agent_runs" drop column "owner_key_id";');
  }
}
