import { Migration } from '@mikro-orm/migrations';

/**
 * Publishing after a replay (issue 33, item 2): each replay records the draft's hash and the
 * policy version it ran against, so `publishPolicy` can require a recent replay of the exact
 * draft it publishes when the org says so (`orgs.policy_replay_required`).
 */
export class Migration20261208120000_policy_replays extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "orgs" add column "policy_replay_required" boolean not null default false;`);
    this.addSql(`create table "policy_replays" (
      "id" uuid not null primary key,
      "org_id" uuid not null,
      "draft_hash" text not null,
      "policy_version" int not null,
      "range_from" timestamptz not null,
      "range_to" timestamptz not null,
      "calls_read" int not null,
      "changed_count" int not null,
      "undecidable_count" int not null,
      "actor_key_id" uuid null,
      "created_at" timestamptz not null default now(),
      constraint "policy_replays_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade on delete cascade
    );`);
    this.addSql(`create index "policy_replays_org_id_created_at_index" on "policy_replays" ("org_id", "created_at");`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table "policy_replays";');
    this.addSql('alter table "orgs" drop column "policy_replay_required";');
  }
}
