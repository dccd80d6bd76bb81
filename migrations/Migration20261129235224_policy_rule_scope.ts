import { Migration } from '@mikro-orm/migrations';

export class Migration20261129235224_policy_rule_scope extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "policy_rules" drop constraint "policy_rules_specialist_id_foreign";`);

    this.addSql(
      `alter table "policy_rules" add constraint "policy_rules_specialist_id_foreign" foreign key ("specialist_id") references "specialists" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "policy_rules" drop constraint "policy_rules_specialist_id_foreign";`);

    this.addSql(
      `alter table "policy_rules" add constraint "policy_rules_specialist_id_foreign" foreign key ("specialist_id") references "specialists" ("id") on update cascade on delete set null;`,
    );
  }
}
