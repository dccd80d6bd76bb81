import { Migration } from '@mikro-orm/migrations';

export class Migration20261201124813_recovery extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "toolgate_nodes" ("id" uuid not null, "name" text not null, "hostname" text not null, "pid" int not null, "worker_ids" text[] not null, "started_at" timestamptz not null, "heartbeat_at" timestamptz not null, "stopped_at" timestamptz null, "clean_stop" boolean null, "reaped_at" timestamptz null, "reaped_by" uuid null, constraint "toolgate_nodes_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "toolgate_nodes_reaped_at_heartbeat_at_index" on "toolgate_nodes" ("reaped_at", "heartbeat_at");`);
    this.addSql(`create index "toolgate_nodes_name_index" on "toolgate_nodes" ("name");`);

    this.addSql(`alter table "tool_calls" add column "node_id" uuid null, add column "sealed_input" jsonb null;`);
    this.addSql(`create index "tool_calls_running_node_idx" on "tool_calls" ("node_id") where status = 'running';`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "toolgate_nodes" cascade;`);

    this.addSql(`drop index "tool_calls_running_node_idx";`);
    this.addSql(`alter table "tool_calls" drop column "node_id", drop column "sealed_input";`);
  }
}
