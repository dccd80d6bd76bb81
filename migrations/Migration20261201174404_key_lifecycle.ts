import { Migration } from '@mikro-orm/migrations';

/** Key lifecycle (expiry, last use, the seed's demo keys) and org suspension. */
export class Migration20261201174404_key_lifecycle extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "orgs" add column "suspended_at" timestamptz null;`);

    this.addSql(
      `alter table "api_keys" add column "expires_at" timestamptz null, add column "last_used_at" timestamptz null, add column "seeded" boolean not null default false;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "api_keys" drop column "expires_at", drop column "last_used_at", drop column "seeded";`);

    this.addSql(`alter table "orgs" drop column "suspended_at";`);
  }
}
