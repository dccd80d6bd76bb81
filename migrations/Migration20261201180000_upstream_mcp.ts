import { Migration } from '@mikro-orm/migrations';

/**
 * Upstream MCP servers (per org) and the catalog rows their imports write: a tool
 * definition may now belong to one org (`org_id`), come from an upstream server, and be
 * marked removed instead of deleted. A key is unique per org, the global rows counting as
 * one org.
 */
export class Migration20261201180000_upstream_mcp extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "upstream_mcp_servers" ("id" uuid not null, "org_id" uuid not null, "name" text not null, "url" text not null, "transport" text check ("transport" in ('streamable_http')) not null, "default_risk" text check ("default_risk" in ('low', 'medium', 'high')) not null, "default_idempotent" boolean not null, "created_at" timestamptz not null, "last_imported_at" timestamptz null, constraint "upstream_mcp_servers_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "upstream_mcp_servers" add constraint "upstream_mcp_servers_org_id_name_unique" unique ("org_id", "name");`);
    this.addSql(
      `alter table "upstream_mcp_servers" add constraint "upstream_mcp_servers_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade;`,
    );

    this.addSql(`alter table "tool_definitions" drop constraint "tool_definitions_tool_name_action_unique";`);
    this.addSql(
      `alter table "tool_definitions" add column "org_id" uuid null, add column "upstream_server_id" uuid null, add column "upstream_name" text null, add column "removed_at" timestamptz null;`,
    );
    this.addSql(
      `alter table "tool_definitions" add constraint "tool_definitions_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "tool_definitions" add constraint "tool_definitions_upstream_server_id_foreign" foreign key ("upstream_server_id") references "upstream_mcp_servers" ("id") on update cascade;`,
    );
    this.addSql(`create index "tool_definitions_org_id_index" on "tool_definitions" ("org_id");`);
    this.addSql(
      `create unique index "tool_definitions_org_key_unique" on "tool_definitions" (coalesce("org_id", '00000000-0000-0000-0000-000000000000'::uuid), "tool_name", "action");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`delete from "tool_definitions" where "org_id" is not null;`);
    this.addSql(`drop index "tool_definitions_org_key_unique";`);
    this.addSql(`drop index "tool_definitions_org_id_index";`);
    this.addSql(`alter table "tool_definitions" drop constraint "tool_definitions_upstream_server_id_foreign";`);
    this.addSql(`alter table "tool_definitions" drop constraint "tool_definitions_org_id_foreign";`);
    this.addSql(
      `alter table "tool_definitions" drop column "org_id", drop column "upstream_server_id", drop column "upstream_name", drop column "removed_at";`,
    );
    this.addSql(`alter table "tool_definitions" add constraint "tool_definitions_tool_name_action_unique" unique ("tool_name", "action");`);
    this.addSql(`drop table "upstream_mcp_servers";`);
  }
}
