import { Migration } from '@mikro-orm/migrations';

/**
 * Cedar policies beside the rules (issue 33, item 5; docs/policy.md, "Cedar"): an org's
 * policies, one Cedar policy per row, its name the Cedar policy id (unique in the org).
 */
export class Migration20261208110000_cedar_policies extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "cedar_policies" ("id" uuid not null, "org_id" uuid not null, "name" text not null, "position" int not null, "text" text not null, "enabled" boolean not null default true, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "cedar_policies_pkey" primary key ("id"));`,
    );
    this.addSql(`create unique index "cedar_policies_org_id_name_unique" on "cedar_policies" ("org_id", "name");`);
    this.addSql(
      `alter table "cedar_policies" add constraint "cedar_policies_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop table "cedar_policies";');
  }
}
